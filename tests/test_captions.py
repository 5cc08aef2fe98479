"""Captions state each view's assumptions for the configuration on screen."""

from app.captions import captions
from app.model.report import Evaluation
from app.schemas import MemoryQuery, View


def caption(**keys) -> dict[str, str]:
    return captions(Evaluation(MemoryQuery.model_validate(keys).to_config()))


def test_every_view_has_a_caption():
    assert set(caption()) == {v.value for v in View}


def test_ladder_caption_names_model_recipe_accounting_and_card():
    text = caption()["ladder"]
    assert "30B parameters, mixed-precision Adam (2 + 2 + 12 bytes per parameter)" in text
    assert "counting model states only" in text
    assert "80 GB card, 74.5 GiB counted (marketed capacity)" in text


def test_card_caption_follows_basis_fraction_and_unit():
    text = caption(card="a100-80", basis="driver", use="0.8", unit="GB")["wall"]
    assert "A100 80GB, 68.7 GB counted (driver capacity × 0.8)" in text


def test_activation_captions_follow_strategy_and_shape():
    text = caption(model="llama2-7b", ac="selective", fa="1", sp="4", s="32768")["pile"]
    assert "32,768 tokens, micro-batch 1, selective recomputation with FlashAttention, sequence parallel ×4" in text
    assert "shape L=32, h=4096, a=32, v=32,000 (preset)" in text


def test_comm_caption_gives_each_schemes_multiple_and_the_ring():
    text = caption(ring="1")["comm"]
    assert "data parallelism 2Ψ, ZeRO-1 2Ψ, ZeRO-2 2Ψ, ZeRO-3 3Ψ" in text
    assert "(N − 1)/N" in text
