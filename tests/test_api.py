"""The JSON API (issue 2): answers, errors, caching headers and the OpenAPI document."""

import json
import math

import pytest

from app import api_models as out

VIEW_MODELS = {
    "memory": out.MemoryResponse,
    "wall": out.WallResponse,
    "ladder": out.LadderResponse,
    "pile": out.PileResponse,
    "seq": out.SeqResponse,
    "sizes": out.SizesResponse,
    "comm": out.CommResponse,
    "findings": out.FindingsResponse,
    "view": out.ViewResponse,
}


def test_healthz(client):
    r = client.get("/healthz")
    assert r.status_code == 200
    assert r.json()["status"] == "ok"


def test_memory_reproduces_seed1_at_defaults(client):
    """Seed 1 through the API: 30B, 8 GPUs, 80 GB card; ZeRO-3 alone fits."""
    r = client.get("/api/v1/memory")
    assert r.status_code == 200
    body = r.json()
    assert body["card"] == {
        "id": "80gb", "label": "80 GB card", "generation": "generic", "marketed_bytes": 80_000_000_000,
        "driver_bytes": None, "basis": "marketed", "usable_fraction": 1.0, "capacity_bytes": 80e9,
    }
    schemes = {s["id"]: s for s in body["schemes"]}
    assert list(schemes) == ["dp", "zero1", "zero2", "zero3"]
    assert {k: round(v["bytes"]["total"] / 2**30, 1) for k, v in schemes.items()} == {
        "dp": 447.0, "zero1": 153.7, "zero2": 104.8, "zero3": 55.9}
    assert {k: v["fits"] for k, v in schemes.items()} == {"dp": False, "zero1": False, "zero2": False, "zero3": True}
    assert {k: v["min_gpus"] for k, v in schemes.items()} == {"dp": None, "zero1": None, "zero2": 21, "zero3": 6}
    assert schemes["zero1"]["floor_bytes"] == 120e9
    assert schemes["zero3"]["comm"]["volume_bytes"] - schemes["zero2"]["comm"]["volume_bytes"] == 60e9
    assert schemes["zero3"]["max_params"] == 40_000_000_000
    assert set(schemes["zero3"]["bytes"]) == {"weights", "gradients", "optimizer", "model_states", "activations", "total"}


@pytest.mark.parametrize("p", ["30e9", "30B", "30b", "30000000000", "3e10", "0.03T", "30000M"])
def test_p_spellings_are_one_configuration(client, p):
    r = client.get(f"/api/v1/memory?p={p}")
    assert r.status_code == 200
    assert r.json()["query"]["p"] == 30_000_000_000
    assert r.json()["canonical"] == ""


@pytest.mark.parametrize(("p", "value"), [("350M", 350_000_000), ("1.5T", 1_500_000_000_000)])
def test_p_suffixes(client, p, value):
    assert client.get(f"/api/v1/memory?p={p}").json()["query"]["p"] == value


@pytest.mark.parametrize(
    ("query", "key", "fragment"),
    [
        ("p=nan", "p", "p=nan: expected a parameter count"),
        ("p=inf", "p", "p=inf: expected a parameter count"),
        ("p=-inf", "p", "p=-inf"),
        ("p=1e400", "p", "p=1e400: out of range, must be at least 1M (1000000) and below 1000T"),
        ("p=-5", "p", "p=-5"),
        ("p=0", "p", "p=0: out of range"),
        ("p=5000T", "p", "p=5000T"),
        ("n=0", "n", "n=0: below the minimum 1"),
        ("n=-3", "n", "n=-3: below the minimum 1"),
        ("n=16385", "n", "n=16385: above the maximum 16384"),
        ("n=nan", "n", "n=nan"),
        ("s=0", "s", "s=0: below the minimum 1"),
        ("s=99999999999", "s", "above the maximum 1048576"),
        ("use=0", "use", "use=0: below the minimum 0.1"),
        ("use=1.5", "use", "use=1.5: above the maximum 1.0"),
        ("use=nan", "use", "use=nan"),
        ("use=inf", "use", "use=inf"),
        ("w=0", "w", "w=0: below the minimum 0.125"),
        ("card=h300", "card", "card=h300: not one of '80gb'"),
        ("opt=lion", "opt", "opt=lion: not one of 'adam-mixed'"),
        ("ac=sometimes", "ac", "ac=sometimes: not one of 'none', 'selective', 'full' or 'reversible'"),
        ("off=disk", "off", "off=disk: not one of 'none', 'optimizer' or 'params'"),
        ("link=carrier-pigeon", "link", "link=carrier-pigeon: not one of 'nvlink3'"),
        ("unit=MB", "unit", "unit=MB: not one of 'GiB' or 'GB'"),
        ("zz=1", "zz", "zz=1: unknown key"),
    ],
)
def test_bad_input_is_a_422_naming_key_value_and_bound(client, query, key, fragment):
    r = client.get(f"/api/v1/memory?{query}")
    assert r.status_code == 422
    body = r.json()
    assert [d["key"] for d in body["detail"]] == [key]
    assert fragment in body["message"]


def test_several_bad_keys_are_all_reported(client):
    r = client.get("/api/v1/view?n=0&card=h300&zz=1")
    assert r.status_code == 422
    assert sorted(d["key"] for d in r.json()["detail"]) == ["card", "n", "zz"]


def _numbers(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _numbers(v)
    elif isinstance(value, list):
        for v in value:
            yield from _numbers(v)
    elif isinstance(value, float):
        yield value


@pytest.mark.parametrize(
    "query",
    [
        "",
        "p=2T&n=16384&acts=1&s=1048576&b=1024&ac=none",
        "p=1M&n=1&use=0.1&opt=adam-fp32&off=params&ring=1",
        "p=999.999T&n=1&w=64&g=64&k=64&L=1024&h=262144&a=4096&v=4194304&s=1048576&b=1024",
        "p=1M&w=0.125&g=0.125&k=0&L=1&h=1&a=1&v=1&s=1&sp=1024",
    ],
)
def test_extremes_give_finite_numbers_everywhere(client, query):
    r = client.get(f"/api/v1/view?{query}")
    assert r.status_code == 200
    text = r.text
    assert "NaN" not in text and "Infinity" not in text
    assert all(math.isfinite(x) for x in _numbers(json.loads(text)))
    out.ViewResponse.model_validate(r.json())


@pytest.mark.parametrize("name", list(VIEW_MODELS))
def test_every_view_matches_its_response_model(client, name):
    r = client.get(f"/api/v1/{name}?acts=1&off=optimizer&ring=1&link=nvlink3&link=eth100")
    assert r.status_code == 200
    VIEW_MODELS[name].model_validate(r.json())


def test_etag_304_cache_control_and_gzip(client):
    r = client.get("/api/v1/view?p=7B", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200
    assert r.headers["content-encoding"] == "gzip"
    assert r.headers["cache-control"] == "public, max-age=3600"
    assert "Accept-Encoding" in r.headers["vary"]
    etag = r.headers["etag"]
    again = client.get("/api/v1/view?p=7000000000", headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.content == b""
    other = client.get("/api/v1/view?p=8B", headers={"If-None-Match": etag})
    assert other.status_code == 200 and other.headers["etag"] != etag


def test_identical_queries_give_identical_bytes(client):
    a = client.get("/api/v1/view?n=64&p=70B", headers={"Accept-Encoding": "identity"}).content
    b = client.get("/api/v1/view?p=70e9&n=64", headers={"Accept-Encoding": "identity"}).content
    assert a == b


def test_enumerated_keys_are_enums_in_the_openapi_document(client):
    doc = client.get("/api/v1/openapi.json").json()
    params = {p["name"]: p["schema"] for p in doc["paths"]["/api/v1/memory"]["get"]["parameters"]}
    schemas = doc["components"]["schemas"]

    def enum_of(schema):
        schema = schema.get("items", schema)
        ref = schema.get("$ref") or next(o["$ref"] for o in schema.get("anyOf", []) if "$ref" in o)
        return schemas[ref.rsplit("/", 1)[-1]]["enum"]

    assert enum_of(params["unit"]) == ["GiB", "GB"]
    assert enum_of(params["ac"]) == ["none", "selective", "full", "reversible"]
    assert "h100-80" in enum_of(params["card"])
    assert "adam-mixed" in enum_of(params["opt"])
    assert enum_of(params["off"]) == ["none", "optimizer", "params"]
    assert "ib-ndr" in enum_of(params["link"])
    assert params["n"]["maximum"] == 16384


def test_docs_and_stable_operation_ids(client):
    assert client.get("/api/docs").status_code == 200
    doc = client.get("/api/v1/openapi.json").json()
    ids = {op["operationId"] for path in doc["paths"].values() for op in path.values()}
    assert {"memory", "wall", "ladder", "pile", "seq", "sizes", "comm", "findings", "view", "csv", "catalog", "healthz"} <= ids


def test_catalog_lists_cards_recipes_links_presets_and_keys(client):
    body = client.get("/api/v1/catalog").json()
    out.CatalogResponse.model_validate(body)
    assert {c["id"] for c in body["cards"]} >= {"v100-16", "v100-32", "a100-40", "a100-80", "h100-80", "h200-141", "b200-180", "mi300x-192", "80gb"}
    keys = {k["key"]: k for k in body["keys"]}
    assert keys["n"]["bounds"] == "1 ≤ x ≤ 16,384"
    assert keys["p"]["default"] == "30B"


def test_csv_ladder_is_the_seed_table_in_bytes_and_gib(client):
    r = client.get("/api/v1/csv/ladder")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/csv")
    assert 'filename="memory-wall-ladder.csv"' in r.headers["content-disposition"]
    lines = r.text.splitlines()
    assert lines[0] == "scheme,gpus,bytes,GiB,fits"
    assert "zero2,32,73125000000,68.103,yes" in lines


def test_csv_unknown_view_is_a_422(client):
    r = client.get("/api/v1/csv/everything")
    assert r.status_code == 422
    assert r.json()["detail"][0]["key"] == "name"


def test_gzip_body_decompresses_to_the_identity_body(client):
    raw = client.get("/api/v1/wall", headers={"Accept-Encoding": "identity"})
    packed = client.get("/api/v1/wall", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in raw.headers
    assert packed.headers["content-encoding"] == "gzip"
    # TestClient decompresses transparently; compare the decoded JSON.
    assert packed.json() == raw.json()
    assert int(packed.headers["content-length"]) < len(raw.content) / 3
