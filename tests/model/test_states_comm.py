"""Model states under each recipe and offload (DESIGN 2.1, 2.4) and communication (2.5)."""

from fractions import Fraction

import pytest

from app.model.budget import scheme_memory
from app.model.comm import LINKS, LinkId, step_volume_bytes
from app.model.config import Config
from app.model.recipes import RECIPES, RecipeId
from app.model.states import Offload, Scheme, state_split

PSI = 10**9


@pytest.mark.parametrize(
    ("recipe", "bytes_per_param"),
    [
        (RecipeId.ADAM_MIXED, (2, 2, 12)),  # ZeRO paper §3.1, K = 12
        (RecipeId.ADAM_FP32, (4, 4, 8)),
        (RecipeId.ADAM_BF16, (2, 2, 4)),
        (RecipeId.ADAM8BIT_MIXED, (2, 2, 6)),  # Dettmers et al.: 2 one-byte moments + fp32 master
        (RecipeId.SGD_MIXED, (2, 2, 8)),
    ],
)
def test_recipes_bytes_per_parameter(recipe, bytes_per_param):
    r = RECIPES[recipe]
    assert (r.weight_bytes, r.grad_bytes, r.optimizer_bytes) == bytes_per_param


def test_zero_paper_table_1_formulas_at_n_64():
    """ZeRO paper Table 1: (2+2+K)Ψ, 2Ψ+2Ψ+KΨ/N, 2Ψ+(2+K)Ψ/N, (2+2+K)Ψ/N with K = 12."""
    recipe = RECIPES[RecipeId.ADAM_MIXED]
    at = {s: state_split(s, params=PSI, recipe=recipe).model_states.at(64) for s in Scheme}
    assert at[Scheme.DP] == 16 * PSI
    assert at[Scheme.ZERO1] == 4 * PSI + Fraction(12 * PSI, 64)
    assert at[Scheme.ZERO2] == 2 * PSI + Fraction(14 * PSI, 64)
    assert at[Scheme.ZERO3] == Fraction(16 * PSI, 64)


def test_custom_overrides_mark_the_recipe_custom():
    r = RECIPES[RecipeId.ADAM_MIXED].with_overrides(weight_bytes=1)
    assert (r.weight_bytes, r.grad_bytes, r.optimizer_bytes, r.custom) == (1, 2, 12, True)
    assert RECIPES[RecipeId.ADAM_MIXED].with_overrides() is RECIPES[RecipeId.ADAM_MIXED]


def test_optimizer_offload_moves_k_and_an_fp32_gradient_copy_to_the_host():
    """ZeRO-Offload (Ren et al. 2021): the optimizer step runs on the CPU over each GPU's
    shard, with fp32 gradients. Per GPU at N=8: host = (12 + 4)Ψ/8; GPU keeps w and g."""
    recipe = RECIPES[RecipeId.ADAM_MIXED]
    split = state_split(Scheme.ZERO2, params=PSI, recipe=recipe, offload=Offload.OPTIMIZER)
    assert split.offload is Offload.OPTIMIZER
    assert split.optimizer.at(8) == 0
    assert split.host.at(8) == 16 * PSI / 8
    assert split.model_states.at(8) == 2 * PSI + 2 * PSI / 8


def test_parameter_offload_keeps_one_layers_working_buffers_on_the_gpu():
    """ZeRO-Infinity: with parameters offloaded, ZeRO-3's GPU keeps (w + g)Ψ/L."""
    recipe = RECIPES[RecipeId.ADAM_MIXED]
    split = state_split(Scheme.ZERO3, params=PSI, recipe=recipe, offload=Offload.PARAMS, layers=40)
    assert split.model_states.at(8) == 4 * PSI / 40
    assert split.host.at(8) == (12 + 4 + 2) * PSI / 8


def test_offload_falls_back_where_a_scheme_cannot_do_it():
    """DESIGN 2.4: data parallelism has no offload; only ZeRO-3 offloads parameters."""
    recipe = RECIPES[RecipeId.ADAM_MIXED]
    assert state_split(Scheme.DP, params=PSI, recipe=recipe, offload=Offload.PARAMS).offload is Offload.NONE
    assert state_split(Scheme.ZERO1, params=PSI, recipe=recipe, offload=Offload.PARAMS).offload is Offload.OPTIMIZER


def test_host_memory_per_node_is_per_gpu_times_gpus_on_the_node():
    from app.model.report import Evaluation

    memory = Evaluation(Config(params=PSI, n_gpus=64, offload=Offload.OPTIMIZER, gpus_per_node=8)).memory()
    zero3 = next(s for s in memory["schemes"] if s["id"] == "zero3")
    assert zero3["cpu_bytes"] == 16 * PSI / 64
    assert zero3["cpu_bytes_per_node"] == 8 * 16 * PSI / 64


@pytest.mark.parametrize(("scheme", "elements"), [(Scheme.DP, 2), (Scheme.ZERO1, 2), (Scheme.ZERO2, 2), (Scheme.ZERO3, 3)])
def test_comm_volume_is_2_psi_or_3_psi_at_16_bits(scheme, elements):
    """ZeRO paper §7: 2Ψ for dp, P_os and P_os+g; 3Ψ for P_os+g+p. Bytes = elements × 2."""
    assert step_volume_bytes(scheme, params=PSI, recipe=RECIPES[RecipeId.ADAM_MIXED]) == elements * PSI * 2


def test_fp32_recipe_moves_4_bytes_per_element():
    assert step_volume_bytes(Scheme.ZERO3, params=PSI, recipe=RECIPES[RecipeId.ADAM_FP32]) == 3 * PSI * 4


def test_ring_refinement_multiplies_by_n_minus_1_over_n():
    recipe = RECIPES[RecipeId.ADAM_MIXED]
    assert step_volume_bytes(Scheme.ZERO2, params=PSI, recipe=recipe, n_gpus=8, ring=True) == 4 * PSI * 7 / 8
    assert step_volume_bytes(Scheme.ZERO2, params=PSI, recipe=recipe, n_gpus=1, ring=True) == 0


def test_link_catalogue_per_direction_bandwidths():
    """DESIGN 2.5's links, per direction per GPU, decimal GB/s."""
    gbps = {link.value: LINKS[link].bandwidth_bytes_per_s / 1e9 for link in LinkId}
    assert gbps == {"nvlink3": 300, "nvlink4": 450, "nvlink5": 900, "ib-hdr": 25, "ib-ndr": 50,
                    "ib-xdr": 100, "pcie4": 32, "eth100": 12.5}


def test_counted_total_adds_activations_only_when_asked():
    acts_off = scheme_memory(Config(), Scheme.ZERO3)
    acts_on = scheme_memory(Config(count_activations=True), Scheme.ZERO3)
    assert acts_off.total_at(8) == 60 * 10**9
    assert acts_on.total_at(8) == 60 * 10**9 + acts_on.activations.total
