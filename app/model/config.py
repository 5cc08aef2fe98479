"""A fully resolved configuration: what the model is asked about, with no defaults left open."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from app.model.activations import Strategy
from app.model.cards import CARDS, DEFAULT_CARD, DEFAULT_CEILINGS, Basis, Card
from app.model.comm import DEFAULT_LINKS, LINKS, Link
from app.model.recipes import DEFAULT_RECIPE, RECIPES, Recipe
from app.model.shapes import PRESETS_BY_ID, Shape, derive_shape
from app.model.states import Offload, Scheme
from app.model.units import Exact, Unit


class ShapeSource(StrEnum):
    """Where the configuration's shape came from."""

    PRESET = "preset"
    """A published model's shape (the ``model`` key)."""
    DERIVED = "derived"
    """Derived from Ψ by the rule in ``app.model.shapes``."""
    OVERRIDDEN = "overridden"
    """A preset or derived shape with one or more of L, h, a, v overridden."""


@dataclass(frozen=True)
class ResolvedShape:
    shape: Shape
    source: ShapeSource
    preset_id: str | None = None


def resolve_shape(
    params: int,
    *,
    preset_id: str | None = None,
    layers: int | None = None,
    hidden: int | None = None,
    heads: int | None = None,
    vocab: int | None = None,
) -> ResolvedShape:
    """The shape for a configuration: the preset's if one is named, else derived from Ψ;
    then any of L, h, a, v overridden."""
    base = PRESETS_BY_ID[preset_id].shape if preset_id else derive_shape(params)
    source = ShapeSource.PRESET if preset_id else ShapeSource.DERIVED
    overrides = {"layers": layers, "hidden": hidden, "heads": heads, "vocab": vocab}
    given = {k: v for k, v in overrides.items() if v is not None}
    if given:
        base = Shape(**{**base.__dict__, **given})
        source = ShapeSource.OVERRIDDEN
    return ResolvedShape(base, source, preset_id)


@dataclass(frozen=True)
class Config:
    """Everything a view is computed from. Bytes are exact; nothing here is a display unit
    except ``unit``, which only says how figures are labelled at the edge."""

    params: int = 30_000_000_000
    n_gpus: int = 8
    seq_len: int = 4096
    micro_batch: int = 1
    card: Card = CARDS[DEFAULT_CARD]
    basis: Basis = Basis.MARKETED
    usable_fraction: Exact = 1
    recipe: Recipe = RECIPES[DEFAULT_RECIPE]
    strategy: Strategy = Strategy.NONE
    flash_attention: bool = False
    count_activations: bool = False
    seq_parallel: int = 1
    offload: Offload = Offload.NONE
    gpus_per_node: int = 8
    links: tuple[Link, ...] = tuple(LINKS[i] for i in DEFAULT_LINKS)
    ring: bool = False
    shape: ResolvedShape = field(default_factory=lambda: resolve_shape(30_000_000_000))
    ceilings: tuple[Card, ...] = tuple(CARDS[i] for i in DEFAULT_CEILINGS)
    unit: Unit = Unit.GiB
    focus: Scheme = Scheme.ZERO3
    """The scheme drawn on the pile against sequence length."""

    @property
    def capacity_bytes(self) -> Exact:
        return self.card.capacity_bytes(self.basis, self.usable_fraction)
