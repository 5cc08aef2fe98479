"""Units at the edges: GB = 10^9, GiB = 2^30, and the parameter-count notation."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.model.units import (
    GB,
    GiB,
    Unit,
    exact,
    format_bytes,
    format_param_count,
    format_seconds,
    parse_param_count,
)


def test_unit_sizes():
    assert (GB, GiB) == (10**9, 2**30)


@pytest.mark.parametrize("text", ["30e9", "30B", "30b", "30000000000", "3.0E10", "0.03T", "30000M"])
def test_parse_param_count_equivalent_spellings(text):
    assert parse_param_count(text) == 30 * 10**9


@pytest.mark.parametrize(("text", "value"), [("350M", 350 * 10**6), ("1.5T", 15 * 10**11), ("6.738415616B", 6_738_415_616)])
def test_parse_param_count_values(text, value):
    assert parse_param_count(text) == value


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "abc", "", "1e400000", "B"])
def test_parse_param_count_rejects(text):
    with pytest.raises(ValueError):
        parse_param_count(text)


@given(st.integers(0, 10**16))
def test_format_param_count_round_trips(n):
    assert parse_param_count(format_param_count(n)) == n


def test_format_examples():
    assert format_param_count(30 * 10**9) == "30B"
    assert format_param_count(1_500_000_000_000) == "1.5T"
    assert format_bytes(80 * GB, Unit.GiB) == "74.5 GiB"
    assert format_bytes(1120 * GB, Unit.GB, 0) == "1,120 GB"
    assert format_seconds(2 / 15) == "0.13 s"


def test_exact_reads_floats_as_written():
    from fractions import Fraction

    assert exact(0.8) == Fraction(4, 5)
    assert exact(2.0) == 2 and isinstance(exact(2.0), int)
