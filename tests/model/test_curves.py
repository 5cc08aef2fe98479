"""Curves: fixed grids, exact boundaries, and agreement with the exact scalar model."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from app.model.activations import Strategy
from app.model.config import Config, resolve_shape
from app.model.curves import SEQ_LENS, WALL_GPUS
from app.model.report import Evaluation
from app.model.states import Scheme


def wall(config=None):
    return {line["id"]: line for line in Evaluation(config or Config()).wall()["schemes"]}


def test_wall_grid_spans_1_to_16384_with_every_power_of_two():
    assert WALL_GPUS[0] == 1 and WALL_GPUS[-1] == 16384
    assert set(2.0 ** np.arange(15)) <= set(WALL_GPUS)
    assert len(WALL_GPUS) == 225


def test_seq_grid_spans_128_to_1m_tokens():
    assert SEQ_LENS[0] == 128 and SEQ_LENS[-1] == 2**20


def test_wall_switches_from_dashed_to_solid_exactly_at_n_star():
    """Seed 1's ZeRO-2 meets the 80 GB card at N* = 21, between grid points: the not-fit
    segment ends there at exactly the card's bytes, and the fit segment starts there."""
    zero2 = wall()["zero2"]
    dashed, solid = zero2["segments"]
    assert (dashed["fits"], solid["fits"]) == (False, True)
    assert dashed["gpus"][-1] == solid["gpus"][0] == 21.0
    assert dashed["bytes"][-1] == solid["bytes"][0] == 80e9
    assert 21.0 not in WALL_GPUS


def test_wall_schemes_that_never_fit_are_one_dashed_segment():
    lines = wall()
    for scheme in ("dp", "zero1"):
        assert [s["fits"] for s in lines[scheme]["segments"]] == [False]
        assert lines[scheme]["fit_boundary_gpus"] is None


def test_wall_scheme_that_fits_everywhere_is_one_solid_segment():
    lines = wall(Config(params=10**9))
    assert [s["fits"] for s in lines["dp"]["segments"]] == [True]


@settings(max_examples=100)
@given(params=st.integers(10**8, 2 * 10**12), n=st.integers(1, 16384), acts=st.booleans(),
       strategy=st.sampled_from(list(Strategy)))
def test_wall_points_agree_with_the_exact_model_and_each_point_is_on_the_right_side(params, n, acts, strategy):
    config = Config(params=params, n_gpus=n, count_activations=acts, strategy=strategy,
                    shape=resolve_shape(params))
    evaluation = Evaluation(config)
    capacity = float(config.capacity_bytes)
    for line in evaluation.wall()["schemes"]:
        memory = evaluation.memories[Scheme(line["id"])]
        for segment in line["segments"]:
            exact = np.array([float(memory.counted.fixed + memory.counted.sharded / g) for g in segment["gpus"]])
            # Curves are given in whole bytes.
            np.testing.assert_allclose(segment["bytes"], exact, rtol=1e-12, atol=0.5)
            if segment["fits"]:
                assert np.all(segment["bytes"] <= capacity * (1 + 1e-12) + 0.5)
            else:
                assert np.all(segment["bytes"] >= capacity * (1 - 1e-12) - 0.5)


def test_sizes_view_reproduces_seed2_at_64_gpus():
    """Seed 2's bar chart at 64 GPUs: 70B → 1120 GB baseline, 17.5 GB ZeRO-3."""
    sizes = Evaluation(Config(n_gpus=64)).sizes()
    assert sizes["params"] == [10**9, 7 * 10**9, 13 * 10**9, 30 * 10**9, 70 * 10**9]
    rows = {row["id"]: row for row in sizes["schemes"]}
    assert rows["dp"]["bytes"][-1] == 1120e9
    assert rows["zero3"]["bytes"][-1] == 17.5e9
    assert rows["dp"]["fits"] == [True, False, False, False, False]


def test_sizes_view_adds_the_selected_size():
    sizes = Evaluation(Config(params=20 * 10**9, n_gpus=64)).sizes()
    assert 20 * 10**9 in sizes["params"] and len(sizes["params"]) == 6


def test_seq_view_puts_the_selected_length_on_the_grid_and_agrees_with_exact_bytes():
    config = Config(seq_len=5000)
    evaluation = Evaluation(config)
    seq = evaluation.seq()
    index = list(seq["seq_lens"]).index(5000)
    exact = evaluation.memories[next(iter(evaluation.memories))].activations.total
    assert seq["activations_total"][index] == float(exact)


def test_pile_ceilings_are_three_generations_and_count_activations():
    pile = Evaluation(Config()).pile()
    assert [c["id"] for c in pile["ceilings"]] == ["a100-40", "h100-80", "b200-180"]
    zero3 = next(s for s in pile["schemes"] if s["id"] == "zero3")
    assert zero3["total"] == zero3["model_states"] + zero3["activations"]
