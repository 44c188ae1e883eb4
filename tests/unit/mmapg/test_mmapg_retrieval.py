"""The retrieval module on the mini index: instruction split, image modes, examination."""

from __future__ import annotations

from nodes.mmapg.modality import offline_split
from nodes.mmapg.radius import RadiusSettings
from nodes.mmapg.retrieval import NO_RESULT, gather, retrieve
from tools.cost import CostMeter

TARGETED = "What colours are on the flag of Warsaw?"
DESCRIPTIVE = "Which flag has two horizontal stripes, yellow above red?"


def ids(items):
    return [item["component_id"] for item in items]


def test_an_image_part_naming_a_title_is_targeted(index):
    split = offline_split(index, TARGETED)
    assert split.image_mode == "targeted" and split.targets == ("Warsaw",)
    assert split.image_part == TARGETED and split.key_phrases[0] == "Warsaw"


def test_an_image_part_naming_no_title_is_descriptive(index):
    split = offline_split(index, DESCRIPTIVE)
    assert split.image_mode == "descriptive" and split.targets == ()


def test_text_only_instructions_and_the_no_split_ablation_search_no_images(index):
    assert offline_split(index, "When was Pierre Curie born?").image_mode == "none"
    assert offline_split(index, TARGETED, split=False).image_mode == "none"


def test_targeted_image_retrieval_looks_in_the_named_documents(index, mmapg_context):
    split = offline_split(index, TARGETED)
    inside, _, pools = gather(index, split, RadiusSettings.of(mmapg_context), CostMeter())
    assert pools["image"] == 1 and pools["target0"] == 3
    image = [c for c in inside if c["pool"] == "image"]
    assert ids(image) == ["warsaw::i0"]


def test_targeted_image_retrieval_of_a_document_without_images_finds_none(index, mmapg_context):
    split = offline_split(index, "What colours are in the logo of Polonium?")
    assert split.image_mode == "targeted"
    narrow = mmapg_context.model_copy(update={"text_radius": 0.0})  # only Polonium's documents
    _, _, pools = gather(index, split, RadiusSettings.of(narrow), CostMeter())
    assert pools["image"] == 0


def test_descriptive_image_retrieval_searches_the_whole_image_kb(index, mmapg_context):
    split = offline_split(index, DESCRIPTIVE)
    inside, _, pools = gather(index, split, RadiusSettings.of(mmapg_context), CostMeter())
    assert pools["image"] == 1 and "target0" not in pools
    assert "warsaw::i0" in ids(inside)


def test_examination_keeps_candidates_covering_a_key_phrase(index, mmapg_context):
    meter = CostMeter()
    found = retrieve(index, TARGETED, [], mmapg_context, meter, llm_allowed=False)
    assert "warsaw::i0" in ids(found.kept)
    assert all(c["doc_id"] == "warsaw" or "covers" in c["note"] for c in found.kept)
    assert all(c["note"] == "covers no key phrase" for c in found.others if c["note"])
    assert meter.vector_ms > 0 and meter.embedding_ms > 0


def test_a_retrieval_whose_candidates_cover_nothing_is_no_result(index, mmapg_context):
    found = retrieve(
        index, "zebra xylophone quantum", [], mmapg_context, CostMeter(), llm_allowed=False
    )
    assert found.kept == [] and found.summary == NO_RESULT and found.others


def test_without_examination_everything_in_the_radius_is_kept(index, mmapg_context):
    context = mmapg_context.model_copy(update={"no_examination": True})
    found = retrieve(index, "zebra xylophone quantum", [], context, CostMeter(), False)
    assert found.kept and found.kept[0]["score"] >= max(c["score"] for c in found.others)


def test_a_zero_radius_keeps_only_each_pools_best(index, mmapg_context):
    plain = mmapg_context.model_copy(update={"no_examination": True, "text_radius": 1.0})
    narrow = plain.model_copy(update={"text_radius": 0.0})
    question = "When did Pierre Curie die in a street accident?"
    wide = retrieve(index, question, [], plain, CostMeter(), False)
    found = retrieve(index, question, [], narrow, CostMeter(), False)
    assert found.pools == {"text": 19, "target0": 3} and len(wide.kept) > 2
    assert len(found.kept) == 2  # the text pool's best and the Pierre Curie page's best
    best = max(wide.kept, key=lambda c: c["score"])
    assert best in found.kept and all(c["score"] < best["score"] for c in found.others)


def test_image_retrieval_stays_inside_the_document_scope(index, mmapg_context):
    split = offline_split(index, DESCRIPTIVE)
    settings = RadiusSettings.of(mmapg_context)
    inside, outside, pools = gather(index.scoped(["polonium"]), split, settings, CostMeter())
    assert pools["image"] == 0
    assert {c["doc_id"] for c in [*inside, *outside]} <= {"polonium"}
