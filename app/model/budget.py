"""Whether a scheme fits a card, and the exact boundaries: ``min_gpus`` and ``max_params``.

Per-GPU bytes are ``fixed + sharded / N`` (see ``app.model.states``), and both parts are
proportional to Ψ apart from activations, which do not depend on Ψ once the shape is fixed.
So both boundaries have closed forms, solved in exact rational arithmetic:

    fits(N)      ⇔  fixed + sharded/N ≤ C
    min_gpus     =  ⌈sharded / (C − fixed)⌉      (none when fixed ≥ C and sharded > 0)
    max_params   =  ⌊(C − A) / bytes_per_param(N)⌋

"Fits" compares bytes with bytes: a configuration that fills the card exactly fits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.model.activations import (
    NO_ACTIVATIONS,
    Activations,
    Polynomial,
    activation_bytes,
    activation_polynomials,
)
from app.model.comm import comm_param_multiple, step_volume_bytes, transfer_seconds
from app.model.config import Config
from app.model.states import SCHEMES, Scheme, Split, StateSplit, state_split
from app.model.units import Exact, exact_div


@dataclass(frozen=True)
class SchemeMemory:
    """One scheme under one configuration, exactly."""

    scheme: Scheme
    states: StateSplit
    activations: Activations
    counted: Split
    """What counts toward the fit: model states, plus activations (in ``fixed``) when the
    configuration counts them."""

    def total_at(self, n_gpus: int) -> Exact:
        return self.counted.at(n_gpus)

    @property
    def floor_bytes(self) -> Exact:
        """The replicated floor: what is left per GPU as N → ∞."""
        return self.counted.fixed


def config_activations(config: Config) -> Activations:
    return activation_bytes(
        seq_len=config.seq_len,
        micro_batch=config.micro_batch,
        shape=config.shape.shape,
        strategy=config.strategy,
        flash_attention=config.flash_attention,
        seq_parallel=config.seq_parallel,
    )


def config_polynomials(config: Config) -> dict[str, Polynomial]:
    """The configuration's activation components as polynomials in the sequence length."""
    return activation_polynomials(
        micro_batch=config.micro_batch,
        shape=config.shape.shape,
        strategy=config.strategy,
        flash_attention=config.flash_attention,
        seq_parallel=config.seq_parallel,
    )


def scheme_memory(
    config: Config, scheme: Scheme, *, activations: Activations | None = None, params: int | None = None
) -> SchemeMemory:
    """Model states and activations of ``scheme``; ``params`` replaces Ψ (shape kept)."""
    states = state_split(
        scheme,
        params=config.params if params is None else params,
        recipe=config.recipe,
        offload=config.offload,
        layers=config.shape.shape.layers,
    )
    acts = config_activations(config) if activations is None else activations
    counted = states.model_states
    if config.count_activations:
        counted = counted + Split(fixed=acts.total)
    return SchemeMemory(scheme, states, acts, counted)


def fits(total_bytes: Exact, capacity_bytes: Exact) -> bool:
    return total_bytes <= capacity_bytes


def fit_boundary(counted: Split, capacity_bytes: Exact) -> Exact | None:
    """The real N* at which ``fixed + sharded/N`` equals the capacity: the scheme fits for
    every N ≥ N*. 0 when it fits at any N, None when it never fits."""
    headroom = capacity_bytes - counted.fixed
    if counted.sharded == 0:
        return 0 if headroom >= 0 else None
    if headroom <= 0:
        return None
    return exact_div(counted.sharded, headroom)


def min_gpus(counted: Split, capacity_bytes: Exact) -> int | None:
    """The smallest whole number of GPUs at which the scheme fits (None: never)."""
    boundary = fit_boundary(counted, capacity_bytes)
    if boundary is None:
        return None
    return max(1, math.ceil(boundary))


def per_param_states(config: Config, scheme: Scheme) -> Split:
    """Model-state bytes of a single parameter: every state figure is Ψ times this."""
    return scheme_memory(config, scheme, activations=NO_ACTIVATIONS, params=1).states.model_states


def largest_fitting_params(per_param_bytes: Exact, fixed_bytes: Exact, capacity_bytes: Exact) -> int | None:
    """⌊(C − A) / b⌋: the most parameters at ``per_param_bytes`` each that fit beside
    ``fixed_bytes`` that do not grow with Ψ (None when not even one does)."""
    headroom = capacity_bytes - fixed_bytes
    if headroom < per_param_bytes:
        return None
    return headroom // per_param_bytes


def max_params(config: Config, scheme: Scheme, n_gpus: int) -> int | None:
    """The largest Ψ that fits at ``n_gpus``, with the activation footprint of the current
    shape held fixed (None when not even one parameter fits)."""
    activations = config_activations(config).total if config.count_activations else 0
    return largest_fitting_params(
        per_param_states(config, scheme).at(n_gpus), activations, config.capacity_bytes
    )


def replicated_bytes_per_param(config: Config, scheme: Scheme) -> Exact:
    """Bytes per parameter that every GPU keeps whatever N is (4 for ZeRO-1 under
    mixed-precision Adam: the weights and the gradients)."""
    return per_param_states(config, scheme).fixed


def floor_fill_params(config: Config, scheme: Scheme) -> Exact | None:
    """The model size at which the replicated model-state floor alone fills the card:
    "four bytes per weight fills a 74.5 GiB card exactly at 20 billion parameters"."""
    return fill_params(replicated_bytes_per_param(config, scheme), config.capacity_bytes)


def fill_params(per_param_bytes: Exact, capacity_bytes: Exact) -> Exact | None:
    return None if per_param_bytes == 0 else exact_div(capacity_bytes, per_param_bytes)


def crossover_seq_len(polys: dict[str, Polynomial], state_bytes: Exact, max_seq_len: int) -> int | None:
    """The smallest sequence length at which activations reach ``state_bytes`` (None beyond
    ``max_seq_len``). Activations are ``c1·s + c2·s²``, so the root has a closed form; the
    float estimate is then corrected against the exact polynomial."""
    c1 = sum(p.linear for p in polys.values())
    c2 = sum(p.quadratic for p in polys.values())

    def reaches(s: int) -> bool:
        return c1 * s + c2 * s * s >= state_bytes

    if reaches(1):
        return 1
    if c2 == 0:
        estimate = -(-state_bytes // c1)
    else:
        f1, f2, target = float(c1), float(c2), float(state_bytes)
        estimate = math.ceil((-f1 + math.sqrt(f1 * f1 + 4 * f2 * target)) / (2 * f2))
    if estimate > 2 * max_seq_len:
        return None
    s = max(1, estimate)
    while s > 1 and reaches(s - 1):
        s -= 1
    while not reaches(s):
        s += 1
    return s if s <= max_seq_len else None


@dataclass(frozen=True)
class SchemeFacts:
    """Everything the views say about one scheme under one configuration, computed once."""

    memory: SchemeMemory
    per_param: Split
    """Model-state bytes of one parameter."""
    total: Exact
    """Counted bytes per GPU at the configuration's N."""
    model_states: Exact
    """Model-state bytes per GPU at N."""
    boundary: Exact | None
    min_gpus: int | None
    max_params: int | None
    crossover_seq_len: int | None
    """Where activations reach this scheme's model states at N."""
    comm_volume: Exact
    comm_seconds: dict[str, Exact]
    fits: bool
    """Whether the counted bytes at N fit the card."""


def scheme_facts(config: Config, max_seq_len: int) -> dict[Scheme, SchemeFacts]:
    """``SchemeFacts`` for every scheme, sharing the activations and their polynomials."""
    activations = config_activations(config)
    polys = config_polynomials(config)
    counted_activations = activations.total if config.count_activations else 0
    capacity = config.capacity_bytes
    n = config.n_gpus
    out = {}
    for scheme in SCHEMES:
        memory = scheme_memory(config, scheme, activations=activations)
        per_param = per_param_states(config, scheme)
        total = memory.total_at(n)
        model_states = memory.states.model_states.at(n)
        boundary = fit_boundary(memory.counted, capacity)
        volume = comm_volume_bytes(config, scheme)
        out[scheme] = SchemeFacts(
            memory=memory,
            per_param=per_param,
            total=total,
            model_states=model_states,
            boundary=boundary,
            min_gpus=min_gpus(memory.counted, capacity),
            max_params=largest_fitting_params(per_param.at(n), counted_activations, capacity),
            crossover_seq_len=crossover_seq_len(polys, model_states, max_seq_len),
            comm_volume=volume,
            comm_seconds={link.id.value: transfer_seconds(volume, link) for link in config.links},
            fits=fits(total, capacity),
        )
    return out


def comm_volume_bytes(config: Config, scheme: Scheme) -> Exact:
    return step_volume_bytes(
        scheme, params=config.params, recipe=config.recipe, n_gpus=config.n_gpus, ring=config.ring
    )



__all__ = [
    "SchemeFacts",
    "SchemeMemory",
    "comm_param_multiple",
    "comm_volume_bytes",
    "config_activations",
    "config_polynomials",
    "crossover_seq_len",
    "fill_params",
    "fit_boundary",
    "fits",
    "floor_fill_params",
    "largest_fitting_params",
    "max_params",
    "min_gpus",
    "per_param_states",
    "replicated_bytes_per_param",
    "scheme_facts",
    "scheme_memory",
]
