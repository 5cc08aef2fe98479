"""What the numbers mean for a configuration, in the first seed's words, computed.

Each finding is data (a kind, the schemes it is about, the numbers behind it, in bytes,
GPUs, parameters, tokens or seconds) and the sentence a reader sees.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.model.activations import STRATEGY_LABELS
from app.model.budget import SchemeFacts, fill_params
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


def findings(config: Config, facts: dict[Scheme, SchemeFacts]) -> list[Finding]:
    """Every finding for ``config``, in reading order, from its precomputed ``facts``."""
    card_text = f"{format_bytes(config.capacity_bytes, config.unit)} card"
    out: list[Finding] = []
    never = [s for s in SCHEMES if facts[s].min_gpus is None]
    if never:
        out.append(_never_fits(config, facts, never, card_text))
    out.extend(_fits_from(s, facts[s].min_gpus) for s in SCHEMES if facts[s].min_gpus is not None)
    out.extend(_floor_fills(config, facts, card_text))
    out.append(_at_selected_n(config, facts, card_text))
    if config.links:
        out.append(_comm(config, facts))
    out.append(_activations(config, facts))
    if config.offload is not Offload.NONE:
        out.append(_offload(config, facts))
    return out


def _never_fits(config: Config, facts: dict[Scheme, SchemeFacts], never: list[Scheme], card_text: str) -> Finding:
    """The seed: "Data parallelism and ZeRO-1 never fit, at any number of GPUs. Both leave
    the weights and the gradients replicated on every card, which is four bytes per weight.
    Four bytes across 30 billion weights is 111.8 GiB, and that figure is the same on one
    card as on a thousand." The floor named is that of the most sharded scheme that fails."""
    unit = config.unit
    names = join_words([SCHEME_LABELS[s] for s in never])
    verb = "never fits" if len(never) == 1 else "never fit"
    text = f"{capitalised(names)} {verb}, at any number of GPUs, on a {card_text}."
    last = never[-1]
    memory = facts[last].memory
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


def _floor_fills(config: Config, facts: dict[Scheme, SchemeFacts], card_text: str) -> list[Finding]:
    """The seed: "Four bytes per weight fills a 74.5 GiB card exactly at 20 billion
    parameters, so a 20B model sits on the boundary and our 30B model sits past it." """
    out = []
    seen: set[Exact] = set()
    for scheme in SCHEMES:
        per_param = facts[scheme].per_param.fixed
        fill = fill_params(per_param, config.capacity_bytes)
        if fill is None or per_param in seen:
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


def _at_selected_n(config: Config, facts: dict[Scheme, SchemeFacts], card_text: str) -> Finding:
    n = config.n_gpus
    unit = config.unit
    capacity = config.capacity_bytes
    parts = []
    numbers: dict[str, float | int | None] = {"n_gpus": n}
    for scheme in SCHEMES:
        total = facts[scheme].total
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


def _comm(config: Config, facts: dict[Scheme, SchemeFacts]) -> Finding:
    """The seed: "ZeRO-2 ... holds communication at 2P. ZeRO-3 ... pays 3P for every step. On
    NVLink that difference is 0.13 seconds; over InfiniBand it is 1.2." """
    v2 = facts[Scheme.ZERO2].comm_volume
    v3 = facts[Scheme.ZERO3].comm_volume
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


def _activations(config: Config, facts: dict[Scheme, SchemeFacts]) -> Finding:
    unit = config.unit
    acts = facts[Scheme.DP].memory.activations.total
    crossings = {s: facts[s].crossover_seq_len for s in SCHEMES}
    how = STRATEGY_LABELS[config.strategy]
    text = (
        f"At {config.seq_len:,} tokens and micro-batch {config.micro_batch} ({how}"
        f"{', FlashAttention' if config.flash_attention else ''}"
        f"{f', sequence parallel ×{config.seq_parallel}' if config.seq_parallel > 1 else ''}"
        f"), activations take {format_bytes(acts, unit)} per GPU under every scheme: ZeRO shards none of it."
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


def _offload(config: Config, facts: dict[Scheme, SchemeFacts]) -> Finding:
    unit = config.unit
    per_node = min(config.n_gpus, config.gpus_per_node)
    parts = []
    numbers: dict[str, float | int | None] = {"gpus_per_node": per_node}
    for scheme in SCHEMES:
        states = facts[scheme].memory.states
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


__all__ = ["Finding", "findings"]
