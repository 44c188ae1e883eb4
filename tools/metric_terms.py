"""What a named financial metric is computed from, so a search can look for its inputs.

A question such as "What is the quick ratio?" names a metric that no filing prints; the
statements print its inputs (cash, receivables, current liabilities). The extraction
loop's offline synthesis asks for those line items one at a time, the path seed 002 asks
for when a value is not stated (operating income and revenue for a margin). The table is
textbook definitions, no company's or data set's wording.

Inside one filing the inputs find the statement pages; across many filings the line items
match every company's statements alike and drown the question. So they are asked for
inside the chosen filing, never to choose one (`lines_in_filing`): FiF's offline planner
adds one subquery per line, and the extraction loop's search fuses each line's hits with
the item's. The page recall this gains is in docs/benchmarks.md.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tools.corpus_index import CorpusIndex

METRIC_INPUTS: dict[str, tuple[str, ...]] = {
    "quick ratio": (
        "cash and cash equivalents",
        "short-term investments",
        "accounts receivable",
        "total current liabilities",
    ),
    "acid-test ratio": (
        "cash and cash equivalents",
        "accounts receivable",
        "total current liabilities",
    ),
    "current ratio": ("total current assets", "total current liabilities"),
    "cash ratio": ("cash and cash equivalents", "total current liabilities"),
    "working capital": ("total current assets", "total current liabilities"),
    "gross margin": ("revenue", "cost of sales", "gross profit"),
    "operating margin": ("operating income", "revenue"),
    "ebit": ("operating income", "interest expense", "income taxes"),
    "ebitda": ("operating income", "depreciation and amortization"),
    "net margin": ("net income", "revenue"),
    "profit margin": ("net income", "revenue"),
    "effective tax rate": ("provision for income taxes", "income before income taxes"),
    "capital expenditure": ("purchases of property, plant and equipment", "investing activities"),
    "capex": ("purchases of property, plant and equipment", "investing activities"),
    "free cash flow": (
        "net cash provided by operating activities",
        "purchases of property, plant and equipment",
    ),
    "operating cash flow": ("net cash provided by operating activities",),
    "cash conversion": ("net cash provided by operating activities", "net income"),
    "dividend payout ratio": ("cash dividends paid", "net income"),
    "payout ratio": ("dividends paid", "net income"),
    "inventory turnover": ("cost of sales", "inventories"),
    "days inventory outstanding": ("inventories", "cost of sales"),
    "receivables turnover": ("revenue", "accounts receivable"),
    "days sales outstanding": ("accounts receivable", "revenue"),
    "days payable outstanding": ("accounts payable", "cost of sales"),
    "cash conversion cycle": ("inventories", "accounts receivable", "accounts payable"),
    "asset turnover": ("revenue", "total assets"),
    "fixed asset turnover": ("revenue", "property, plant and equipment, net"),
    "return on assets": ("net income", "total assets"),
    "return on equity": ("net income", "total shareholders' equity"),
    "return on invested capital": ("operating income", "total debt", "shareholders' equity"),
    "debt to equity": ("total debt", "total shareholders' equity"),
    "debt-to-equity": ("total debt", "total shareholders' equity"),
    "leverage ratio": ("total debt", "total assets", "shareholders' equity"),
    "net debt": ("total debt", "cash and cash equivalents"),
    "interest coverage": ("operating income", "interest expense"),
    "earnings per share": ("net income", "weighted-average shares outstanding"),
    "eps": ("net income per share", "weighted-average shares outstanding"),
    "capital-intensive": (
        "purchases of property, plant and equipment",
        "property, plant and equipment, net",
        "total assets",
    ),
    "capital intensity": ("property, plant and equipment, net", "total assets", "revenue"),
    "liquidity": ("cash and cash equivalents", "total current assets", "total current liabilities"),
    "solvency": ("total liabilities", "total assets", "total debt"),
    "share repurchase": ("repurchases of common stock", "treasury stock"),
    "buyback": ("repurchases of common stock", "treasury stock"),
}
"""A metric (lower case, as a question writes it) -> the statement line items it is made of."""

ABBREVIATIONS: dict[str, str] = {
    "roa": "return on assets",
    "roe": "return on equity",
    "roic": "return on invested capital",
    "dpo": "days payable outstanding",
    "dso": "days sales outstanding",
    "dio": "days inventory outstanding",
    "ccc": "cash conversion cycle",
    "fcf": "free cash flow",
    "cfo": "operating cash flow",
    "cogs": "cost of sales",
    "pp&e": "property, plant and equipment",
}
"""Abbreviations a question may use for a metric (matched as whole words)."""


@lru_cache(maxsize=1)
def _pattern() -> re.Pattern[str]:
    names = sorted([*METRIC_INPUTS, *ABBREVIATIONS], key=len, reverse=True)
    return re.compile(r"(?<![\w&])(" + "|".join(re.escape(n) for n in names) + r")(?![\w&])")


def metrics_named(text: str) -> list[str]:
    """Return the metrics a text names, in order of appearance, without repeats."""
    found = [ABBREVIATIONS.get(m, m) for m in _pattern().findall(text.lower())]
    return list(dict.fromkeys(found))


def metric_inputs(text: str) -> list[str]:
    """Return the line items of the metrics a text names (an abbreviation's expansion too)."""
    items: list[str] = []
    for metric in metrics_named(text):
        items += [metric] if metric not in METRIC_INPUTS else list(METRIC_INPUTS[metric])
    return list(dict.fromkeys(items))


def lines_in_filing(index: CorpusIndex, text: str) -> list[str]:
    """Return the input lines of the metrics a text names, inside a chosen filing only.

    The index is scoped to the question's filings by `--single-doc` or `--doc`; in a
    shared store the lines would match every company's statements alike, so none.
    """
    return metric_inputs(text) if index.scope is not None else []
