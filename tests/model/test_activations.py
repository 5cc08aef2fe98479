"""Activations: Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
Transformer Models", Table 2 and section 5, with the DESIGN 2.3 strategies."""

from hypothesis import given
from hypothesis import strategies as st

from app.model.activations import Strategy, activation_bytes, activation_polynomials
from app.model.shapes import PRESETS_BY_ID, Shape

GPT3_175B = PRESETS_BY_ID["gpt3-175b"].shape


def per_layer(strategy, shape=GPT3_175B, s=2048, b=1, **kw):
    one_layer = Shape(1, shape.hidden, shape.heads, shape.vocab)
    acts = activation_bytes(seq_len=s, micro_batch=b, shape=one_layer, strategy=strategy, **kw)
    return acts.layers


def test_table2_store_everything_is_sbh_34_plus_5as_over_h():
    """Korthikanti Table 2, no parallelism: sbh(34 + 5as/h). GPT-3 175B at s=2048, b=1:
    2048·12288·(34 + 80) = 2,868,903,936 bytes per layer."""
    assert per_layer(Strategy.NONE) == 2048 * 12288 * (34 + 80) == 2_868_903_936


def test_selective_recomputation_saves_70_percent_for_gpt3_and_65_for_mt_nlg():
    """Korthikanti section 5: 5as/h is 80 for GPT-3 175B and 64 for MT-NLG 530B (a=128,
    h=20480), so selective recomputation cuts stored activations by 70% and 65%."""
    mt_nlg = Shape(105, 20480, 128, 51200)
    for shape, saving in ((GPT3_175B, 0.70), (mt_nlg, 0.65)):
        full = per_layer(Strategy.NONE, shape)
        selective = per_layer(Strategy.SELECTIVE, shape)
        assert round(1 - selective / full, 2) == saving


def test_full_recomputation_stores_2sbh_per_layer_plus_one_working_layer():
    """DESIGN 2.3: full recomputation keeps each layer's 16-bit input, 2sbh, and recomputes
    one layer (sbh(34 + 5as/h)) at a time in backward."""
    shape = GPT3_175B
    acts = activation_bytes(seq_len=2048, micro_batch=1, shape=shape, strategy=Strategy.FULL)
    assert acts.layers == 96 * 2 * 2048 * 12288
    assert acts.working == 2_868_903_936


def test_reversible_layers_do_not_grow_with_depth():
    """DESIGN 2.3: reversible layers keep a boundary state (2sbh) and one working layer,
    independent of L."""
    shallow = activation_bytes(seq_len=4096, micro_batch=2, shape=Shape(2, 4096, 32, 32000),
                               strategy=Strategy.REVERSIBLE)
    deep = activation_bytes(seq_len=4096, micro_batch=2, shape=Shape(200, 4096, 32, 32000),
                            strategy=Strategy.REVERSIBLE)
    assert shallow == deep
    assert shallow.layers == 2 * 4096 * 2 * 4096


def test_logits_are_fp32_4sbv_and_their_own_component():
    """DESIGN 2.3: the output layer's fp32 logits, 4·s·b·v (Llama 3's v = 128,256)."""
    shape = PRESETS_BY_ID["llama3.1-8b"].shape
    acts = activation_bytes(seq_len=8192, micro_batch=1, shape=shape, strategy=Strategy.FULL)
    assert acts.logits == 4 * 8192 * 128_256


def test_flash_attention_removes_every_s_squared_term():
    """FlashAttention keeps no s² tensors: store-everything drops to 34sbh per layer, the same
    as selective recomputation (Korthikanti Table 2's 34sbh row)."""
    flash = per_layer(Strategy.NONE, flash_attention=True)
    assert flash == 34 * 2048 * 12288 == per_layer(Strategy.SELECTIVE)


def test_sequence_parallelism_divides_everything_by_sp():
    shape = GPT3_175B
    one = activation_bytes(seq_len=2048, micro_batch=1, shape=shape, strategy=Strategy.NONE)
    eight = activation_bytes(seq_len=2048, micro_batch=1, shape=shape, strategy=Strategy.NONE,
                             seq_parallel=8)
    assert eight.total * 8 == one.total
    assert eight.logits * 8 == one.logits


shapes = st.builds(
    Shape,
    layers=st.integers(2, 256),
    hidden=st.integers(64, 65536),
    heads=st.integers(1, 256),
    vocab=st.integers(1000, 300_000),
)


@given(shape=shapes, s=st.integers(1, 2**20), b=st.integers(1, 64), sp=st.integers(1, 64),
       flash=st.booleans())
def test_store_everything_ge_selective_ge_full_ge_reversible(shape, s, b, sp, flash):
    """Property (issue 2): for L ≥ 2, store-everything ≥ selective ≥ full ≥ reversible."""
    totals = [
        activation_bytes(seq_len=s, micro_batch=b, shape=shape, strategy=strategy,
                         flash_attention=flash, seq_parallel=sp).total
        for strategy in (Strategy.NONE, Strategy.SELECTIVE, Strategy.FULL, Strategy.REVERSIBLE)
    ]
    assert totals == sorted(totals, reverse=True)


@given(shape=shapes, s=st.integers(1, 2**20), b=st.integers(1, 64),
       strategy=st.sampled_from(list(Strategy)))
def test_polynomials_agree_with_exact_bytes(shape, s, b, strategy):
    polys = activation_polynomials(micro_batch=b, shape=shape, strategy=strategy)
    acts = activation_bytes(seq_len=s, micro_batch=b, shape=shape, strategy=strategy)
    assert sum(p.at(s) for p in polys.values()) == acts.total
