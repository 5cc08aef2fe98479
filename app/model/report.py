"""The model's answers as plain data (dicts, lists, floats, numpy arrays), one per view.

Bytes stay bytes; the only unit information is ``units``, which says how the edge should
label them. Exact rationals become float64 here, at the boundary of the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from app.model.activations import COMPONENTS
from app.model.budget import SchemeFacts, SchemeMemory, fits, scheme_facts
from app.model.cards import Card
from app.model.comm import comm_param_multiple
from app.model.config import Config
from app.model.curves import (
    MAX_SEQ_LEN,
    WALL_GPUS,
    activation_components_over_seq,
    fits_over_sizes,
    ladder,
    ladder_gpus,
    seq_grid,
    sizes_params,
    totals_over_sizes,
    wall_line,
)
from app.model.findings import findings
from app.model.states import SCHEME_LABELS, SCHEMES, Scheme, StateSplit
from app.model.units import UNIT_BYTES, Exact

VIEWS = ("ladder", "wall", "pile", "seq", "sizes", "comm", "findings")


def _bytes(value: Exact) -> int | float:
    """A byte count for JSON: rounded to a whole byte, the resolution every figure is read at
    (the exact value has already decided every fit). Beyond 64-bit integers, a float."""
    whole = round(value)
    return whole if abs(whole) < 2**63 else float(whole)


def _byte_curve(values: np.ndarray) -> np.ndarray:
    """Byte counts of a curve, rounded to whole bytes (still float64: curves can exceed
    64-bit integers, and orjson writes a whole float compactly either way)."""
    return np.rint(values)


def _num(value: Exact | float) -> float:
    return float(value)


def _state_components(states: StateSplit, n_gpus: int) -> dict[str, int | float]:
    return {
        "weights": _bytes(states.weights.at(n_gpus)),
        "gradients": _bytes(states.gradients.at(n_gpus)),
        "optimizer": _bytes(states.optimizer.at(n_gpus)),
    }


def _count(value: int | None) -> int | float | None:
    """A whole count for JSON: exact up to 2^53, beyond which JSON readers lose digits anyway."""
    if value is None or value < 2**53:
        return value
    return float(value)


def _boundary(value: Exact | None) -> float | None:
    return None if value is None else float(value)


@dataclass
class Evaluation:
    """A configuration with its per-scheme memory computed once and shared by every view."""

    config: Config

    @cached_property
    def facts(self) -> dict[Scheme, SchemeFacts]:
        return scheme_facts(self.config, MAX_SEQ_LEN)

    @property
    def memories(self) -> dict[Scheme, SchemeMemory]:
        return {scheme: facts.memory for scheme, facts in self.facts.items()}

    @property
    def capacity_bytes(self) -> Exact:
        return self.config.capacity_bytes

    def units(self) -> dict[str, Any]:
        unit = self.config.unit
        return {"memory": unit.value, "memory_bytes": UNIT_BYTES[unit], "comm": "GB", "comm_bytes": 10**9}

    def card(self, card: Card | None = None) -> dict[str, Any]:
        card = card or self.config.card
        return {
            "id": card.id.value,
            "label": card.label,
            "generation": card.generation,
            "marketed_bytes": card.marketed_bytes,
            "driver_bytes": card.driver_bytes,
            "basis": card.basis_used(self.config.basis).value,
            "usable_fraction": float(self.config.usable_fraction),
            "capacity_bytes": _bytes(card.capacity_bytes(self.config.basis, self.config.usable_fraction)),
        }

    # -- views -------------------------------------------------------------------------------

    def memory(self) -> dict[str, Any]:
        """Every scheme at the configuration's N: the API's /memory."""
        config = self.config
        n = config.n_gpus
        capacity = self.capacity_bytes
        per_node = min(n, config.gpus_per_node)
        schemes = []
        for scheme, f in self.facts.items():
            states = f.memory.states
            host = states.host.at(n)
            schemes.append(
                {
                    "id": scheme.value,
                    "label": SCHEME_LABELS[scheme],
                    "bytes": {
                        **_state_components(states, n),
                        "model_states": _bytes(f.model_states),
                        "activations": _bytes(f.memory.activations.total),
                        "total": _bytes(f.total),
                    },
                    "activation_bytes": {c: _bytes(getattr(f.memory.activations, c)) for c in COMPONENTS},
                    "floor_bytes": _bytes(f.memory.floor_bytes),
                    "fits": f.fits,
                    "min_gpus": _count(f.min_gpus),
                    "fit_boundary_gpus": _boundary(f.boundary),
                    "max_params": _count(f.max_params),
                    "comm": self._comm(scheme),
                    "offload": states.offload.value,
                    "cpu_bytes": _bytes(host),
                    "cpu_bytes_per_node": _bytes(host * per_node),
                }
            )
        return {"card": self.card(), "capacity_bytes": _bytes(capacity), "n_gpus": n, "schemes": schemes}

    def _comm(self, scheme: Scheme) -> dict[str, Any]:
        f = self.facts[scheme]
        return {
            "param_multiple": comm_param_multiple(scheme),
            "volume_bytes": _bytes(f.comm_volume),
            "seconds": {k: _num(v) for k, v in f.comm_seconds.items()},
        }

    def wall(self) -> dict[str, Any]:
        """Per-GPU bytes against GPU count, each scheme split where it starts to fit."""
        capacity = self.capacity_bytes
        n = self.config.n_gpus
        lines = []
        for scheme, f in self.facts.items():
            line = wall_line(f.memory, capacity)
            lines.append(
                {
                    "id": scheme.value,
                    "label": SCHEME_LABELS[scheme],
                    "floor_bytes": _bytes(f.memory.floor_bytes),
                    "fit_boundary_gpus": _boundary(f.boundary),
                    "min_gpus": _count(f.min_gpus),
                    "selected": {"n_gpus": n, "bytes": _bytes(f.total), "fits": f.fits},
                    "segments": [
                        {"fits": seg.fits, "gpus": seg.gpus, "bytes": _byte_curve(seg.bytes)} for seg in line.segments
                    ],
                }
            )
        return {
            "gpus_min": float(WALL_GPUS[0]),
            "gpus_max": float(WALL_GPUS[-1]),
            "capacity_bytes": _bytes(capacity),
            "card": self.card(),
            "schemes": lines,
        }

    def ladder(self) -> dict[str, Any]:
        """The first seed's table: each scheme at 8, 16, 32 and 64 GPUs (and the selected N)."""
        gpus = ladder_gpus(self.config.n_gpus)
        rows = ladder(self.memories, gpus)
        capacity = self.capacity_bytes
        return {
            "gpus": list(gpus),
            "selected_gpus": self.config.n_gpus,
            "capacity_bytes": _bytes(capacity),
            "schemes": [
                {
                    "id": scheme.value,
                    "label": SCHEME_LABELS[scheme],
                    "bytes": [_bytes(b) for b in values],
                    "fits": [fits(b, capacity) for b in values],
                }
                for scheme, values in rows.items()
            ],
        }

    def pile(self) -> dict[str, Any]:
        """Model states and activations stacked per scheme at N, against several cards.

        The pile always counts activations: its point is that both share the card.
        """
        n = self.config.n_gpus
        piles = {scheme: f.model_states + f.memory.activations.total for scheme, f in self.facts.items()}
        schemes = [
            {
                "id": scheme.value,
                "label": SCHEME_LABELS[scheme],
                "components": {
                    **_state_components(f.memory.states, n),
                    **{f"activations_{c}": _bytes(getattr(f.memory.activations, c)) for c in COMPONENTS},
                },
                "model_states": _bytes(f.model_states),
                "activations": _bytes(f.memory.activations.total),
                "total": _bytes(piles[scheme]),
            }
            for scheme, f in self.facts.items()
        ]
        ceilings = []
        for card in self.config.ceilings:
            capacity = card.capacity_bytes(self.config.basis, self.config.usable_fraction)
            fits_card = {scheme.value: fits(pile, capacity) for scheme, pile in piles.items()}
            ceilings.append({**self.card(card), "fits": fits_card})
        return {"n_gpus": n, "seq_len": self.config.seq_len, "schemes": schemes, "ceilings": ceilings}

    def seq(self) -> dict[str, Any]:
        """Model states (flat) and activations (rising) against sequence length."""
        config = self.config
        grid = seq_grid(config.seq_len)
        components = activation_components_over_seq(config, grid)
        states = {s.value: _bytes(f.model_states) for s, f in self.facts.items()}
        return {
            "seq_lens": grid,
            "selected_seq_len": config.seq_len,
            "focus": config.focus.value,
            "activations": {name: _byte_curve(values) for name, values in components.items()},
            "activations_total": _byte_curve(sum(components.values())),
            "model_states_bytes": states,
            "crossover_seq_len": {s.value: f.crossover_seq_len for s, f in self.facts.items()},
            "ceilings": [self.card(card) for card in config.ceilings],
        }

    def sizes(self) -> dict[str, Any]:
        """Per-GPU bytes per scheme across model sizes at the configuration's N."""
        sizes = sizes_params(self.config.params)
        totals = totals_over_sizes(self.config, sizes)
        fitting = fits_over_sizes(self.config, sizes)
        capacity = _bytes(self.capacity_bytes)
        return {
            "params": list(sizes),
            "selected_params": self.config.params,
            "n_gpus": self.config.n_gpus,
            "capacity_bytes": capacity,
            "schemes": [
                {
                    "id": scheme.value,
                    "label": SCHEME_LABELS[scheme],
                    "bytes": _byte_curve(values),
                    "fits": fitting[scheme],
                }
                for scheme, values in totals.items()
            ],
        }

    def comm(self) -> dict[str, Any]:
        return {
            "ring": self.config.ring,
            "n_gpus": self.config.n_gpus,
            "links": [
                {"id": link.id.value, "label": link.label, "bandwidth_bytes_per_s": link.bandwidth_bytes_per_s}
                for link in self.config.links
            ],
            "schemes": [
                {"id": s.value, "label": SCHEME_LABELS[s], **self._comm(s)} for s in SCHEMES
            ],
        }

    def findings(self) -> list[dict[str, Any]]:
        return [
            {
                "kind": f.kind,
                "text": f.text,
                "schemes": [s.value for s in f.schemes],
                "numbers": f.numbers,
            }
            for f in findings(self.config, self.facts)
        ]

    def view(self) -> dict[str, Any]:
        """Everything a page needs for this configuration, in one answer."""
        return {
            "units": self.units(),
            "shape": self.shape(),
            "recipe": self.recipe(),
            "memory": self.memory(),
            **{name: getattr(self, name)() for name in VIEWS if name != "findings"},
            "findings": self.findings(),
        }

    def shape(self) -> dict[str, Any]:
        resolved = self.config.shape
        s = resolved.shape
        return {
            "layers": s.layers,
            "hidden": s.hidden,
            "heads": s.heads,
            "vocab": s.vocab,
            "source": resolved.source.value,
            "preset": resolved.preset_id,
        }

    def recipe(self) -> dict[str, Any]:
        r = self.config.recipe
        return {
            "id": r.id.value,
            "label": r.label,
            "weight_bytes": _num(r.weight_bytes),
            "grad_bytes": _num(r.grad_bytes),
            "optimizer_bytes": _num(r.optimizer_bytes),
            "custom": r.custom,
        }

