"""A small safe calculator: arithmetic over named numbers, parsed by `ast`, never `eval`.

It checks the arithmetic a model claims (a margin from operating income and revenue)
instead of trusting it: only numbers, names bound to given values, + - * / and
parentheses are allowed; anything else is a CalculationError naming what it saw.
Numbers as printed in filings ("$5,298", "(50)", "12.5%", "1.2 billion") are read by
`to_number`.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Mapping

from tools.values import STATEMENT_AMOUNT

_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_UNARY: dict[type[ast.unaryop], Callable[[float], float]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}
MAX_EXPRESSION_CHARS = 300
SCALE_WORDS = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}


class CalculationError(ValueError):
    """An expression the calculator refuses or cannot evaluate."""


def evaluate(expression: str, values: Mapping[str, float]) -> float:
    """Return the value of an arithmetic expression over named values.

    Raises:
        CalculationError: On syntax it does not allow, an unknown name, or division by zero.
    """
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise CalculationError(f"expression longer than {MAX_EXPRESSION_CHARS} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as err:
        raise CalculationError(f"not an arithmetic expression: {expression!r}") from err
    result = _value(tree.body, values)
    if not math.isfinite(result):
        raise CalculationError(f"{expression!r} is not a finite number")
    return result


def _value(node: ast.expr, values: Mapping[str, float]) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        if isinstance(node.value, bool):
            raise CalculationError("booleans are not numbers")
        return float(node.value)
    if isinstance(node, ast.Name):
        if node.id not in values:
            known = ", ".join(sorted(values)) or "none"
            raise CalculationError(f"unknown name {node.id!r}; known: {known}")
        return float(values[node.id])
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _value(node.left, values), _value(node.right, values)
        if isinstance(node.op, ast.Div) and right == 0:
            raise CalculationError("division by zero")
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_value(node.operand, values))
    raise CalculationError(f"not allowed in a calculation: {ast.unparse(node)!r}")


def to_number(value: object) -> float | None:
    """Read a number as filings print it; None when there is none.

    Parentheses mean a negative amount; a trailing scale word ("million") multiplies.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) if math.isfinite(value) else None
    text = str(value).strip().lower()
    match = STATEMENT_AMOUNT.search(text)
    if match is None:
        return None
    raw = match.group(0)
    negative = raw.startswith("(") and raw.endswith(")") or "-" in raw
    digits = re.sub(r"[^\d.]", "", raw)
    try:
        number = float(digits)
    except ValueError:
        return None
    after = text[match.end() :].split()
    if after and after[0].strip(".,;") in SCALE_WORDS:
        number *= SCALE_WORDS[after[0].strip(".,;")]
    return -number if negative else number


def numbers_in(text: str) -> list[float]:
    """Return the numbers a text states, in order (years and page numbers included)."""
    return [n for m in STATEMENT_AMOUNT.finditer(text) if (n := to_number(m.group(0))) is not None]


def agrees(claimed: float, computed: float, tolerance: float = 0.01) -> bool:
    """Tell whether a claimed number matches a computed one within a relative tolerance."""
    if computed == 0:
        return abs(claimed) < 1e-9
    return abs(claimed - computed) <= tolerance * abs(computed)
