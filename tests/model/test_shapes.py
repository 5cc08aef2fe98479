"""Presets and the shape-derivation rule (DESIGN 2.3)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.model.shapes import PRESETS, PRESETS_BY_ID, Shape, architecture_params, derive_shape, derive_shapes

# Brown et al. 2020 (GPT-3), Table 2.1: n_params, n_layers, d_model, n_heads. The 13B row's
# d_model is printed as 5140 (40 heads × 128 = 5120); the preset keeps the paper's figure.
GPT3_TABLE_2_1 = {
    "gpt3-125m": (125e6, 12, 768, 12),
    "gpt3-350m": (350e6, 24, 1024, 16),
    "gpt3-760m": (760e6, 24, 1536, 16),
    "gpt3-1.3b": (1.3e9, 24, 2048, 24),
    "gpt3-2.7b": (2.7e9, 32, 2560, 32),
    "gpt3-6.7b": (6.7e9, 32, 4096, 32),
    "gpt3-13b": (13.0e9, 40, 5140, 40),
    "gpt3-175b": (175.0e9, 96, 12288, 96),
}


@pytest.mark.parametrize("preset_id", list(GPT3_TABLE_2_1))
def test_gpt3_presets_match_table_2_1(preset_id):
    """GPT-3 paper, Table 2.1, with the GPT-2 vocabulary of 50,257 tokens."""
    params, layers, hidden, heads = GPT3_TABLE_2_1[preset_id]
    preset = PRESETS_BY_ID[preset_id]
    assert (preset.params, preset.shape) == (params, Shape(layers, hidden, heads, 50257))


# Exact counts as published with the checkpoints (Hugging Face model cards / safetensors).
LLAMA_COUNTS = {
    "llama2-7b": 6_738_415_616,
    "llama2-13b": 13_015_864_320,
    "llama2-70b": 68_976_648_192,
    "llama3.1-8b": 8_030_261_248,
    "llama3.1-70b": 70_553_706_496,
    "llama3.1-405b": 405_853_388_800,
}


@pytest.mark.parametrize("preset_id", list(LLAMA_COUNTS))
def test_llama_presets_shapes_reproduce_the_published_parameter_counts(preset_id):
    """Llama 2 (Touvron et al. 2023) and Llama 3.1 (Llama Team 2024) config.json shapes:
    embeddings + untied head + GQA attention + SwiGLU + RMSNorm add up to the published count."""
    preset = PRESETS_BY_ID[preset_id]
    assert preset.params == LLAMA_COUNTS[preset_id]
    assert architecture_params(preset) == LLAMA_COUNTS[preset_id]


def test_llama_vocabularies():
    """Llama 2: 32,000 tokens; Llama 3.1: 128,256 (not BERT's 30,522)."""
    assert {PRESETS_BY_ID[p].shape.vocab for p in ("llama2-7b", "llama2-13b", "llama2-70b")} == {32000}
    assert {PRESETS_BY_ID[p].shape.vocab for p in ("llama3.1-8b", "llama3.1-70b", "llama3.1-405b")} == {128256}


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p.id)
def test_derivation_rule_returns_each_presets_shape_at_its_size(preset):
    """DESIGN 2.3: the rule returns the preset's shape when Ψ is a preset's size."""
    assert derive_shape(preset.params) == preset.shape


def test_derivation_between_llama2_13b_and_70b_for_30b():
    """30B lies between Llama 2 13B and 70B: L, h, a interpolate on log-log axes."""
    shape = derive_shape(30 * 10**9)
    assert 40 < shape.layers < 80 and 5120 < shape.hidden < 8192 and 40 < shape.heads < 64
    assert shape.vocab == 32000


def test_derivation_beyond_the_anchors_scales_as_cube_root():
    """Beyond 405B, L, h and a grow as Ψ^(1/3): 8× the parameters doubles each."""
    big = derive_shape(8 * PRESETS_BY_ID["llama3.1-405b"].params)
    assert (big.layers, big.hidden, big.heads) == (252, 32768, 256)
    small = derive_shape(PRESETS_BY_ID["gpt3-125m"].params // 8)
    assert (small.layers, small.hidden, small.heads) == (6, 384, 6)


@given(st.integers(10**6, 10**15 - 1))
def test_vectorised_and_scalar_derivations_agree(params):
    row = derive_shapes(np.array([params]))[0]
    shape = derive_shape(params)
    assert tuple(int(x) for x in row) == (shape.layers, shape.hidden, shape.heads, shape.vocab)
    assert min(row) >= 1
