"""The README's key table is generated from the query contract and must not drift from it."""

from app.docs import README, keys_markdown, with_keys
from app.schemas import MemoryQuery


def test_readme_key_table_matches_the_query_schema():
    text = README.read_text()
    assert with_keys(text) == text, "README.md's key table is stale: run `python -m app.docs`"


def test_key_table_has_every_key_once():
    rows = [line for line in keys_markdown().splitlines()[2:]]
    keys = [row.split("`")[1] for row in rows]
    assert keys == list(MemoryQuery.model_fields)


def test_readme_shows_the_two_commands():
    text = README.read_text()
    assert "make run" in text and "make test" in text
