"""The two seed texts, number for number.

Seed 1: "The memory ladder" (30B parameters, mixed-precision Adam at 16 bytes per parameter,
figures in GiB, a card of 80×10^9 bytes = 74.5 GiB).
Seed 2: "ZeRO Optimization › Memory Savings Across Stages" (figures in GB, A100 80 GB).
"""

from fractions import Fraction

import pytest

from app.model.budget import floor_fill_params, min_gpus, replicated_bytes_per_param, scheme_memory
from app.model.cards import CARDS, CardId
from app.model.comm import LINKS, LinkId, step_volume_bytes, transfer_seconds
from app.model.config import Config
from app.model.recipes import RECIPES, RecipeId
from app.model.states import Scheme
from app.model.units import GB, Unit, format_bytes, format_seconds

SEED1_LADDER = {
    Scheme.DP: ("447.0 GiB", "447.0 GiB", "447.0 GiB", "447.0 GiB"),
    Scheme.ZERO1: ("153.7 GiB", "132.7 GiB", "122.2 GiB", "117.0 GiB"),
    Scheme.ZERO2: ("104.8 GiB", "80.3 GiB", "68.1 GiB", "62.0 GiB"),
    Scheme.ZERO3: ("55.9 GiB", "27.9 GiB", "14.0 GiB", "7.0 GiB"),
}


def seed1() -> Config:
    return Config(params=30 * 10**9)


@pytest.mark.parametrize("scheme", list(SEED1_LADDER))
def test_seed1_memory_ladder_table(scheme):
    """Seed 1, "The memory ladder" table: per-GPU GiB at 8/16/32/64 GPUs."""
    memory = scheme_memory(seed1(), scheme)
    shown = tuple(format_bytes(memory.total_at(n), Unit.GiB) for n in (8, 16, 32, 64))
    assert shown == SEED1_LADDER[scheme]


def test_seed1_card_holds_74_5_gib():
    """Seed 1: "A card holds 74.5 GiB." (80 GB marketed, decimal bytes)."""
    assert seed1().capacity_bytes == 80 * GB
    assert format_bytes(seed1().capacity_bytes, Unit.GiB) == "74.5 GiB"


def test_seed1_zero1_floor_is_111_8_gib():
    """Seed 1: "Four bytes across 30 billion weights is 111.8 GiB" — ZeRO-1's floor."""
    config = seed1()
    assert replicated_bytes_per_param(config, Scheme.ZERO1) == 4
    floor = scheme_memory(config, Scheme.ZERO1).floor_bytes
    assert floor == 120 * GB
    assert format_bytes(floor, Unit.GiB) == "111.8 GiB"


def test_seed1_dp_and_zero1_never_fit_zero2_from_32_zero3_from_8():
    """Seed 1: "Data parallelism and ZeRO-1 never fit ... ZeRO-2 fits from 32 GPUs upward.
    ZeRO-3 fits from 8." On the 8-16-32-64 ladder; exactly, 21 and 6."""
    config = seed1()
    capacity = config.capacity_bytes
    boundaries = {s: min_gpus(scheme_memory(config, s).counted, capacity) for s in Scheme}
    assert boundaries == {Scheme.DP: None, Scheme.ZERO1: None, Scheme.ZERO2: 21, Scheme.ZERO3: 6}
    ladder_fits = {
        s: [scheme_memory(config, s).total_at(n) <= capacity for n in (8, 16, 32, 64)] for s in Scheme
    }
    assert ladder_fits[Scheme.ZERO2] == [False, False, True, True]
    assert ladder_fits[Scheme.ZERO3] == [True, True, True, True]


def test_seed1_four_bytes_fill_the_card_at_20_billion():
    """Seed 1: "Four bytes per weight fills a 74.5 GiB card exactly at 20 billion
    parameters, so a 20B model sits on the boundary" — and fits, since it fills exactly."""
    config = seed1()
    assert floor_fill_params(config, Scheme.ZERO1) == 20 * 10**9
    at_20b = scheme_memory(Config(params=20 * 10**9), Scheme.ZERO1)
    assert at_20b.floor_bytes == config.capacity_bytes
    assert min_gpus(at_20b.counted, config.capacity_bytes) is None  # the k/N part never reaches 0


def test_seed1_zero3_extra_psi_is_60_gb_0_13_s_nvlink_1_2_s_infiniband():
    """Seed 1: "ZeRO-2 ... holds communication at 2P. ZeRO-3 ... pays 3P ... On NVLink that
    difference is 0.13 seconds; over InfiniBand it is 1.2." (DESIGN 2.5: 60 GB, NVLink 4 at
    450 GB/s, InfiniBand NDR at 50 GB/s)."""
    recipe = RECIPES[RecipeId.ADAM_MIXED]
    psi = 30 * 10**9
    v2 = step_volume_bytes(Scheme.ZERO2, params=psi, recipe=recipe)
    v3 = step_volume_bytes(Scheme.ZERO3, params=psi, recipe=recipe)
    assert (v2, v3) == (120 * GB, 180 * GB)
    extra = v3 - v2
    assert extra == 60 * GB
    assert transfer_seconds(extra, LINKS[LinkId.NVLINK4]) == Fraction(2, 15)
    assert format_seconds(transfer_seconds(extra, LINKS[LinkId.NVLINK4])) == "0.13 s"
    assert format_seconds(transfer_seconds(extra, LINKS[LinkId.IB_NDR])) == "1.2 s"


def test_seed1_purple_block_falls_from_447_gib_to_under_60():
    """Seed 1, the pile: "the purple block falls from 447 GiB to under 60" (8 GPUs)."""
    config = seed1()
    dp = scheme_memory(config, Scheme.DP).states.model_states.at(8)
    zero3 = scheme_memory(config, Scheme.ZERO3).states.model_states.at(8)
    assert format_bytes(dp, Unit.GiB) == "447.0 GiB"
    assert zero3 < 60 * 2**30


SEED2 = [
    # (params, gpus, scheme, GB as printed)
    (7 * 10**9, 1, Scheme.DP, "112 GB"),
    (7 * 10**9, 2, Scheme.ZERO1, "70 GB"),
    (7 * 10**9, 2, Scheme.ZERO2, "63 GB"),
    (7 * 10**9, 2, Scheme.ZERO3, "56 GB"),
    (70 * 10**9, 64, Scheme.ZERO3, "17.5 GB"),
    (70 * 10**9, 64, Scheme.DP, "1,120 GB"),
    (70 * 10**9, 64, Scheme.ZERO1, "293 GB"),
]


@pytest.mark.parametrize(("params", "gpus", "scheme", "printed"), SEED2)
def test_seed2_memory_savings_across_stages_in_gb(params, gpus, scheme, printed):
    """Seed 2: 7B → 112 GB baseline, 70/63/56 GB for ZeRO-1/2/3 at 2 GPUs; 70B at 64 GPUs →
    17.5 GB (Stage 3), 1.12 TB (baseline), "about 293 GB" (Stage 1)."""
    total = scheme_memory(Config(params=params), scheme).total_at(gpus)
    digits = 1 if "." in printed else 0
    assert format_bytes(total, Unit.GB, digits) == printed


def test_seed2_all_zero_stages_fit_an_a100_80gb_at_2_gpus_baseline_never():
    """Seed 2: "All three ZeRO stages cross below the feasibility line at 2 GPUs ... The
    baseline never dips below 112 GB"."""
    config = Config(params=7 * 10**9, card=CARDS[CardId.A100_80])
    capacity = config.capacity_bytes
    assert capacity == 80 * GB
    bounds = {s: min_gpus(scheme_memory(config, s).counted, capacity) for s in Scheme}
    assert bounds == {Scheme.DP: None, Scheme.ZERO1: 2, Scheme.ZERO2: 2, Scheme.ZERO3: 2}


def test_seed2_stage3_keeps_every_model_below_20_gb_at_64_gpus():
    """Seed 2: "Stage 3 keeps every model shown below 20 GB per GPU" (1B to 70B, 64 GPUs)."""
    for billions in (1, 7, 13, 30, 70):
        total = scheme_memory(Config(params=billions * 10**9), Scheme.ZERO3).total_at(64)
        assert total < 20 * GB


@pytest.mark.parametrize(
    ("scheme", "printed"),
    [(Scheme.DP, "120.0 GB"), (Scheme.ZERO1, "31.4 GB"), (Scheme.ZERO2, "16.6 GB"), (Scheme.ZERO3, "1.9 GB")],
)
def test_zero_paper_figure_1_7_5b_at_64_gpus(scheme, printed):
    """ZeRO paper (Rajbhandari et al. 2019), Figure 1: Ψ = 7.5B, N_d = 64, K = 12 →
    120 GB, 31.4 GB, 16.6 GB, 1.9 GB."""
    total = scheme_memory(Config(params=7_500_000_000), scheme).total_at(64)
    assert format_bytes(total, Unit.GB) == printed
