"""Table tests of the history views (state/views.py) and the state reducers (state/fif_state.py)."""

from __future__ import annotations

import pytest
from agent_records import candidate, replan_decision, search_decision, step, subquery

from nodes.fif.rules import LADDER
from state.core import add_costs, llm_calls, tokens
from state.fif_state import keep_best, merge_subqueries
from state.views import (
    best_success,
    consecutive_failures,
    failed_anchors,
    failed_patterns,
    intent_of,
    last_replan_step,
    replans,
    routing_pattern,
    subquery_finds,
    tried_patterns,
    unresolved,
)


@pytest.mark.parametrize(
    ("history", "expected"),
    [
        ([], 0),
        ([step(0)], 1),
        ([step(0), step(1)], 2),
        ([step(0), step(1, success=True)], 0),
        ([step(0, success=True), step(1), step(2)], 2),
        ([step(0), step(1, 1), step(2)], 2),  # another subquery's steps are skipped
        ([step(0, 1), step(1, 1)], 0),
    ],
    ids=["none", "one", "two", "ends-in-success", "after-success", "interleaved", "other"],
)
def test_consecutive_failures(history, expected) -> None:
    assert consecutive_failures(history, 0) == expected


@pytest.mark.parametrize(
    ("history", "expected"),
    [
        ([], set()),
        ([step(0), step(1, rung=2)], {None}),
        ([step(0, 1, success=True), step(1), step(2, rung=0, anchor=0)], {None, 0}),
        ([step(0, rung=0, anchor=3, success=True)], set()),
        ([step(0, 1, anchor=None), step(1, rung=0, anchor=0)], {0}),
    ],
    ids=["none", "one-anchor", "two-anchors", "successes-skipped", "other-subquery-skipped"],
)
def test_failed_anchors(history, expected) -> None:
    assert failed_anchors(history, 0) == expected


@pytest.mark.parametrize(
    ("history", "exclude", "expected"),
    [
        ([], set(), None),
        ([step(0)], set(), None),
        ([step(0, success=True, score=0.5), step(1, success=True, score=0.9)], set(), 1),
        ([step(0, success=True, score=0.5), step(1, success=True, score=0.9)], {1}, 0),
        ([step(0, success=True, components=[])], set(), None),  # nothing to anchor on
        ([step(0, success=True, score=0.9), step(1, score=0.99)], set(), 0),
    ],
    ids=["empty", "failure-only", "best-score", "excluded", "no-components", "failures-skipped"],
)
def test_best_success(history, exclude, expected) -> None:
    best = best_success(history, exclude)
    assert (best["step"] if best else None) == expected


@pytest.mark.parametrize(
    ("subqueries", "expected"),
    [
        ([], []),
        ([subquery(0), subquery(1, "answerable"), subquery(2, "not answerable")], [0, 2]),
        ([subquery(0), subquery(1, origin="rewrite", parent=0)], [1]),
        ([subquery(0), subquery(1, "answerable", origin="rewrite", parent=0)], []),
        ([subquery(0), subquery(1, origin="replan")], [0, 1]),
        ([subquery(0), subquery(1, origin="rewrite", parent=0),
          subquery(2, origin="rewrite", parent=1)], [2]),
    ],
    ids=["empty", "statuses", "rewrite-supersedes", "rewrite-answered", "replan-adds",
         "rewrite-of-rewrite"],
)  # fmt: skip
def test_unresolved(subqueries, expected) -> None:
    assert [s["index"] for s in unresolved(subqueries)] == expected


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (("Find the Flag", None, LADDER[1]), ("flag the find", None, LADDER[1]), True),
        (("find flag", None, LADDER[1]), ("find flag", None, LADDER[2]), False),
        (("find flag", None, LADDER[1]), ("find flag", 3, LADDER[1]), True),
        (("find flag", 0, LADDER[0]), ("find flag", 1, LADDER[0]), False),
        (("find flag", 0, LADDER[0]), ("find city", 0, LADDER[0]), False),
    ],
    ids=["word-order-case", "granularity", "anchor-moot-for-vector", "anchor-neighbors",
         "intent"],
)  # fmt: skip
def test_routing_pattern(a, b, same) -> None:
    assert (routing_pattern(*a) == routing_pattern(*b)) is same


def test_links_of_the_same_top_find_are_one_route() -> None:
    """Two successes topped by the same component lead to the same links: one route."""
    history = [
        step(0, rung=1, success=True, answerable=False, components=["t::table", "a::p0"]),
        step(1, rung=0, anchor=0),
        step(2, rung=2, success=True, answerable=False, components=["t::table", "b::p0"]),
        step(3, rung=3, success=True, answerable=False, components=["c::p0"]),
    ]
    assert routing_pattern("find target 0", 2, LADDER[0], history) in failed_patterns(history)
    assert routing_pattern("find target 0", 3, LADDER[0], history) not in tried_patterns(history)
    assert routing_pattern("find target 0", 2, LADDER[0]) not in tried_patterns(history)


def test_failed_and_tried_patterns_differ_by_outcome() -> None:
    history = [step(0, success=True), step(1, rung=2)]
    assert failed_patterns(history) == {routing_pattern("find target 0", None, LADDER[2])}
    assert tried_patterns(history) == failed_patterns(history) | {
        routing_pattern("find target 0", None, LADDER[1])
    }
    assert intent_of("Where, where is X?") == "is where x"


@pytest.mark.parametrize(
    ("decisions", "count", "since"),
    [
        ([], 0, -1),
        ([search_decision(), search_decision()], 0, -1),
        ([search_decision(), replan_decision()], 1, 1),
        ([search_decision(), replan_decision(), search_decision(), replan_decision()], 2, 2),
        ([replan_decision(), search_decision()], 1, 0),
    ],
    ids=["none", "searches", "one", "two", "replan-first"],
)
def test_replan_counters(decisions, count, since) -> None:
    state = {"decisions": decisions}
    assert (replans(state), last_replan_step(state)) == (count, since)


def test_cost_views() -> None:
    state = {"cost": {"llm_calls": 3.0, "input_tokens": 120, "output_tokens": 30}}
    assert (llm_calls(state), tokens(state)) == (3, 150)
    assert (llm_calls({}), tokens({})) == (0, 0)


@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [
        (None, None, {}),
        (None, {"llm_calls": 1}, {"llm_calls": 1}),
        ({"llm_calls": 1, "usd": 0.1}, {"usd": 0.2, "vector_ms": 3}, {"llm_calls": 1, "usd": 0.3,
                                                                       "vector_ms": 3}),
        ({"usd": 0.1234564}, {"usd": 0.0000003}, {"usd": 0.123457}),
    ],
    ids=["empty", "from-none", "sums-by-key", "rounds"],
)  # fmt: skip
def test_add_costs(left, right, expected) -> None:
    assert add_costs(left, right) == expected


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (None, candidate("a::p0", 0.5), candidate("a::p0", 0.5)),
        (candidate("a::p0", 0.5), candidate("a::p0", 0.7, step=2), candidate("a::p0", 0.7, step=2)),
        (candidate("a::p0", 0.7), candidate("a::p0", 0.5, step=2), candidate("a::p0", 0.7)),
        (candidate("a::p0", 0.5, via="b::s1"), candidate("a::p0", 0.9),
         candidate("a::p0", 0.9, via="b::s1")),  # a known link path survives a better score
        (candidate("a::p0", 0.7), candidate("a::p0", 0.5, via="b::s1"),
         candidate("a::p0", 0.7, via="b::s1")),  # and a lower score can still bring one
    ],
    ids=["new", "higher-wins", "lower-loses", "via-kept", "via-added"],
)  # fmt: skip
def test_keep_best(old, new, expected) -> None:
    left = {} if old is None else {"a::p0": old}
    merged = keep_best(left, {"a::p0": new, "b::p0": candidate("b::p0")})
    assert merged == {"a::p0": expected, "b::p0": candidate("b::p0")}
    assert left == ({} if old is None else {"a::p0": old})  # inputs are not mutated


def test_merge_subqueries_appends_and_updates_but_never_removes() -> None:
    left = [subquery(0), subquery(1)]
    answered = {**subquery(1), "status": "answerable", "answer": "84"}
    fresh = subquery(7, origin="replan")  # a stale index is renumbered on append
    merged = merge_subqueries(left, [answered, fresh])
    assert [s["index"] for s in merged] == [0, 1, 2]
    assert merged[0] == subquery(0) and merged[1] == answered
    assert merged[2] == {**fresh, "index": 2}
    assert left == [subquery(0), subquery(1)]
    assert merge_subqueries(None, None) == []
    assert merge_subqueries(None, [subquery(0)]) == [subquery(0)]


def test_subquery_finds_are_the_tops_of_global_hops_on_subqueries_of_their_own() -> None:
    question = "Which came first, the band or the drummer?"
    history = [
        step(0, 0, success=True, subquery=question, components=["band::p0", "x::p0"]),
        step(1, 1, success=True, subquery="the drummer born", components=["drummer::p0"]),
        step(2, 1, rung=0, anchor=1, success=True, subquery="the drummer born",
             components=["town::p0"]),  # a link hop: what it reached, not a find of its own
        step(3, 2, success=False, subquery="the band formed", components=["y::p0"]),
        step(4, 3, success=True, subquery="the drummer born (Drums)",
             components=["drummer::p0"]),
    ]  # fmt: skip
    state = {"question": question, "history": history}
    assert subquery_finds(state) == ["drummer::p0"]  # type: ignore[arg-type]


def test_a_subquery_answered_on_the_way_counts_with_the_component_that_answered_it() -> None:
    question = "Are Frozen and Escape from the Dark both animated features?"
    history = [step(0, 0, success=True, subquery=question, components=["escape::p0", "f::p0"])]
    plan = [
        subquery(0, "not answerable"),
        {**subquery(1, "answerable"), "text": "Escape from the Dark", "found": "escape::p0"},
        {**subquery(2, "answerable"), "text": question, "found": "f::p0"},  # the question's own
    ]
    state = {"question": question, "history": history, "subqueries": plan}
    assert subquery_finds(state) == ["escape::p0"]  # type: ignore[arg-type]
