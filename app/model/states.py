"""Model states per GPU under data parallelism and the three ZeRO stages, with offload.

Rajbhandari et al. 2019 (ZeRO), section 5 and Table 1, in the paper's notation: Ψ parameters,
N_d = N data-parallel GPUs, and a recipe of w, g, k bytes per parameter (the paper's 2, 2, K):

                 weights     gradients   optimizer    per GPU
    dp         [ w·Ψ      ][ g·Ψ      ][ k·Ψ      ]   (w + g + k)Ψ
    zero1      [ w·Ψ      ][ g·Ψ      ][k·Ψ/N]        (w + g)Ψ + kΨ/N
    zero2      [ w·Ψ      ][g·Ψ/N][k·Ψ/N]             wΨ + (g + k)Ψ/N
    zero3      [w·Ψ/N][g·Ψ/N][k·Ψ/N]                  (w + g + k)Ψ/N

Every component is ``fixed + sharded / N``: the fixed part is the replicated floor that no
number of GPUs removes; the sharded part falls as 1/N. All arithmetic is exact: ints, and
Fractions only where a division does not come out even.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from app.model.recipes import Recipe
from app.model.units import Exact, exact_div


class Scheme(StrEnum):
    """A data-parallel memory scheme."""

    DP = "dp"
    """Plain data parallelism: every GPU holds weights, gradients and optimizer states."""
    ZERO1 = "zero1"
    """ZeRO stage 1 (P_os): optimizer states sharded across the N GPUs."""
    ZERO2 = "zero2"
    """ZeRO stage 2 (P_os+g): optimizer states and gradients sharded."""
    ZERO3 = "zero3"
    """ZeRO stage 3 (P_os+g+p): optimizer states, gradients and parameters sharded."""


SCHEMES: tuple[Scheme, ...] = tuple(Scheme)
SCHEME_SHARDS: dict[Scheme, str] = {
    Scheme.DP: "nothing: weights, gradients and optimizer states on every GPU",
    Scheme.ZERO1: "optimizer states",
    Scheme.ZERO2: "optimizer states and gradients",
    Scheme.ZERO3: "optimizer states, gradients and parameters",
}
SCHEME_LABELS: dict[Scheme, str] = {
    Scheme.DP: "data parallelism",
    Scheme.ZERO1: "ZeRO-1",
    Scheme.ZERO2: "ZeRO-2",
    Scheme.ZERO3: "ZeRO-3",
}


class Offload(StrEnum):
    """What moves from GPU memory to host (CPU) memory."""

    NONE = "none"
    """Nothing is offloaded."""
    OPTIMIZER = "optimizer"
    """ZeRO-Offload (Ren et al. 2021): optimizer states and the optimizer step's gradient copy
    live in host memory; applies to ZeRO-1, 2 and 3."""
    PARAMS = "params"
    """ZeRO-Infinity (Rajbhandari et al. 2021): parameters too; only ZeRO-3 can do this, and
    the GPU keeps just the working weights and gradients of the layer being computed."""


@dataclass(frozen=True)
class Split:
    """Bytes per GPU as ``fixed + sharded / N``."""

    fixed: Exact = 0
    sharded: Exact = 0

    def at(self, n_gpus: int) -> Exact:
        return self.fixed + exact_div(self.sharded, n_gpus)

    def __add__(self, other: Split) -> Split:
        return Split(self.fixed + other.fixed, self.sharded + other.sharded)


ZERO = Split()


@dataclass(frozen=True)
class StateSplit:
    """One scheme's model states on the GPU and in host memory."""

    scheme: Scheme
    weights: Split
    gradients: Split
    optimizer: Split
    host: Split
    """Host (CPU) bytes attributable to each GPU; zero without offload."""
    offload: Offload
    """The offload actually applied to this scheme (may be less than asked for)."""
    model_states: Split = Split()
    """weights + gradients + optimizer (filled in on construction)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "model_states", self.weights + self.gradients + self.optimizer)


def applied_offload(scheme: Scheme, requested: Offload) -> Offload:
    """Offload a scheme can actually do: none for dp; parameter offload only under ZeRO-3,
    so ZeRO-1 and ZeRO-2 fall back to optimizer offload."""
    if scheme is Scheme.DP:
        return Offload.NONE
    if requested is Offload.PARAMS and scheme is not Scheme.ZERO3:
        return Offload.OPTIMIZER
    return requested


def state_split(
    scheme: Scheme,
    *,
    params: int,
    recipe: Recipe,
    offload: Offload = Offload.NONE,
    layers: int = 1,
) -> StateSplit:
    """Model-state bytes per GPU for ``scheme`` (ZeRO paper, Table 1), exactly.

    ``layers`` matters only for parameter offload, where the GPU keeps one layer's working
    weights and gradients, (w + g)·Ψ/L.
    """
    psi = params
    w, g, k = (psi * recipe.weight_bytes, psi * recipe.grad_bytes, psi * recipe.optimizer_bytes)
    weights = Split(fixed=w) if scheme in (Scheme.DP, Scheme.ZERO1, Scheme.ZERO2) else Split(sharded=w)
    gradients = Split(fixed=g) if scheme in (Scheme.DP, Scheme.ZERO1) else Split(sharded=g)
    optimizer = Split(fixed=k) if scheme is Scheme.DP else Split(sharded=k)

    applied = applied_offload(scheme, offload)
    host = ZERO
    if applied is not Offload.NONE:
        # The optimizer step runs on the host over this GPU's shard: its states and an
        # fp32 (or recipe-precision) copy of its gradient shard.
        host = Split(sharded=k + psi * recipe.host_grad_bytes)
        optimizer = ZERO
    if applied is Offload.PARAMS:
        host = host + Split(sharded=w)
        weights = Split(fixed=exact_div(w, layers))
        gradients = Split(fixed=exact_div(g, layers))
    return StateSplit(scheme, weights, gradients, optimizer, host, applied)

