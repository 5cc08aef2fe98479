"""Byte units, exact numbers and the parameter-count notation.

Everything inside the model is bytes. Units appear only where a number leaves the model:
``GB`` is 10^9 bytes, ``GiB`` is 2^30 bytes, and bandwidth is decimal (GB/s = 10^9 B/s).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from fractions import Fraction

GB = 10**9
GiB = 2**30
MiB = 2**20


class Unit(StrEnum):
    """A display unit for memory; the model never computes in either."""

    GiB = "GiB"
    """2^30 bytes: what the first seed and the CUDA driver print."""
    GB = "GB"
    """10^9 bytes: what card vendors market and the second seed prints."""


UNIT_BYTES: dict[Unit, int] = {Unit.GiB: GiB, Unit.GB: GB}


Exact = int | Fraction
"""An exact number of bytes (or bytes per parameter). Whole values stay ``int``, because
Python's integers are fast and ``Fraction`` arithmetic is not; both compare exactly."""


def exact(value: float | str | Fraction) -> Exact:
    """The exact rational a human meant by ``value``.

    A float goes through its shortest repr, so ``0.8`` becomes 4/5 rather than the binary
    neighbour 3602879701896397/4503599627370496; that keeps "fills the card exactly" exact.
    """
    if isinstance(value, float):
        value = repr(value)
    return simplest(Fraction(value))


def simplest(value: Exact) -> Exact:
    """``value`` as an ``int`` when it is whole."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    return value


def exact_div(numerator: Exact, denominator: Exact) -> Exact:
    """``numerator / denominator`` exactly, as an ``int`` when it divides evenly."""
    if isinstance(numerator, int) and isinstance(denominator, int):
        quotient, remainder = divmod(numerator, denominator)
        return quotient if remainder == 0 else Fraction(numerator, denominator)
    return simplest(Fraction(numerator) / denominator)


# Parameter counts: "30e9", "30B", "30b", "350M", "1.5T", "30000000000".
PARAM_SUFFIXES = {"k": 10**3, "m": 10**6, "b": 10**9, "t": 10**12}
_SUFFIXED = re.compile(r"^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([kKmMbBtT])\s*$")


class ParamCountError(ValueError):
    """The text is not a parameter count."""


def parse_param_count(text: str | float) -> int:
    """Parse a parameter count, rounded to a whole number of parameters (half to even).

    Accepts plain numbers (``30000000000``, ``30e9``, ``3.0E10``) and a decimal mantissa with
    one suffix: k (10^3), M (10^6), B (10^9), T (10^12), in either case.
    """
    if isinstance(text, bool):
        raise ParamCountError("not a parameter count")
    if isinstance(text, int):
        return text
    if isinstance(text, float):
        if not math.isfinite(text):
            raise ParamCountError("not a finite number")
        return round(Decimal(repr(text)))
    match = _SUFFIXED.match(text)
    try:
        if match:
            value = Decimal(match.group(1)) * PARAM_SUFFIXES[match.group(2).lower()]
        else:
            value = Decimal(text.strip())
    except InvalidOperation:
        raise ParamCountError("expected a number such as 30e9, 30B, 350M or 1.5T") from None
    if not value.is_finite():
        raise ParamCountError("not a finite number")
    # Decimal("1e400") is finite but not a float; bounds are checked by the caller, so only
    # guard against exponents large enough to make the integer conversion itself expensive.
    if value.adjusted() > 30:
        raise ParamCountError("far too large")
    return round(value)


def format_param_count(params: int) -> str:
    """The canonical short form of a parameter count: 30B, 350M, 1.5T, 6.738415616B.

    Exact: ``parse_param_count(format_param_count(n)) == n`` for every non-negative int.
    """
    for suffix, scale in (("T", 10**12), ("B", 10**9), ("M", 10**6), ("k", 10**3)):
        if params >= scale:
            mantissa = (Decimal(params) / scale).normalize()
            text = format(mantissa, "f")
            return f"{text}{suffix}"
    return str(params)


def param_count_words(params: int) -> str:
    """A parameter count in words for sentences: "30 billion", "1.5 trillion", "350 million"."""
    for word, scale in (("trillion", 10**12), ("billion", 10**9), ("million", 10**6)):
        if params >= scale:
            return f"{_short(params / scale)} {word}"
    return f"{params:,}"


def _short(value: float) -> str:
    """Up to three significant figures, no trailing zeros: 20, 1.5, 6.74, 175."""
    if value >= 100:
        return f"{value:.0f}"
    text = f"{value:.3g}"
    return text


def format_bytes(num_bytes: float | Fraction, unit: Unit, digits: int = 1) -> str:
    """A byte count in ``unit`` with its label, rounded half-up like the seed's tables."""
    value = Decimal(float(num_bytes)) / UNIT_BYTES[unit]
    quantum = Decimal(1).scaleb(-digits)
    rounded = value.quantize(quantum, rounding="ROUND_HALF_UP")
    return f"{rounded:,} {unit.value}"


def format_seconds(seconds: float | Fraction) -> str:
    """Seconds to two significant figures, as the seed writes them: "0.13 s", "1.2 s"."""
    value = float(seconds)
    if value >= 100:
        return f"{value:,.0f} s"
    if value >= 1e-4 or value == 0:
        return f"{value:.2g} s"
    return f"{value:.1e} s"
