"""What the numbers mean for a configuration, in the first seed's words, computed.

Each finding is data (a kind, the schemes it is about, the numbers behind it, in bytes,
GPUs, parameters, tokens or seconds) and the sentence a reader sees.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from app.model.activations import COMPONENTS, Strategy
from app.model.budget import (
    SchemeMemory,
    comm_volume_bytes,
    config_polynomials,
    floor_fill_params,
    min_gpus,
)
from app.model.comm import comm_param_multiple, transfer_seconds
from app.model.config import Config
from app.model.curves import LADDER_GPUS, MAX_SEQ_LEN
from app.model.states import SCHEME_LABELS, SCHEMES, Offload, Scheme
from app.model.units import (
    Exact,
    Unit,
    exact_div,
    format_bytes,
    format_param_count,
    format_seconds,
    param_count_words,
)


@dataclass(frozen=True)
class Finding:
    kind: str
    text: str
    schemes: tuple[Scheme, ...] = ()
    numbers: dict[str, float | int | None] = field(default_factory=dict)


NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]

REPLICATED_PARTS = {
    Scheme.DP: "the weights, the gradients and the optimizer states",
    Scheme.ZERO1: "the weights and the gradients",
    Scheme.ZERO2: "the weights",
    Scheme.ZERO3: "nothing of the model states",
}

STRATEGY_WORDS = {
    Strategy.NONE: "storing every activation",
    Strategy.SELECTIVE: "with selective recomputation",
    Strategy.FULL: "with full recomputation",
    Strategy.REVERSIBLE: "with reversible layers",
}


def number_words(value: Exact | float) -> str:
    """Whole numbers up to twenty in words, as the seed writes them; others in figures."""
    if value == int(value) and 0 <= value <= 20:
        return NUMBER_WORDS[int(value)]
    return f"{float(value):g}"


def join_words(items: list[str]) -> str:
    if len(items) <= 2:
        return " and ".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def gpus_words(n: int) -> str:
    return f"{n:,} GPU" + ("" if n == 1 else "s")


def findings(config: Config, memories: dict[Scheme, SchemeMemory]) -> list[Finding]:
    """Every finding for ``config``, in reading order."""
    capacity = config.capacity_bytes
    unit = config.unit
    card_text = f"{format_bytes(capacity, unit)} card"
    out: list[Finding] = []

    never = [s for s in SCHEMES if min_gpus(memories[s].counted, capacity) is None]
    if never:
        out.append(_never_fits(config, memories, never, card_text))
    for scheme in SCHEMES:
        boundary = min_gpus(memories[scheme].counted, capacity)
        if boundary is not None:
            out.append(_fits_from(scheme, boundary))
    out.extend(_floor_fills(config, card_text))
    out.append(_at_selected_n(config, memories, card_text))
    if len(config.links) > 0:
        out.append(_comm(config))
    out.append(_activations(config, memories))
    if config.offload is not Offload.NONE:
        out.append(_offload(config, memories))
    return out


def _never_fits(config, memories, never: list[Scheme], card_text: str) -> Finding:
    """The seed: "Data parallelism and ZeRO-1 never fit, at any number of GPUs. Both leave
    the weights and the gradients replicated on every card, which is four bytes per weight.
    Four bytes across 30 billion weights is 111.8 GiB, and that figure is the same on one
    card as on a thousand." The floor named is that of the most sharded scheme that fails."""
    unit = config.unit
    names = join_words([SCHEME_LABELS[s] for s in never])
    verb = "never fits" if len(never) == 1 else "never fit"
    text = f"{capitalised(names)} {verb}, at any number of GPUs, on a {card_text}."
    last = never[-1]
    memory = memories[last]
    per_param = exact_div(memory.states.model_states.fixed, config.params)
    state_floor = memory.states.model_states.fixed
    activations = memory.counted.fixed - state_floor
    subject = "Both leave" if len(never) == 2 else ("All leave" if len(never) > 2 else "It leaves")
    if per_param > 0:
        bytes_words = number_words(per_param)
        text += (
            f" {subject} {REPLICATED_PARTS[last]} replicated on every card, which is "
            f"{bytes_words} bytes per weight. {capitalised(bytes_words)} bytes across "
            f"{param_count_words(config.params)} weights is {format_bytes(state_floor, unit)}"
        )
        if activations > 0:
            text += f", plus {format_bytes(activations, unit)} of activations that no scheme shards"
        text += ", and that figure is the same on one card as on a thousand."
    else:
        text += (
            f" Sharding leaves no model state replicated, but the "
            f"{format_bytes(activations, unit)} of activations on every card are not sharded."
        )
    return Finding(
        "never_fits",
        text,
        tuple(never),
        {
            "floor_bytes": float(memory.counted.fixed),
            "replicated_bytes_per_param": float(per_param),
            "capacity_bytes": float(config.capacity_bytes),
        },
    )


def _fits_from(scheme: Scheme, boundary: int) -> Finding:
    """The seed: "ZeRO-2 fits from 32 GPUs upward. ZeRO-3 fits from 8." — on the ladder,
    and exactly."""
    rung = next((n for n in LADDER_GPUS if n >= boundary), None)
    label = capitalised(SCHEME_LABELS[scheme])
    if boundary == 1:
        text = f"{label} fits on a single GPU, and on any number of them."
    elif rung is None:
        text = f"{label} fits from {boundary:,} GPUs upward, beyond the 8-16-32-64 ladder."
    elif rung == boundary:
        text = f"{label} fits from {rung} GPUs upward."
    else:
        text = f"{label} fits from {rung} GPUs upward on the 8-16-32-64 ladder ({boundary} exactly)."
    return Finding(
        "fits_from", text, (scheme,), {"min_gpus": boundary, "ladder_gpus": rung}
    )


def _floor_fills(config: Config, card_text: str) -> list[Finding]:
    """The seed: "Four bytes per weight fills a 74.5 GiB card exactly at 20 billion
    parameters, so a 20B model sits on the boundary and our 30B model sits past it." """
    out = []
    seen: set[Exact] = set()
    for scheme in SCHEMES:
        fill = floor_fill_params(config, scheme)
        if fill is None:
            continue
        per_param = exact_div(config.capacity_bytes, fill)
        if per_param in seen:
            continue
        seen.add(per_param)
        boundary = round(fill)
        where = (
            "past it"
            if config.params > fill
            else ("on it" if config.params == fill else "below it")
        )
        words = number_words(per_param)
        text = (
            f"{capitalised(SCHEME_LABELS[scheme])} keeps {words} bytes per weight on every card. "
            f"{capitalised(words)} bytes per weight fills a {card_text} exactly at "
            f"{param_count_words(boundary)} parameters, so a {format_param_count(boundary)} model "
            f"sits on the boundary and this {format_param_count(config.params)} model sits {where}."
        )
        out.append(
            Finding(
                "floor_fills_card",
                text,
                (scheme,),
                {"replicated_bytes_per_param": float(per_param), "params": float(fill)},
            )
        )
    return out


def _at_selected_n(config: Config, memories, card_text: str) -> Finding:
    n = config.n_gpus
    unit = config.unit
    capacity = config.capacity_bytes
    parts = []
    numbers: dict[str, float | int | None] = {"n_gpus": n}
    for scheme in SCHEMES:
        total = memories[scheme].total_at(n)
        numbers[f"{scheme.value}_bytes"] = float(total)
        if total <= capacity:
            parts.append(
                f"{SCHEME_LABELS[scheme]} fits with {format_bytes(capacity - total, unit)} to spare"
            )
        else:
            parts.append(
                f"{SCHEME_LABELS[scheme]} is {format_bytes(total - capacity, unit)} over"
            )
    counted = "model states and activations" if config.count_activations else "model states"
    text = f"At {gpus_words(n)} on a {card_text}, counting {counted}: {join_words(parts)}."
    return Finding("at_selected_n", capitalised(text), tuple(SCHEMES), numbers)


def _comm(config: Config) -> Finding:
    """The seed: "ZeRO-2 ... holds communication at 2P. ZeRO-3 ... pays 3P for every step. On
    NVLink that difference is 0.13 seconds; over InfiniBand it is 1.2." """
    v2 = comm_volume_bytes(config, Scheme.ZERO2)
    v3 = comm_volume_bytes(config, Scheme.ZERO3)
    extra = v3 - v2
    times = [(link, transfer_seconds(extra, link)) for link in config.links]
    per_link = join_words([f"{format_seconds(t)} on {link.label}" for link, t in times])
    text = (
        f"ZeRO-2 holds communication at {comm_param_multiple(Scheme.ZERO2)}Ψ, "
        f"{format_bytes(v2, Unit.GB, 0)} per GPU per step; ZeRO-3 pays "
        f"{comm_param_multiple(Scheme.ZERO3)}Ψ, {format_bytes(v3, Unit.GB, 0)}. The difference, "
        f"{format_bytes(extra, Unit.GB, 0)} every step, is {per_link}."
    )
    numbers: dict[str, float | int | None] = {
        "zero2_volume_bytes": float(v2),
        "zero3_volume_bytes": float(v3),
        "extra_bytes": float(extra),
    }
    numbers.update({f"extra_seconds_{link.id.value}": float(t) for link, t in times})
    return Finding("comm_difference", text, (Scheme.ZERO2, Scheme.ZERO3), numbers)


def crossover_seq_len(config: Config, state_bytes: Exact) -> int | None:
    """The smallest sequence length at which activations reach ``state_bytes`` (None beyond
    ``MAX_SEQ_LEN``). Activations are ``c1·s + c2·s²``, so the root has a closed form; the
    float estimate is then corrected against the exact polynomial."""
    polys = config_polynomials(config)
    c1 = sum(polys[c].linear for c in COMPONENTS)
    c2 = sum(polys[c].quadratic for c in COMPONENTS)

    def reaches(s: int) -> bool:
        return c1 * s + c2 * s * s >= state_bytes

    if reaches(1):
        return 1
    if c2 == 0:
        estimate = -(-state_bytes // c1)
    else:
        f1, f2, target = float(c1), float(c2), float(state_bytes)
        estimate = math.ceil((-f1 + math.sqrt(f1 * f1 + 4 * f2 * target)) / (2 * f2))
    if estimate > 2 * MAX_SEQ_LEN:
        return None
    s = max(1, estimate)
    while s > 1 and reaches(s - 1):
        s -= 1
    while not reaches(s):
        s += 1
    return s if s <= MAX_SEQ_LEN else None


def _activations(config: Config, memories) -> Finding:
    unit = config.unit
    acts = next(iter(memories.values())).activations.total
    crossings = {s: crossover_seq_len(config, memories[s].states.model_states.at(config.n_gpus)) for s in SCHEMES}
    how = STRATEGY_WORDS[config.strategy]
    text = (
        f"At {config.seq_len:,} tokens and micro-batch {config.micro_batch}, {how}"
        f"{' and FlashAttention' if config.flash_attention else ''}"
        f"{f', split {config.seq_parallel} ways by sequence parallelism' if config.seq_parallel > 1 else ''}"
        f", activations take {format_bytes(acts, unit)} per GPU under every scheme: ZeRO shards none of it."
    )
    parts = []
    for scheme in SCHEMES:
        crossing = crossings[scheme]
        label = SCHEME_LABELS[scheme]
        if crossing is None:
            parts.append(f"never below {MAX_SEQ_LEN:,} tokens for {label}")
        else:
            parts.append(f"from {crossing:,} tokens for {label}")
    text += (
        f" They overtake the model states at {gpus_words(config.n_gpus)} "
        f"{join_words(parts)}."
    )
    numbers: dict[str, float | int | None] = {"activation_bytes": float(acts)}
    numbers.update({f"{s.value}_crossover_seq_len": crossings[s] for s in SCHEMES})
    return Finding("activations_overtake", text, tuple(SCHEMES), numbers)


def _offload(config: Config, memories) -> Finding:
    unit = config.unit
    per_node = min(config.n_gpus, config.gpus_per_node)
    parts = []
    numbers: dict[str, float | int | None] = {"gpus_per_node": per_node}
    for scheme in SCHEMES:
        states = memories[scheme].states
        if states.offload is Offload.NONE:
            continue
        host = states.host.at(config.n_gpus) * per_node
        numbers[f"{scheme.value}_host_bytes_per_node"] = float(host)
        what = "optimizer states" if states.offload is Offload.OPTIMIZER else "parameters and optimizer states"
        parts.append(f"{SCHEME_LABELS[scheme]} needs {format_bytes(host, unit)} ({what})")
    text = (
        f"Offload moves state to host memory, which each node of {gpus_words(per_node)} must "
        f"hold: {join_words(parts)}. Data parallelism has no offload."
    )
    return Finding("offload_host_memory", text, tuple(s for s in SCHEMES if s is not Scheme.DP), numbers)


__all__ = ["Finding", "crossover_seq_len", "findings"]
