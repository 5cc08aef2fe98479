"""The query contract: one model, canonical share links, lenient parsing for pages."""

import pytest
from pydantic import ValidationError

from app.schemas import MemoryQuery, lenient_query


def test_defaults_reproduce_the_first_seed():
    """DESIGN 3: 30B, 8 GPUs, mixed-precision Adam, an 80 GB card at 74.5 GiB, GiB display,
    model states only."""
    config = MemoryQuery().to_config()
    assert (config.params, config.n_gpus, config.recipe.id.value, config.card.id.value) == (
        30 * 10**9, 8, "adam-mixed", "80gb")
    assert config.capacity_bytes == 80 * 10**9
    assert (config.unit.value, config.count_activations) == ("GiB", False)


def test_canonical_omits_defaults_and_keeps_field_order():
    query = MemoryQuery.model_validate({"unit": "GB", "n": "64", "p": "70e9", "link": ["ib-ndr", "nvlink3"]})
    assert query.canonical() == "p=70B&n=64&unit=GB&link=ib-ndr&link=nvlink3"


def test_canonical_round_trips():
    query = MemoryQuery.model_validate({"p": "6.738415616B", "use": "0.8", "acts": "1", "ceil": ["v100-32", "h200-141"]})
    again = MemoryQuery.model_validate(_pairs_to_raw(query.canonical_items()))
    assert again == query


def _pairs_to_raw(pairs):
    raw = {}
    for key, value in pairs:
        if key in ("link", "ceil"):
            raw.setdefault(key, []).append(value)
        else:
            raw[key] = value
    return raw


def test_model_preset_sets_p_and_shape_and_keeps_the_link_short():
    query = MemoryQuery.model_validate({"model": "llama2-7b"})
    assert query.p == 6_738_415_616
    assert query.canonical() == "model=llama2-7b"
    config = query.to_config()
    assert (config.shape.shape.layers, config.shape.shape.vocab, config.shape.source.value) == (32, 32000, "preset")


def test_overrides_change_the_shape_and_say_so():
    config = MemoryQuery.model_validate({"model": "llama2-7b", "L": "64"}).to_config()
    assert config.shape.shape.layers == 64 and config.shape.source.value == "overridden"


def test_custom_recipe_bytes():
    config = MemoryQuery.model_validate({"w": "1", "k": "6"}).to_config()
    assert (config.recipe.weight_bytes, config.recipe.grad_bytes, config.recipe.optimizer_bytes) == (1, 2, 6)
    assert config.recipe.custom


def test_unknown_key_is_rejected_by_the_api_model():
    with pytest.raises(ValidationError) as err:
        MemoryQuery.model_validate({"zz": "1"})
    assert err.value.errors()[0]["type"] == "extra_forbidden"


def test_lenient_parsing_keeps_good_keys_and_reports_bad_ones():
    query, notices = lenient_query([("p", "7B"), ("n", "0"), ("zz", "1"), ("card", "h100-80"), ("link", "bad")])
    assert (query.p, query.n, query.card.value) == (7 * 10**9, 8, "h100-80")
    assert [n.key for n in notices] == ["zz", "n", "link"]
    assert notices[1].message == "n=0: below the minimum 1; the default is used"


def test_lenient_parsing_ignores_page_keys():
    query, notices = lenient_query([("view", "wall"), ("controls", "p")])
    assert query == MemoryQuery() and notices == []
