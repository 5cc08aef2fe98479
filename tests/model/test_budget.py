"""Fits, min_gpus and max_params (DESIGN 2.1): exact, and properties that must hold for any
configuration (issue 2)."""

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from app.model.activations import Strategy
from app.model.budget import fit_boundary, max_params, min_gpus, scheme_memory
from app.model.cards import CARDS, Basis, CardId
from app.model.config import Config, resolve_shape
from app.model.recipes import RECIPES, RecipeId
from app.model.states import SCHEMES, Offload, Scheme
from app.model.units import GB


@st.composite
def configs(draw):
    params = draw(st.integers(10**6, 10**13))
    return Config(
        params=params,
        n_gpus=draw(st.integers(1, 16384)),
        seq_len=draw(st.integers(1, 2**20)),
        micro_batch=draw(st.integers(1, 16)),
        card=CARDS[draw(st.sampled_from(list(CardId)))],
        basis=draw(st.sampled_from(list(Basis))),
        usable_fraction=Fraction(draw(st.integers(10, 100)), 100),
        recipe=RECIPES[draw(st.sampled_from(list(RecipeId)))],
        strategy=draw(st.sampled_from(list(Strategy))),
        flash_attention=draw(st.booleans()),
        count_activations=draw(st.booleans()),
        seq_parallel=draw(st.integers(1, 64)),
        offload=draw(st.sampled_from(list(Offload))),
        shape=resolve_shape(params),
    )


@settings(max_examples=300)
@given(config=configs(), n=st.integers(1, 16383))
def test_per_gpu_memory_never_rises_with_n(config, n):
    for scheme in SCHEMES:
        memory = scheme_memory(config, scheme)
        assert memory.total_at(n + 1) <= memory.total_at(n)


@settings(max_examples=300)
@given(config=configs(), n=st.integers(1, 16384))
def test_zero3_le_zero2_le_zero1_le_dp_without_offload(config, n):
    from dataclasses import replace

    config = replace(config, offload=Offload.NONE)
    totals = [scheme_memory(config, s).total_at(n) for s in (Scheme.ZERO3, Scheme.ZERO2, Scheme.ZERO1, Scheme.DP)]
    assert totals == sorted(totals)


@settings(max_examples=300)
@given(config=configs())
def test_scheme_fits_at_min_gpus_and_not_one_below(config):
    capacity = config.capacity_bytes
    for scheme in SCHEMES:
        counted = scheme_memory(config, scheme).counted
        n = min_gpus(counted, capacity)
        if n is None:
            assert counted.fixed >= capacity and (counted.sharded > 0 or counted.fixed > capacity)
            continue
        assert counted.at(n) <= capacity
        if n > 1:
            assert counted.at(n - 1) > capacity


@settings(max_examples=300)
@given(config=configs())
def test_max_params_fits_and_1_001_times_it_does_not(config):
    """max_params holds the current shape's activations fixed (so does this check)."""
    from dataclasses import replace

    capacity = config.capacity_bytes
    for scheme in SCHEMES:
        best = max_params(config, scheme, config.n_gpus)
        if best is None:
            assert scheme_memory(replace(config, params=1), scheme).total_at(config.n_gpus) > capacity
            continue
        at = scheme_memory(replace(config, params=best), scheme).total_at(config.n_gpus)
        over = scheme_memory(replace(config, params=best + 1), scheme).total_at(config.n_gpus)
        beyond = scheme_memory(replace(config, params=int(best * 1.001) + 1), scheme).total_at(config.n_gpus)
        assert at <= capacity < over <= beyond


def test_filling_the_card_exactly_fits():
    """DESIGN 2.1: a configuration that fills the card exactly fits. 5B parameters at 16
    bytes is 80×10^9 bytes on one GPU: exactly the 80 GB card."""
    config = Config(params=5 * 10**9)
    memory = scheme_memory(config, Scheme.DP)
    assert memory.total_at(1) == config.capacity_bytes
    assert min_gpus(memory.counted, config.capacity_bytes) == 1
    assert max_params(config, Scheme.DP, 1) == 5 * 10**9


def test_usable_fraction_is_exact_not_binary():
    """0.8 of 80 GB is exactly 64×10^9 bytes: 4B parameters at 16 bytes fit exactly."""
    config = Config(params=4 * 10**9, usable_fraction=Fraction(4, 5))
    assert config.capacity_bytes == 64 * GB
    assert scheme_memory(config, Scheme.DP).total_at(1) == config.capacity_bytes
    assert max_params(config, Scheme.DP, 1) == 4 * 10**9


def test_driver_basis_a100_80gb_is_81920_mib():
    """DESIGN 2.2: an A100 80GB reports 81920 MiB = 80.0 GiB."""
    config = Config(card=CARDS[CardId.A100_80], basis=Basis.DRIVER)
    assert config.capacity_bytes == 81920 * 2**20 == 80 * 2**30


def test_generic_card_has_no_driver_figure_and_keeps_the_marketed_one():
    config = Config(card=CARDS[CardId.GENERIC_80], basis=Basis.DRIVER)
    assert config.capacity_bytes == 80 * GB
    assert config.card.basis_used(Basis.DRIVER) is Basis.MARKETED


def test_fit_boundary_is_the_real_n_star():
    """Seed 1's ZeRO-2: 60 GB + 420 GB/N = 80 GB at N* = 21 exactly."""
    config = Config()
    assert fit_boundary(scheme_memory(config, Scheme.ZERO2).counted, config.capacity_bytes) == 21
    assert fit_boundary(scheme_memory(config, Scheme.ZERO3).counted, config.capacity_bytes) == 6
    assert fit_boundary(scheme_memory(config, Scheme.DP).counted, config.capacity_bytes) is None


def test_counting_activations_moves_min_gpus():
    """With acts=1 the activations join the replicated floor: ZeRO-3 at 30B with 4k tokens,
    full recomputation, needs more GPUs than states alone."""
    states_only = Config(strategy=Strategy.FULL)
    with_acts = Config(strategy=Strategy.FULL, count_activations=True)
    cap = states_only.capacity_bytes
    a = min_gpus(scheme_memory(states_only, Scheme.ZERO3).counted, cap)
    b = min_gpus(scheme_memory(with_acts, Scheme.ZERO3).counted, cap)
    assert a == 6 and b > a
