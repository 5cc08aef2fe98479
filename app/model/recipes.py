"""Precision recipes: bytes per parameter for working weights, gradients and optimizer states.

Notation of the ZeRO paper (Rajbhandari et al. 2019, section 3.1): Ψ parameters, and K bytes
of optimizer state per parameter. The paper's mixed-precision Adam keeps 2Ψ of fp16 weights,
2Ψ of fp16 gradients and KΨ = 12Ψ of fp32 master weights, momentum and variance: 16Ψ in all.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from app.model.units import Exact


class RecipeId(StrEnum):
    """A named precision recipe."""

    ADAM_MIXED = "adam-mixed"
    """Mixed-precision Adam: fp16/bf16 weights and gradients, fp32 master + two moments."""
    ADAM_FP32 = "adam-fp32"
    """Adam entirely in fp32: weights and gradients 4 bytes, two fp32 moments."""
    ADAM_BF16 = "adam-bf16"
    """Pure bf16 Adam without fp32 master weights: two bf16 moments."""
    ADAM8BIT_MIXED = "adam8bit-mixed"
    """Mixed precision with 8-bit Adam: fp32 master (4 B) and two 1-byte moments."""
    SGD_MIXED = "sgd-mixed"
    """Mixed-precision SGD with momentum: fp32 master and one fp32 momentum."""


@dataclass(frozen=True)
class Recipe:
    id: RecipeId
    label: str
    weight_bytes: Exact
    """w: bytes per parameter of the working (compute) weights."""
    grad_bytes: Exact
    """g: bytes per parameter of the gradients as reduced across GPUs."""
    optimizer_bytes: Exact
    """k: bytes per parameter of optimizer states, the ZeRO paper's K."""
    fp32_master: bool
    """Whether the optimizer keeps fp32 master weights (so an offloaded step needs fp32
    gradients on the host)."""
    source: str
    custom: bool = False
    """True when any of w, g, k was overridden."""

    @property
    def total_bytes(self) -> Exact:
        return self.weight_bytes + self.grad_bytes + self.optimizer_bytes

    @property
    def host_grad_bytes(self) -> Exact:
        """Bytes per parameter of the gradient copy an offloaded optimizer step reads on the
        host: fp32 when the recipe keeps fp32 master weights, else the gradients as they are."""
        return 4 if self.fp32_master else self.grad_bytes

    def with_overrides(
        self,
        *,
        weight_bytes: Exact | None = None,
        grad_bytes: Exact | None = None,
        optimizer_bytes: Exact | None = None,
    ) -> Recipe:
        if weight_bytes is None and grad_bytes is None and optimizer_bytes is None:
            return self
        return replace(
            self,
            weight_bytes=self.weight_bytes if weight_bytes is None else weight_bytes,
            grad_bytes=self.grad_bytes if grad_bytes is None else grad_bytes,
            optimizer_bytes=self.optimizer_bytes if optimizer_bytes is None else optimizer_bytes,
            custom=True,
            label=f"custom (from {self.label})",
        )


RECIPES: dict[RecipeId, Recipe] = {
    r.id: r
    for r in (
        Recipe(
            RecipeId.ADAM_MIXED,
            "mixed-precision Adam",
            2,
            2,
            12,
            fp32_master=True,
            source="Rajbhandari et al. 2019 (ZeRO), section 3.1: 2Ψ + 2Ψ + KΨ with K = 12",
        ),
        Recipe(
            RecipeId.ADAM_FP32,
            "fp32 Adam",
            4,
            4,
            8,
            fp32_master=False,
            source="Kingma & Ba 2015 (Adam): fp32 weights and gradients, two fp32 moments",
        ),
        Recipe(
            RecipeId.ADAM_BF16,
            "bf16 Adam, no master weights",
            2,
            2,
            4,
            fp32_master=False,
            source="Pure bf16 training (e.g. Zamirai et al. 2020, 'Revisiting BFloat16 "
            "Training'): bf16 weights, gradients and two bf16 moments",
        ),
        Recipe(
            RecipeId.ADAM8BIT_MIXED,
            "mixed-precision 8-bit Adam",
            2,
            2,
            6,
            fp32_master=True,
            source="Dettmers et al. 2022 (8-bit Optimizers via Block-wise Quantization): two "
            "1-byte moments, plus the 4-byte fp32 master of mixed precision",
        ),
        Recipe(
            RecipeId.SGD_MIXED,
            "mixed-precision SGD with momentum",
            2,
            2,
            8,
            fp32_master=True,
            source="Micikevicius et al. 2018 (Mixed Precision Training): fp32 master weights "
            "and one fp32 momentum buffer",
        ),
    )
}

DEFAULT_RECIPE = RecipeId.ADAM_MIXED
