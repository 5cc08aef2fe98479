"""The page's controls, read off the query contract: one control per URL key.

The key, its label, help, bounds and control type come from ``MemoryQuery``'s fields; this
module only adds what a form needs on top: the options of enumerated keys with readable
labels, and the stops of log-scale sliders.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.model.activations import STRATEGY_HELP, STRATEGY_LABELS, Strategy
from app.model.cards import CARDS, Basis
from app.model.comm import LINKS
from app.model.recipes import RECIPES
from app.model.shapes import PRESETS
from app.model.states import SCHEME_LABELS, Offload
from app.model.units import format_param_count
from app.schemas import MemoryQuery

GROUPS = (
    ("model", "Model"),
    ("card", "Card"),
    ("activations", "Activations"),
    ("comm", "Communication"),
    ("recipe", "Custom bytes per parameter"),
    ("shape", "Shape overrides"),
)

OFFLOAD_LABELS = {
    Offload.NONE: "none",
    Offload.OPTIMIZER: "optimizer states (ZeRO-1/2/3)",
    Offload.PARAMS: "parameters too (ZeRO-3)",
}
BASIS_LABELS = {Basis.MARKETED: "marketed (decimal)", Basis.DRIVER: "driver-reported"}

PARAM_MANTISSAS = (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8)
"""Slider stops per decade of model size: 10B → 12B → 15B → 20B → 25B → 30B by arrow key."""


def _fmt_bytes_per_param(value: Any) -> str:
    return f"{float(value):g}"


def _options(key: str) -> list[tuple[str, str]]:
    if key == "card":
        return [(c.id.value, c.label) for c in CARDS.values()]
    if key == "ceil":
        return [(c.id.value, c.label) for c in CARDS.values()]
    if key == "opt":
        return [
            (r.id.value, f"{r.label} ({'/'.join(_fmt_bytes_per_param(x) for x in (r.weight_bytes, r.grad_bytes, r.optimizer_bytes))})")
            for r in RECIPES.values()
        ]
    if key == "ac":
        return [(s.value, STRATEGY_LABELS[s]) for s in Strategy]
    if key == "off":
        return [(o.value, OFFLOAD_LABELS[o]) for o in Offload]
    if key == "link":
        return [(link.id.value, f"{link.label}, {link.bandwidth_bytes_per_s / 1e9:g} GB/s") for link in LINKS.values()]
    if key == "model":
        return [("", "— derived from size —")] + [
            (p.id, f"{p.label}") for p in PRESETS
        ]
    if key == "focus":
        return [(s.value, label) for s, label in SCHEME_LABELS.items()]
    if key == "basis":
        return [(b.value, BASIS_LABELS[b]) for b in Basis]
    if key == "unit":
        return [("GiB", "GiB (2³⁰ B)"), ("GB", "GB (10⁹ B)")]
    return []


def _geometric_stops(low: int, high: int) -> list[int]:
    """Powers of two and the halfway 1.5× steps: 1, 2, 3, 4, 6, 8, 12, 16, 24, …"""
    stops = set()
    power = 1
    while power <= high:
        for value in (power, power * 3 // 2):
            if low <= value <= high and (value == power or power >= 2):
                stops.add(value)
        power *= 2
    stops.update({low, high})
    return sorted(stops)


def param_stops(low: float, high: float) -> list[int]:
    stops = []
    decade = 10 ** 6
    while decade <= high:
        for mantissa in PARAM_MANTISSAS:
            value = round(mantissa * decade)
            if low <= value <= high:
                stops.append(value)
        decade *= 10
    return sorted(set(stops) | {int(low), int(high)})


@dataclass
class Control:
    key: str
    label: str
    help: str
    kind: str
    group: str
    value: Any
    default: Any
    unit: str | None = None
    minimum: float | None = None
    maximum: float | None = None
    step: str = "any"
    options: list[tuple[str, str]] = field(default_factory=list)
    stops: list[int] = field(default_factory=list)
    sets: str | None = None
    """The key whose control follows this one's choice."""

    @property
    def values(self) -> list[str]:
        """The current value(s) as form strings."""
        if isinstance(self.value, list):
            return [getattr(v, "value", str(v)) for v in self.value]
        if self.value is None:
            return []
        return [getattr(self.value, "value", str(self.value))]

    @property
    def text(self) -> str:
        if self.key == "p":
            return format_param_count(self.value)
        if isinstance(self.value, float):
            return f"{self.value:g}"
        return "" if self.value is None else str(getattr(self.value, "value", self.value))

    def stop_index(self) -> int:
        if not self.stops:
            return 0
        return min(range(len(self.stops)), key=lambda i: abs(self.stops[i] - float(self.value)) / max(self.stops[i], 1))


def _bounds(field_info: Any) -> tuple[float | None, float | None]:
    low = high = None
    for meta in field_info.metadata:
        low = getattr(meta, "ge", low)
        high = getattr(meta, "le", high)
    return low, high


def controls(query: MemoryQuery) -> dict[str, Control]:
    """Every key's control with the query's current value, in field order."""
    out: dict[str, Control] = {}
    for key, info in MemoryQuery.model_fields.items():
        extra = info.json_schema_extra or {}
        low, high = _bounds(info)
        kind = extra.get("x-control", "number")
        stops: list[int] = []
        if kind == "slider":
            s_low = extra.get("x-slider-min", low)
            s_high = extra.get("x-slider-max", high)
            stops = param_stops(s_low, s_high) if key == "p" else _geometric_stops(int(s_low), int(s_high))
        step = "1" if info.annotation in (int, int | None) else "any"
        out[key] = Control(
            key=key,
            label=extra.get("x-label", key),
            help=info.description or "",
            kind=kind,
            group=extra.get("x-group", "model"),
            value=getattr(query, key),
            default=info.default,
            unit=extra.get("x-unit"),
            minimum=low,
            maximum=high,
            step=step,
            options=_options(key),
            stops=stops,
            sets=extra.get("x-sets"),
        )
    return out


def strategy_help() -> dict[str, str]:
    return {s.value: STRATEGY_HELP[s] for s in Strategy}
