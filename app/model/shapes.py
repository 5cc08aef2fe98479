"""Transformer shapes: published presets, and a rule that derives a shape from Ψ alone.

Activations depend on the shape (layers L, hidden size h, attention heads a, vocabulary v),
not on the parameter count, so a size from the slider needs a shape. The rule:

    Every preset is an anchor at its exact parameter count. Between two neighbouring anchors,
    L, h and a are interpolated linearly in log Ψ (a straight line on log-log axes) and
    rounded to whole numbers; v is taken from the anchor nearer in log Ψ. Beyond the
    smallest or largest anchor, L, h and a scale as Ψ^(1/3) from that anchor (keeping its
    aspect ratio h/L and head size h/a, so Ψ ≈ 12·L·h² grows as Ψ), and v is the anchor's.

At an anchor's own size the rule returns exactly that preset's shape.

          log h
            │            ● Llama 2 70B
            │        ╱
            │   ●──╱      ● anchors, ╱ interpolation,  ⋯ Ψ^(1/3) extrapolation
            │ ╱
            ●⋯
            └──────────────────── log Ψ
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Shape:
    layers: int
    """L: transformer layers."""
    hidden: int
    """h: hidden size (d_model)."""
    heads: int
    """a: attention heads (query heads)."""
    vocab: int
    """v: vocabulary size (the logits' width)."""


@dataclass(frozen=True)
class Preset:
    id: str
    label: str
    params: int
    """Parameter count Ψ: exact where the publisher gives it, else the paper's figure."""
    shape: Shape
    source: str
    ffn: int | None = None
    """Feed-forward inner size, where the architecture's published count can be checked."""
    kv_heads: int | None = None
    """Key/value heads under grouped-query attention (None: as many as query heads)."""
    tied_embeddings: bool = False


GPT3_VOCAB = 50257
GPT3_SOURCE = "Brown et al. 2020 (GPT-3), Table 2.1"
LLAMA2_VOCAB = 32000
LLAMA2_SOURCE = "Touvron et al. 2023 (Llama 2), Table 1, and the released config.json"
LLAMA31_VOCAB = 128256
LLAMA31_SOURCE = "Llama Team 2024 (The Llama 3 Herd of Models), Table 3, and config.json"

PRESETS: tuple[Preset, ...] = (
    Preset("gpt3-125m", "GPT-3 Small (125M)", 125_000_000, Shape(12, 768, 12, GPT3_VOCAB),
           GPT3_SOURCE, tied_embeddings=True),
    Preset("gpt3-350m", "GPT-3 Medium (350M)", 350_000_000, Shape(24, 1024, 16, GPT3_VOCAB),
           GPT3_SOURCE, tied_embeddings=True),
    Preset("gpt3-760m", "GPT-3 Large (760M)", 760_000_000, Shape(24, 1536, 16, GPT3_VOCAB),
           GPT3_SOURCE, tied_embeddings=True),
    Preset("gpt3-1.3b", "GPT-3 XL (1.3B)", 1_300_000_000, Shape(24, 2048, 24, GPT3_VOCAB),
           GPT3_SOURCE, tied_embeddings=True),
    Preset("gpt3-2.7b", "GPT-3 2.7B", 2_700_000_000, Shape(32, 2560, 32, GPT3_VOCAB),
           GPT3_SOURCE, tied_embeddings=True),
    Preset("gpt3-6.7b", "GPT-3 6.7B", 6_700_000_000, Shape(32, 4096, 32, GPT3_VOCAB),
           GPT3_SOURCE, tied_embeddings=True),
    Preset("llama2-7b", "Llama 2 7B", 6_738_415_616, Shape(32, 4096, 32, LLAMA2_VOCAB),
           LLAMA2_SOURCE, ffn=11008),
    Preset("llama3.1-8b", "Llama 3.1 8B", 8_030_261_248, Shape(32, 4096, 32, LLAMA31_VOCAB),
           LLAMA31_SOURCE, ffn=14336, kv_heads=8),
    Preset("gpt3-13b", "GPT-3 13B", 13_000_000_000, Shape(40, 5140, 40, GPT3_VOCAB),
           GPT3_SOURCE, tied_embeddings=True),
    Preset("llama2-13b", "Llama 2 13B", 13_015_864_320, Shape(40, 5120, 40, LLAMA2_VOCAB),
           LLAMA2_SOURCE, ffn=13824),
    Preset("llama2-70b", "Llama 2 70B", 68_976_648_192, Shape(80, 8192, 64, LLAMA2_VOCAB),
           LLAMA2_SOURCE, ffn=28672, kv_heads=8),
    Preset("llama3.1-70b", "Llama 3.1 70B", 70_553_706_496, Shape(80, 8192, 64, LLAMA31_VOCAB),
           LLAMA31_SOURCE, ffn=28672, kv_heads=8),
    Preset("gpt3-175b", "GPT-3 175B", 175_000_000_000, Shape(96, 12288, 96, GPT3_VOCAB),
           GPT3_SOURCE, tied_embeddings=True),
    Preset("llama3.1-405b", "Llama 3.1 405B", 405_853_388_800,
           Shape(126, 16384, 128, LLAMA31_VOCAB), LLAMA31_SOURCE, ffn=53248, kv_heads=8),
)
PRESETS_BY_ID: dict[str, Preset] = {p.id: p for p in PRESETS}

_ANCHOR_LOG_PARAMS = np.log(np.array([p.params for p in PRESETS], dtype=np.float64))
_ANCHOR_LOG_DIMS = np.log(
    np.array([[p.shape.layers, p.shape.hidden, p.shape.heads] for p in PRESETS], dtype=np.float64)
)
_ANCHOR_VOCAB = np.array([p.shape.vocab for p in PRESETS], dtype=np.int64)
_EXTRAPOLATION_SLOPE = 1.0 / 3.0
assert np.all(np.diff(_ANCHOR_LOG_PARAMS) > 0), "presets must be sorted by distinct size"


def derive_shapes(params: np.ndarray) -> np.ndarray:
    """Shapes for many parameter counts at once, by the rule of this module's docstring.

    Returns an int64 array of shape (len(params), 4): L, h, a, v per row.
    """
    log_params = np.log(np.asarray(params, dtype=np.float64))
    first, last = _ANCHOR_LOG_PARAMS[0], _ANCHOR_LOG_PARAMS[-1]
    inside = np.clip(log_params, first, last)
    log_dims = np.column_stack(
        [np.interp(inside, _ANCHOR_LOG_PARAMS, _ANCHOR_LOG_DIMS[:, j]) for j in range(3)]
    )
    # Outside the anchors, continue from the end anchor along Ψ^(1/3).
    log_dims += _EXTRAPOLATION_SLOPE * (log_params - inside)[:, None]
    dims = np.maximum(np.rint(np.exp(log_dims)), 1).astype(np.int64)

    # Nearest anchor in log Ψ for the vocabulary: the midpoint between neighbours splits them.
    midpoints = (_ANCHOR_LOG_PARAMS[1:] + _ANCHOR_LOG_PARAMS[:-1]) / 2
    vocab = _ANCHOR_VOCAB[np.searchsorted(midpoints, log_params, side="left")]
    return np.column_stack([dims, vocab])


def derive_shape(params: int) -> Shape:
    """The shape the rule gives for one parameter count."""
    layers, hidden, heads, vocab = (int(x) for x in derive_shapes(np.array([params]))[0])
    return Shape(layers, hidden, heads, vocab)



def architecture_params(preset: Preset) -> int | None:
    """Parameter count implied by a Llama-style preset's architecture (embeddings, untied
    output head, attention with grouped KV heads, SwiGLU feed-forward, RMSNorm weights).

    Used to check the published counts against the shapes; None for presets without ``ffn``.
    """
    if preset.ffn is None:
        return None
    s = preset.shape
    head_dim = s.hidden // s.heads
    kv = (preset.kv_heads or s.heads) * head_dim
    attention = 2 * s.hidden * s.hidden + 2 * s.hidden * kv
    feed_forward = 3 * s.hidden * preset.ffn
    norms = 2 * s.hidden
    embeddings = s.vocab * s.hidden * (1 if preset.tied_embeddings else 2)
    return s.layers * (attention + feed_forward + norms) + embeddings + s.hidden
