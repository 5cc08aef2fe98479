"""Activation memory per GPU (Korthikanti et al. 2022, "Reducing Activation Recomputation in
Large Transformer Models", Table 2), with 16-bit activations and 1-byte dropout masks.

s sequence length, b micro-batch, h hidden size, a attention heads, L layers, v vocabulary:

    strategy      stored across the L layers        working set of one layer in backward
    none          L · sbh(34 + 5as/h)               —
    selective     L · 34sbh                         5as²b  (the attention core recomputed)
    full          L · 2sbh   (each layer's input)   sbh(34 + 5as/h)  (one layer recomputed)
    reversible    2sbh  (the boundary state only)   sbh(34 + 5as/h)  (independent of L)

FlashAttention never materialises the s² tensors, so it removes every 5as²b term. The output
layer's fp32 logits, 4·s·b·v, are their own component. Sequence parallelism of degree sp
divides all of it by sp. ZeRO shards none of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from app.model.shapes import Shape
from app.model.units import Exact, exact_div


class Strategy(StrEnum):
    """What is kept of each layer's activations for the backward pass."""

    NONE = "none"
    """Store everything (no recomputation)."""
    SELECTIVE = "selective"
    """Selective recomputation: drop and recompute the attention core's s² tensors."""
    FULL = "full"
    """Full recomputation: checkpoint each layer's input, recompute the layer in backward."""
    REVERSIBLE = "reversible"
    """Reversible layers (RevNet, Reformer): inputs are reconstructed from outputs, so only
    the boundary state is stored."""


STRATEGY_LABELS: dict[Strategy, str] = {
    Strategy.NONE: "store everything",
    Strategy.SELECTIVE: "selective recomputation",
    Strategy.FULL: "full recomputation",
    Strategy.REVERSIBLE: "reversible layers",
}
STRATEGY_HELP: dict[Strategy, str] = {
    Strategy.NONE: "store everything: sbh(34 + 5as/h) per layer",
    Strategy.SELECTIVE: "selective recomputation: 34sbh per layer, the s² tensors recomputed",
    Strategy.FULL: "full recomputation: 2sbh per layer (its input), one layer recomputed at a time",
    Strategy.REVERSIBLE: "reversible layers: a 2sbh boundary state, independent of L",
}


@dataclass(frozen=True)
class Activations:
    """Activation bytes per GPU, by component."""

    layers: Exact
    """Stored across the transformer layers (or the reversible boundary state)."""
    working: Exact
    """The transient working set of the one layer being recomputed in backward."""
    logits: Exact
    """The output layer's fp32 logits, 4·s·b·v."""

    @property
    def total(self) -> Exact:
        return self.layers + self.working + self.logits


NO_ACTIVATIONS = Activations(0, 0, 0)
COMPONENTS = ("layers", "working", "logits")


@dataclass(frozen=True)
class Polynomial:
    """Bytes as ``linear·s + quadratic·s²`` in the sequence length s."""

    linear: Exact
    quadratic: Exact

    def at(self, seq_len: int) -> Exact:
        return self.linear * seq_len + self.quadratic * seq_len * seq_len

    def over(self, seq_lens: np.ndarray) -> np.ndarray:
        return float(self.linear) * seq_lens + float(self.quadratic) * seq_lens * seq_lens


def activation_polynomials(
    *,
    micro_batch: int,
    shape: Shape,
    strategy: Strategy,
    flash_attention: bool = False,
    seq_parallel: int = 1,
) -> dict[str, Polynomial]:
    """Each component of the module docstring's table as an exact polynomial in s."""
    coefficients = _coefficients(
        micro_batch, shape.hidden, shape.heads, shape.layers, shape.vocab, strategy, flash_attention
    )
    return {
        name: Polynomial(exact_div(linear, seq_parallel), exact_div(quadratic, seq_parallel))
        for name, (linear, quadratic) in coefficients.items()
    }


def activation_coefficient_arrays(
    *,
    micro_batch: int,
    hidden: np.ndarray,
    heads: np.ndarray,
    layers: np.ndarray,
    vocab: np.ndarray,
    strategy: Strategy,
    flash_attention: bool = False,
    seq_parallel: int = 1,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The same coefficients for many shapes at once (float64, already divided by sp)."""
    coefficients = _coefficients(
        micro_batch,
        hidden.astype(np.float64),
        heads.astype(np.float64),
        layers.astype(np.float64),
        vocab.astype(np.float64),
        strategy,
        flash_attention,
    )
    return {
        name: (linear / seq_parallel, quadratic / seq_parallel)
        for name, (linear, quadratic) in coefficients.items()
    }


def _coefficients(b, h, a, L, v, strategy: Strategy, flash_attention: bool):
    """(per-token, per-token²) bytes of each component, before sequence parallelism.

    Written once for both ints (exact) and numpy arrays (vectorised): only + and ×.
    """
    linear = 34 * b * h  # one layer's activations, per token
    quadratic = 0 * a if flash_attention else 5 * a * b  # one layer's s² tensors, per token²
    nothing = 0 * h
    if strategy is Strategy.NONE:
        layers, working = (L * linear, L * quadratic), (nothing, nothing)
    elif strategy is Strategy.SELECTIVE:
        layers, working = (L * linear, nothing), (nothing, quadratic)
    elif strategy is Strategy.FULL:
        layers, working = (L * 2 * b * h, nothing), (linear, quadratic)
    else:
        layers, working = (2 * b * h + nothing * L, nothing), (linear, quadratic)
    logits = (4 * b * v, 0 * v)
    return {"layers": layers, "working": working, "logits": logits}


def activation_bytes(
    *,
    seq_len: int,
    micro_batch: int,
    shape: Shape,
    strategy: Strategy,
    flash_attention: bool = False,
    seq_parallel: int = 1,
) -> Activations:
    """Activation bytes per GPU at one sequence length, exactly."""
    polys = activation_polynomials(
        micro_batch=micro_batch,
        shape=shape,
        strategy=strategy,
        flash_attention=flash_attention,
        seq_parallel=seq_parallel,
    )
    return Activations(*(polys[name].at(seq_len) for name in COMPONENTS))
