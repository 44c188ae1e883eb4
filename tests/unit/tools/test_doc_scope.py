"""The document scope (single-document setting): every search of every system stays inside it."""

from pathlib import Path

import pytest

from graph_agent.api import ask
from graph_agent.lilac_graph import ask_lilac
from state.fif_context import FiFContext
from state.lilac_state import LilacContext
from tools.corpus_index import CorpusIndex, open_index
from tools.errors import IndexMismatchError
from tools.search import dense_search, score_nodes, score_vec

QUESTION = "Which elements did Marie Curie discover, and where was she born?"
SCOPE = ("pierre_curie", "polonium")


@pytest.fixture(scope="module")
def index(mini_index: Path) -> CorpusIndex:
    return open_index(mini_index)


def test_a_scoped_view_shares_the_index_and_keeps_its_searches_inside(index: CorpusIndex) -> None:
    view = index.scoped(SCOPE)
    assert view.graph is index.graph and view.layers is index.layers and index.scope is None
    everywhere = {n.doc_id for n in score_vec(index, QUESTION, "component", "subcomponent", 10)}
    assert everywhere - set(SCOPE)  # the unscoped search does leave the scope
    for mode in ("dense", "sparse", "hybrid"):
        found = score_nodes(view, QUESTION, "component", "subcomponent", 10, mode)  # type: ignore[arg-type]
        assert found and {n.doc_id for n in found} <= set(SCOPE), mode
    docs = score_vec(view, QUESTION, "document", "document", 10)
    assert {n.node_id for n in docs} == set(SCOPE)  # exhaustive inside the scope
    local = dense_search(view, QUESTION, k=10, doc_ids=["polonium", "warsaw"])
    assert {n.doc_id for n in local} == {"polonium"}  # a local hop cannot widen the scope


def test_scope_must_name_documents(index: CorpusIndex) -> None:
    with pytest.raises(IndexMismatchError, match="no document 'nowhere'"):
        index.scoped(["nowhere"])
    with pytest.raises(IndexMismatchError):
        index.scoped(["marie_curie::p0"])  # a component is not a document
    assert index.scoped(SCOPE).scoped(None).scope is None


def test_every_graph_system_ranks_only_scoped_components(mini_index: Path, tmp_path: Path) -> None:
    import shutil

    from graph_agent.registry import SYSTEMS
    from graph_agent.systems import run_system

    own = shutil.copytree(mini_index, tmp_path / "index")  # the runs write checkpoints there
    for name, spec in SYSTEMS.items():
        context = spec.context_type(index_dir=str(own), doc_scope=SCOPE)
        result = run_system(name, QUESTION, context)
        assert result.ranking, name
        assert {r["doc_id"] for r in result.ranking} <= set(SCOPE), name


def test_fif_and_lilac_rank_only_scoped_components(mini_index: Path) -> None:
    for run, context in (
        (ask, FiFContext(index_dir=str(mini_index), doc_scope=SCOPE)),
        (ask_lilac, LilacContext(index_dir=str(mini_index), doc_scope=SCOPE)),
    ):
        result = run(QUESTION, context)
        assert result.ranking, run.__name__
        assert {r["doc_id"] for r in result.ranking} <= set(SCOPE), run.__name__


def test_fif_ask_cli_doc_option(mini_index: Path, tmp_path: Path, run_fif_main) -> None:  # type: ignore[no-untyped-def]
    import json
    import shutil

    own = shutil.copytree(mini_index, tmp_path / "index")  # ask writes its checkpoints there
    code, out, _ = run_fif_main("ask", QUESTION, "--index", str(own), "--doc", "polonium", "--json")
    assert code == 0
    assert {r["doc_id"] for r in json.loads(out)["ranking"]} == {"polonium"}
    code, _, err = run_fif_main("search", QUESTION, "--index", str(mini_index), "--doc", "nowhere")
    assert code == 2 and "nowhere" in err
