"""Findings (DESIGN 2.6): the seed's sentences, computed."""

from app.model.activations import Strategy
from app.model.budget import config_polynomials, crossover_seq_len
from app.model.config import Config, resolve_shape
from app.model.curves import MAX_SEQ_LEN
from app.model.report import Evaluation
from app.model.states import Offload


def texts(config=None):
    return {f["kind"]: f for f in Evaluation(config or Config()).findings()}


def all_text(config=None):
    return " ".join(f["text"] for f in Evaluation(config or Config()).findings())


def test_seed1_never_fit_sentence():
    """Seed 1: "Data parallelism and ZeRO-1 never fit, at any number of GPUs. Both leave the
    weights and the gradients replicated on every card, which is four bytes per weight. Four
    bytes across 30 billion weights is 111.8 GiB, and that figure is the same on one card as
    on a thousand." """
    finding = texts()["never_fits"]
    assert finding["schemes"] == ["dp", "zero1"]
    assert finding["text"].startswith("Data parallelism and ZeRO-1 never fit, at any number of GPUs")
    assert (
        "Both leave the weights and the gradients replicated on every card, which is four bytes "
        "per weight. Four bytes across 30 billion weights is 111.8 GiB, and that figure is the "
        "same on one card as on a thousand." in finding["text"]
    )


def test_seed1_fits_from_sentences():
    """Seed 1: "ZeRO-2 fits from 32 GPUs upward. ZeRO-3 fits from 8." """
    text = all_text()
    assert "ZeRO-2 fits from 32 GPUs upward on the 8-16-32-64 ladder (21 exactly)." in text
    assert "ZeRO-3 fits from 8 GPUs upward on the 8-16-32-64 ladder (6 exactly)." in text


def test_seed1_twenty_billion_boundary_sentence():
    """Seed 1: "Four bytes per weight fills a 74.5 GiB card exactly at 20 billion parameters,
    so a 20B model sits on the boundary and our 30B model sits past it." """
    assert (
        "Four bytes per weight fills a 74.5 GiB card exactly at 20 billion parameters, so a 20B "
        "model sits on the boundary and this 30B model sits past it." in all_text()
    )


def test_seed1_communication_sentence():
    """Seed 1: ZeRO-2 at 2P, ZeRO-3 at 3P; "On NVLink that difference is 0.13 seconds; over
    InfiniBand it is 1.2." """
    finding = texts()["comm_difference"]
    assert "The difference, 60 GB every step, is 0.13 s on NVLink 4 (H100/H200) and 1.2 s on InfiniBand NDR." in finding["text"]
    assert finding["numbers"]["extra_bytes"] == 60e9


def test_zero1_at_10b_fits_and_the_findings_say_so():
    config = Config(params=10 * 10**9, shape=resolve_shape(10 * 10**9))
    kinds = texts(config)
    assert "zero1" not in kinds.get("never_fits", {"schemes": []})["schemes"]
    assert "ZeRO-1 fits from 8 GPUs upward on the 8-16-32-64 ladder (3 exactly)." in all_text(config)
    assert "this 10B model sits below it" in all_text(config)


def test_activation_crossover_is_the_first_length_where_activations_reach_states():
    config = Config(strategy=Strategy.SELECTIVE)
    states = 60 * 10**9  # ZeRO-3 at 8 GPUs
    s = crossover_seq_len(config_polynomials(config), states, MAX_SEQ_LEN)
    evaluation = Evaluation(config)
    assert s is not None
    from dataclasses import replace

    below = Evaluation(replace(config, seq_len=s - 1)).memories
    at = Evaluation(replace(config, seq_len=s)).memories
    key = next(iter(at))
    assert below[key].activations.total < states <= at[key].activations.total
    assert evaluation.seq()["crossover_seq_len"]["zero3"] == s


def test_offload_finding_reports_host_memory_per_node():
    finding = texts(Config(offload=Offload.OPTIMIZER))["offload_host_memory"]
    assert "Data parallelism has no offload." in finding["text"]
    # ZeRO-3 at 8 GPUs per node: (12 + 4) × 30e9 bytes over 8 GPUs, times 8 on the node.
    assert finding["numbers"]["zero3_host_bytes_per_node"] == 16 * 30e9
