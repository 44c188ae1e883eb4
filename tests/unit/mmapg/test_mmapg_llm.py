"""MMAPG with a scripted chat model: structured steps, repair, and offline fallbacks."""

from __future__ import annotations

import json
import re

from mmapg_scripted import MMAPGScriptedModel, register

from graph_agent.mmapg_graph import ask_mmapg

QUESTION = "What colours are the stripes on the flag of the city where Marie Curie was born?"


def llm_context(mmapg_context, model, **overrides):
    settings = {"backend": "openai", "chat_model": register(model), "llm_backoff_s": 0}
    return mmapg_context.model_copy(update={**settings, **overrides})


def planner(*nodes, analysis="next"):
    return json.dumps({"analysis": analysis, "nodes": list(nodes)})


def pick_image(user: str) -> str:
    """Keep the image candidate of an examination listing, whatever its position."""
    [index] = re.findall(r"^(\d+): \[image\]", user, re.MULTILINE)
    info = {"index": int(index), "information": "the flag is yellow above red"}
    return json.dumps({"relevant": [info], "summary": "Warsaw's flag: yellow above red"})


def test_every_step_is_a_structured_llm_call(mmapg_context):
    split = {
        "text_part": "flag of Warsaw",
        "image_part": "the flag of Warsaw",
        "image_mode": "Targeted",
        "key_phrases": ["flag of Warsaw"],
        "targets": ["Warsaw"],
        "image_question": "What colours are the stripes?",
    }
    model = MMAPGScriptedModel(
        roles={
            "plan": [json.dumps({"sub_questions": [QUESTION], "plan": "city, then its flag"})],
            "planner": [
                planner({"type": "retrieval", "parents": [0], "instruction": "the flag of Warsaw"}),
                planner({"type": "answer", "parents": [1], "instruction": QUESTION}),
                planner({"type": "stop", "parents": [2]}),
            ],
            "split": [json.dumps(split)],
            "examine": [pick_image],
            "answer": [json.dumps({"answer": "yellow and red"})],
        }
    )
    result = ask_mmapg(QUESTION, llm_context(mmapg_context, model))
    assert model.roles_called() == [
        "plan",
        "planner",
        "split",
        "examine",
        "planner",
        "answer",
        "planner",
    ]
    assert result.answer == "yellow and red"
    assert result.ranking[0]["component_id"] == "warsaw::i0"
    assert result.cost["llm_calls"] == 7 and result.cost["input_tokens"] == 700
    assert {step["decided_by"] for step in result.history} <= {"llm", "graph"}
    examine_prompt = next(user for role, user in model.calls if role == "examine")
    assert examine_prompt.index("Candidates:") < examine_prompt.index("Instruction:")
    assert not result.fallbacks


def test_an_unknown_parent_is_repaired_by_a_second_reply(mmapg_context):
    model = MMAPGScriptedModel(
        roles={
            "planner": [
                planner({"type": "retrieval", "parents": [7], "instruction": "flag"}),
                planner({"type": "stop", "parents": [0]}),
            ]
        },
        defaults={"plan": json.dumps({"sub_questions": [QUESTION]})},
    )
    context = llm_context(mmapg_context, model, llm_retries=1, max_llm_calls=3)
    result = ask_mmapg(QUESTION, context)
    repair = [user for role, user in model.calls if role == "planner"][-1]
    assert "parents [7] do not exist" in repair
    # the repaired stop comes before anything was found: refused, the offline planner goes on
    assert "stop with nothing retrieved" in result.fallbacks[0]
    assert [s["node"] for s in result.history][:3] == ["plan_writer", "planner", "retriever"]
    assert result.ranking


def test_malformed_json_falls_back_offline_without_a_crash(mmapg_context):
    broken = "Sure! Here is the plan: {nodes: [retrieval"
    model = MMAPGScriptedModel(
        defaults={role: broken for role in ("plan", "planner", "split", "examine", "answer")}
    )
    context = llm_context(mmapg_context, model, llm_retries=1)
    offline = ask_mmapg(QUESTION, mmapg_context)
    result = ask_mmapg(QUESTION, context)
    assert [r["component_id"] for r in result.ranking] == [
        r["component_id"] for r in offline.ranking
    ]
    assert result.fallbacks and all(
        "offline fallback" in note or "LLM retried" in note for note in result.fallbacks
    )
    assert {s["decided_by"] for s in result.history if s["node"] != "finisher"} == {
        "offline-fallback"
    }
    assert result.cost["fallbacks"] >= 4 and result.cost["llm_calls"] >= 8


def test_the_llm_call_budget_turns_later_steps_offline(mmapg_context):
    model = MMAPGScriptedModel(defaults={"plan": json.dumps({"sub_questions": [QUESTION]})})
    result = ask_mmapg(QUESTION, llm_context(mmapg_context, model, max_llm_calls=1))
    assert model.roles_called() == ["plan"]
    assert result.history[1]["decided_by"] == "offline-fallback"
    assert any("LLM budget used up" in note for note in result.fallbacks)


def test_triplets_rescore_the_text_candidates_before_the_radius(mmapg_context):
    instruction = "Polonium atomic number"

    def triplets(user: str) -> str:
        """Give the Polonium paragraph a triplet equal to the query, the others unrelated ones."""
        passages = []
        for line in user.splitlines():
            match = re.match(r"^(\d+): \[(\w+)\] (.+?) —", line)
            if match:
                own = instruction if match.group(3) == "Polonium" else f"{match.group(3)} | is | x"
                passages.append({"index": int(match.group(1)), "triplets": [own]})
        return json.dumps({"passages": passages})

    model = MMAPGScriptedModel(
        roles={"triplets": [triplets]},
        defaults={
            "plan": json.dumps({"sub_questions": [instruction]}),
            "split": json.dumps({"text_part": instruction, "key_phrases": ["Polonium"]}),
            "examine": json.dumps({"relevant": [{"index": 0, "information": "84"}]}),
            "answer": json.dumps({"answer": "84"}),
        },
    )
    scripted = [planner({"type": "retrieval", "parents": [0], "instruction": instruction}),
                planner({"type": "stop", "parents": [1]})]  # fmt: skip
    model.roles["planner"] = scripted
    context = llm_context(mmapg_context, model, triplets=True, text_radius=0.2)
    result = ask_mmapg(instruction, context)
    assert "triplets" in model.roles_called()
    kept = result.ranking[0]
    assert kept["component_id"].startswith("polonium::") and kept["score"] == 1.0
    others = [r for r in result.ranking if not r["component_id"].startswith("polonium::")]
    assert others and all(r["score"] < 1.0 for r in others)
    offline = ask_mmapg(instruction, mmapg_context.model_copy(update={"triplets": True}))
    assert offline.ranking[0]["score"] < 1.0  # offline, sentences and rows keep their scores
