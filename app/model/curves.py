"""Curves for the views, vectorised over fixed-size grids (no Python loop per point).

Every grid has a fixed length whatever the configuration, so no query costs more than another.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from app.model.activations import COMPONENTS, activation_bytes, activation_coefficient_arrays
from app.model.budget import SchemeMemory, config_polynomials, fit_boundary, per_param_states
from app.model.config import Config
from app.model.shapes import Shape, derive_shapes
from app.model.states import SCHEMES, Scheme
from app.model.units import Exact

MAX_GPUS = 16384
WALL_STEPS_PER_OCTAVE = 16
WALL_GPUS = 2.0 ** (np.arange(0, 14 * WALL_STEPS_PER_OCTAVE + 1) / WALL_STEPS_PER_OCTAVE)
"""1 to 16384 GPUs, 16 points per doubling: every power of two lies on the grid exactly."""

MIN_SEQ_LEN, MAX_SEQ_LEN = 128, 2**20
SEQ_LENS = np.rint(2.0 ** (np.arange(7 * 4, 20 * 4 + 1) / 4))
"""128 to 1,048,576 tokens, four points per doubling."""

LADDER_GPUS = (8, 16, 32, 64)
"""The first seed's table."""

SIZES_PARAMS = (1_000_000_000, 7_000_000_000, 13_000_000_000, 30_000_000_000, 70_000_000_000)
"""The second seed's bar chart: models from 1B to 70B."""


@dataclass(frozen=True)
class Segment:
    fits: bool
    gpus: np.ndarray
    bytes: np.ndarray


@dataclass(frozen=True)
class WallLine:
    scheme: Scheme
    boundary: Exact | None
    """N* (real): fits for N ≥ N*; 0 means everywhere, None never."""
    segments: tuple[Segment, ...]


def wall_line(memory: SchemeMemory, capacity_bytes: Exact) -> WallLine:
    """Per-GPU bytes over ``WALL_GPUS``, split at the exact boundary N* into a part that
    does not fit and a part that fits; N* itself is a point of both."""
    counted = memory.counted
    boundary = fit_boundary(counted, capacity_bytes)
    fixed, sharded = float(counted.fixed), float(counted.sharded)
    gpus = WALL_GPUS
    if boundary is None or boundary >= MAX_GPUS:
        return WallLine(memory.scheme, boundary, (Segment(False, gpus, fixed + sharded / gpus),))
    if boundary <= 1:
        return WallLine(memory.scheme, boundary, (Segment(True, gpus, fixed + sharded / gpus),))
    edge = float(boundary)
    edge_bytes = float(capacity_bytes) if sharded else fixed
    below = gpus[gpus < edge]
    above = gpus[gpus > edge]
    return WallLine(
        memory.scheme,
        boundary,
        (
            Segment(False, np.append(below, edge), np.append(fixed + sharded / below, edge_bytes)),
            Segment(True, np.insert(above, 0, edge), np.insert(fixed + sharded / above, 0, edge_bytes)),
        ),
    )


def ladder(memories: dict[Scheme, SchemeMemory], gpus: tuple[int, ...]) -> dict[Scheme, list[Exact]]:
    """Exact per-GPU bytes of each scheme at each rung of a ladder of GPU counts."""
    return {scheme: [m.total_at(n) for n in gpus] for scheme, m in memories.items()}


def ladder_gpus(n_gpus: int) -> tuple[int, ...]:
    """The seed's 8-16-32-64 ladder, with the selected N added where it is not a rung."""
    return tuple(sorted(set(LADDER_GPUS) | {n_gpus}))


def seq_grid(seq_len: int) -> np.ndarray:
    """``SEQ_LENS`` with the selected sequence length on it (one point more at most)."""
    return np.union1d(SEQ_LENS, [float(seq_len)])


def activation_components_over_seq(config: Config, seq_lens: np.ndarray) -> dict[str, np.ndarray]:
    """Activation bytes per GPU by component over ``seq_lens``, for the configuration's shape."""
    polys = config_polynomials(config)
    return {name: polys[name].over(seq_lens) for name in COMPONENTS}


def sizes_params(params: int) -> tuple[int, ...]:
    """The second seed's sizes, with the configuration's own size among them."""
    return tuple(sorted(set(SIZES_PARAMS) | {params}))


def size_shapes(config: Config, sizes: tuple[int, ...]) -> np.ndarray:
    """The shape of each model size (rows of L, h, a, v): the one the derivation rule gives,
    except the configuration's own size, which keeps its shape."""
    shapes = derive_shapes(np.array(sizes, dtype=np.float64))
    own = np.array(sizes) == config.params
    shape = config.shape.shape
    shapes[own] = (shape.layers, shape.hidden, shape.heads, shape.vocab)
    return shapes


def totals_over_sizes(config: Config, sizes: tuple[int, ...]) -> dict[Scheme, np.ndarray]:
    """Counted per-GPU bytes of each scheme for each model size at the configuration's N.

    Model states are linear in Ψ; activations, when they count, follow ``size_shapes``.
    """
    params = np.array(sizes, dtype=np.float64)
    activations = np.zeros_like(params)
    if config.count_activations:
        shapes = size_shapes(config, sizes)
        coefficients = activation_coefficient_arrays(
            micro_batch=config.micro_batch,
            layers=shapes[:, 0],
            hidden=shapes[:, 1],
            heads=shapes[:, 2],
            vocab=shapes[:, 3],
            strategy=config.strategy,
            flash_attention=config.flash_attention,
            seq_parallel=config.seq_parallel,
        )
        s = float(config.seq_len)
        for linear, quadratic in coefficients.values():
            activations = activations + linear * s + quadratic * s * s
    totals = {}
    for scheme in SCHEMES:
        per_param = per_param_states(config, scheme)
        totals[scheme] = params * float(per_param.at(config.n_gpus)) + activations
    return totals


def fits_over_sizes(config: Config, sizes: tuple[int, ...]) -> dict[Scheme, list[bool]]:
    """Whether each scheme fits at each model size, decided in exact arithmetic (a float
    total could land on the wrong side of a card that it fills exactly)."""
    activations = [0] * len(sizes)
    if config.count_activations:
        activations = [
            activation_bytes(
                seq_len=config.seq_len,
                micro_batch=config.micro_batch,
                shape=Shape(*(int(x) for x in row)),
                strategy=config.strategy,
                flash_attention=config.flash_attention,
                seq_parallel=config.seq_parallel,
            ).total
            for row in size_shapes(config, sizes)
        ]
    capacity = config.capacity_bytes
    out = {}
    for scheme in SCHEMES:
        per_param = per_param_states(config, scheme).at(config.n_gpus)
        out[scheme] = [size * per_param + acts <= capacity for size, acts in zip(sizes, activations)]
    return out
