"""Checks of the trace tree, fork edits and eval rows that the browser tests run on one page.

Each function drives a page already showing the view it checks (a finished run, an open
fork form, an open eval report) and asserts what a user would see.
"""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect


def tree_folds_with_the_keyboard(trace: Locator) -> None:
    """A subquery's toggle folds and unfolds its steps with Enter, ← and →."""
    toggle = trace.locator("button.tree-toggle").first
    group = trace.locator("tr.group").first.get_attribute("data-group-head")
    steps = trace.locator(f"tr[data-group='{group}']")
    assert steps.count() >= 1
    toggle.focus()
    toggle.press("Enter")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(steps.first).to_be_hidden()
    toggle.press("ArrowRight")
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(steps.first).to_be_visible()
    toggle.press("ArrowLeft")
    expect(steps.first).to_be_hidden()


def a_dot_opens_its_step(trace: Locator) -> None:
    """Clicking a graph dot unfolds its step's subquery, selects the step and opens its finds."""
    dot = trace.locator("circle.doc-dot").first
    number = dot.get_attribute("data-row")
    dot.click()
    row = trace.locator(f"tr[data-step='{number}']")
    expect(row).to_be_visible()
    expect(row).to_have_class(re.compile(r"\bselected\b"))
    expect(trace.locator("tr.selected")).to_have_count(1)
    if row.locator("details.candidates").count():
        expect(row.locator("details.candidates")).to_have_attribute("open", "")
    row.hover()  # a hovered step lights its dots
    expect(trace.locator(f"circle.hovered[data-row='{number}']").first).to_be_visible()


def escalation_only_where_the_rung_rose(trace: Locator) -> int:
    """↑ marks exactly the judged steps whose rung is above the last one of their subquery.

    Returns how many steps are marked.
    """
    judged = trace.locator("tr[data-rung]")
    rows = judged.evaluate_all(
        "rows => rows.map((r) => [r.dataset.group || '', Number(r.dataset.rung),"
        " r.classList.contains('escalated')])"
    )
    assert rows, "no judged step in the trace"
    last: dict[str, int] = {}
    expected = []
    for group, rung, _ in rows:
        expected.append(group in last and rung > last[group])
        last[group] = rung
    assert [marked for _, _, marked in rows] == expected, rows
    assert trace.locator(".escalated-mark").count() == sum(expected)
    return sum(expected)


def a_refused_fork_edit_shows_beside_its_field(row: Locator) -> None:
    """The page's own check and the server's refusal both land beside the field they name."""
    budget = row.locator(".field-error[data-for=max_steps]")
    row.locator("input[name=max_steps]").fill("0")
    row.get_by_role("button", name="Run fork").click()
    expect(budget).to_contain_text("whole number")
    expect(row.locator("input[name=max_steps]")).to_have_attribute("aria-invalid", "true")
    row.locator("input[name=max_steps]").fill("1")  # one traversal was taken before this step
    row.get_by_role("button", name="Run fork").click()
    expect(budget).to_contain_text("at least 2")  # the server's FieldError
    row.locator("input[name=subquery]").fill("  ")
    row.get_by_role("button", name="Run fork").click()
    expect(row.locator(".field-error[data-for=subquery]")).to_contain_text("blank")
    expect(budget).to_be_empty()


def eval_rows_sort_and_trace_on_the_run_index(page: Page) -> None:
    """A system's header sorts by its rank; a row's trace opens on the index the run used."""
    rows = page.locator("#eval-table tbody tr")
    page.locator("#eval-table th button.sort", has_text="fif").click()
    ranks = [_rank(rows.nth(n)) for n in range(rows.count())]
    assert ranks == sorted(ranks), ranks
    expect(page.locator("#eval-table th[aria-sort=ascending]")).to_have_count(1)
    page.locator("#eval-table th button.sort", has_text="fif").click()
    ranks = [_rank(rows.nth(n)) for n in range(rows.count())]
    assert ranks == sorted(ranks, reverse=True), ranks
    picked = page.locator("#index-picker").input_value()
    page.locator("#eval-table tr[data-qid=mb2] button.trace-link").click()  # FiF escalates
    shown = page.locator("#eval-trace .trace-index")
    expect(shown).to_have_attribute("data-index", "mini")
    assert picked != "mini", "the test needs another index picked"
    expect(page.locator("#eval-trace tr[data-step]").first).to_be_visible()
    assert escalation_only_where_the_rung_rose(page.locator("#eval-trace")) >= 1
    assert "trace=" in page.url
    page.locator("#eval-trace details.candidates summary").first.click()
    page.locator("#eval-trace details.candidates li button").first.click()
    expect(page.locator("#component-body .badge").nth(1)).to_have_text("mini")
    page.click("#component-close")


def _rank(row: Locator) -> int:
    """Return the fif rank shown in a row (a miss or error sorts last)."""
    text = row.locator("td.outcome[data-system=fif]").inner_text()
    digits = "".join(c for c in text if c.isdigit())
    return int(digits) if text.startswith("✓") and digits else 10**9


def two_runs_side_by_side(page: Page) -> None:
    """Another run beside the first marks the question FiF got worse on, and filters to it."""
    page.select_option("#eval-questions select", "mini-b")
    worse = page.locator("#eval-table tr[data-diff=worse]")
    expect(worse).to_have_count(1)
    expect(worse.locator("td.difference")).to_contain_text("fif ▼ worse")
    expect(page.locator("#eval-questions .diff-summary")).to_contain_text("0 better, 1 worse")
    page.locator("#eval-questions input[name=changed]").check()
    expect(page.locator("#eval-table tbody tr")).to_have_count(1)
