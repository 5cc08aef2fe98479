"""Each view's caption: what it assumes, in words, for the configuration on screen."""

from __future__ import annotations

from app.model.activations import STRATEGY_LABELS
from app.model.comm import comm_param_multiple
from app.model.config import Config
from app.model.curves import LADDER_GPUS, MAX_GPUS, SIZES_PARAMS
from app.model.findings import join_words
from app.model.report import Evaluation
from app.model.states import SCHEME_LABELS, SCHEMES
from app.model.units import Exact, format_bytes, format_param_count


def _number(value: Exact) -> str:
    return f"{float(value):g}"


def captions(evaluation: Evaluation) -> dict[str, str]:
    config: Config = evaluation.config
    recipe = config.recipe
    card = config.card
    per_param = " + ".join(_number(x) for x in (recipe.weight_bytes, recipe.grad_bytes, recipe.optimizer_bytes))
    model = f"{format_param_count(config.params)} parameters, {recipe.label} ({per_param} bytes per parameter)"
    basis = card.basis_used(config.basis).value
    fraction = f" × {_number(config.usable_fraction)}" if config.usable_fraction != 1 else ""
    card_text = (
        f"{card.label}, {format_bytes(config.capacity_bytes, config.unit)} counted ({basis} capacity{fraction})"
    )
    counted = "model states and activations" if config.count_activations else "model states only"
    shape = config.shape.shape
    acts = (
        f"{config.seq_len:,} tokens, micro-batch {config.micro_batch}, {STRATEGY_LABELS[config.strategy]}"
        f"{' with FlashAttention' if config.flash_attention else ''}"
        f"{f', sequence parallel ×{config.seq_parallel}' if config.seq_parallel > 1 else ''}"
        f"; shape L={shape.layers}, h={shape.hidden}, a={shape.heads}, v={shape.vocab:,} "
        f"({config.shape.source.value})"
    )
    n = f"{config.n_gpus:,}"
    ladder = join_words([str(g) for g in LADDER_GPUS])
    multiples = ", ".join(f"{SCHEME_LABELS[s]} {comm_param_multiple(s)}Ψ" for s in SCHEMES)
    sizes = f"{format_param_count(SIZES_PARAMS[0])} to {format_param_count(SIZES_PARAMS[-1])}"
    return {
        "ladder": f"Per-GPU memory for {model}, counting {counted}, at {ladder} GPUs (and the selected {n}). "
        f"✓ fits the {card_text}; ✗ does not.",
        "wall": f"The same four schemes on log-log axes from 1 to {MAX_GPUS:,} GPUs: {model}, counting {counted}. "
        f"Solid where a scheme fits the {card_text}, dashed where it does not; the faint dotted lines are "
        f"the replicated floors that no number of GPUs removes.",
        "pile": f"Model states (purple) and activations (amber) per GPU at {n} GPUs, stacked, against several "
        f"cards as ceilings. Activations: {acts}. ZeRO shards none of the amber.",
        "seq": "The pile of the selected scheme against sequence length: model states stay flat while "
        f"activations grow (linearly, and quadratically where s² attention tensors are kept). {acts}.",
        "sizes": f"Per-GPU memory of each scheme for models of {sizes} at {n} GPUs, counting {counted}, "
        f"against the {card_text}. Hatched bars do not fit.",
        "comm": f"Bytes each GPU moves per step ({multiples}; gathers at {_number(recipe.weight_bytes)} and "
        f"reductions at {_number(recipe.grad_bytes)} bytes per element), and the seconds that takes at "
        f"each link's per-direction bandwidth{', with the ring’s (N − 1)/N' if config.ring else ''}. "
        "No latency, no overlap with compute.",
        "findings": "What the numbers mean for this configuration, recomputed with every change.",
    }
