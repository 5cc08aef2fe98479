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
from app.model.states import Scheme, Split, StateSplit, state_split
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


def max_params(config: Config, scheme: Scheme, n_gpus: int) -> int | None:
    """The largest Ψ that fits at ``n_gpus``, with the activation footprint of the current
    shape held fixed (None when not even one parameter fits)."""
    per_param = scheme_memory(config, scheme, activations=NO_ACTIVATIONS, params=1).counted.at(n_gpus)
    activations = config_activations(config).total if config.count_activations else 0
    headroom = config.capacity_bytes - activations
    if headroom < per_param:
        return None
    return headroom // per_param


def replicated_bytes_per_param(config: Config, scheme: Scheme) -> Exact:
    """Bytes per parameter that every GPU keeps whatever N is (4 for ZeRO-1 under
    mixed-precision Adam: the weights and the gradients)."""
    states = scheme_memory(config, scheme, activations=NO_ACTIVATIONS, params=1).states
    return states.model_states.fixed


def floor_fill_params(config: Config, scheme: Scheme) -> Exact | None:
    """The model size at which the replicated model-state floor alone fills the card:
    "four bytes per weight fills a 74.5 GiB card exactly at 20 billion parameters"."""
    per_param = replicated_bytes_per_param(config, scheme)
    if per_param == 0:
        return None
    return exact_div(config.capacity_bytes, per_param)


def comm_volume_bytes(config: Config, scheme: Scheme) -> Exact:
    return step_volume_bytes(
        scheme, params=config.params, recipe=config.recipe, n_gpus=config.n_gpus, ring=config.ring
    )


def comm_seconds(config: Config, scheme: Scheme) -> dict[str, Exact]:
    volume = comm_volume_bytes(config, scheme)
    return {link.id.value: transfer_seconds(volume, link) for link in config.links}


__all__ = [
    "SchemeMemory",
    "comm_param_multiple",
    "comm_seconds",
    "comm_volume_bytes",
    "config_activations",
    "config_polynomials",
    "fit_boundary",
    "fits",
    "floor_fill_params",
    "max_params",
    "min_gpus",
    "replicated_bytes_per_param",
    "scheme_memory",
]
