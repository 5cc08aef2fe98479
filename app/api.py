"""The JSON API, /api/v1: the model's answers for any configuration of the query contract.

Every GET is a pure function of the version, the path and the canonical query: it carries an
ETag, answers 304 to a matching If-None-Match before computing anything, and is cacheable by
any HTTP cache. Bodies are serialised straight from the model's report with orjson (numpy
arrays included), skipping a second validation pass; the tests hold them to the documented
response models instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response

from app import __version__
from app import api_models as out
from app.captions import captions
from app.csv_export import view_csv
from app.http_cache import BodyCache, Encoded, cached_response, cached_route_class
from app.model.activations import STRATEGY_HELP, Strategy
from app.model.cards import CARDS
from app.model.comm import LINKS
from app.model.recipes import RECIPES
from app.model.report import Evaluation
from app.model.shapes import PRESETS
from app.model.states import SCHEME_LABELS, SCHEME_SHARDS, SCHEMES
from app.schemas import MemoryQuery, View, key_table

cache = BodyCache()
router = APIRouter(prefix="/api/v1", tags=["model"], route_class=cached_route_class(cache))

Q = Annotated[MemoryQuery, Query()]
ERRORS: dict[int | str, dict[str, Any]] = {
    422: {"model": out.ValidationErrorResponse, "description": "A key is unknown or out of bounds."}
}


def dumps(data: Any) -> bytes:
    return orjson.dumps(data, option=orjson.OPT_SERIALIZE_NUMPY)


def envelope(query: MemoryQuery) -> dict[str, Any]:
    return {
        "query": query.model_dump(mode="json", exclude_none=True),
        "canonical": query.canonical(),
        "version": __version__,
    }


def answer(request: Request, query: MemoryQuery, build: Callable[[Evaluation], dict[str, Any]]) -> Response:
    """A cached JSON answer for ``query`` at this request's path."""

    key = f"{request.url.path}?{query.canonical()}"

    def encode() -> Encoded:
        evaluation = Evaluation(query.to_config())
        return Encoded.build(dumps({**envelope(query), **build(evaluation)}), "application/json", key)

    return cached_response(request, cache, key, encode)


def view_answer(evaluation: Evaluation) -> dict[str, Any]:
    """Everything a page view needs, captions included (the page embeds the same answer)."""
    return {**evaluation.view(), "captions": captions(evaluation)}


@router.get("/view", response_model=out.ViewResponse, operation_id="view", responses=ERRORS)
async def view(request: Request, query: Q) -> Response:
    """Everything a page view needs for a configuration, in one answer.

    Registered first: it is the route every page and drag asks for, and routes are matched in
    order."""
    return answer(request, query, view_answer)


@router.get("/memory", response_model=out.MemoryResponse, operation_id="memory", responses=ERRORS)
async def memory(request: Request, query: Q) -> Response:
    """Per-GPU bytes of every scheme at N, with fits, min_gpus, max_params and communication."""
    return answer(request, query, lambda e: {"units": e.units(), **e.memory()})


@router.get("/wall", response_model=out.WallResponse, operation_id="wall", responses=ERRORS)
async def wall(request: Request, query: Q) -> Response:
    """Per-GPU bytes against GPU count (1 to 16384), split where each scheme starts to fit."""
    return answer(request, query, lambda e: {"units": e.units(), **e.wall()})


@router.get("/ladder", response_model=out.LadderResponse, operation_id="ladder", responses=ERRORS)
async def ladder(request: Request, query: Q) -> Response:
    """The first seed's table: every scheme at 8, 16, 32 and 64 GPUs (and at N)."""
    return answer(request, query, lambda e: {"units": e.units(), **e.ladder()})


@router.get("/pile", response_model=out.PileResponse, operation_id="pile", responses=ERRORS)
async def pile(request: Request, query: Q) -> Response:
    """Model states and activations stacked per scheme, against several cards."""
    return answer(request, query, lambda e: {"units": e.units(), **e.pile()})


@router.get("/seq", response_model=out.SeqResponse, operation_id="seq", responses=ERRORS)
async def seq(request: Request, query: Q) -> Response:
    """Activations against sequence length (128 to 1,048,576 tokens) beside model states."""
    return answer(request, query, lambda e: {"units": e.units(), **e.seq()})


@router.get("/sizes", response_model=out.SizesResponse, operation_id="sizes", responses=ERRORS)
async def sizes(request: Request, query: Q) -> Response:
    """Per-GPU bytes of every scheme for models from 1B to 70B at N."""
    return answer(request, query, lambda e: {"units": e.units(), **e.sizes()})


@router.get("/comm", response_model=out.CommResponse, operation_id="comm", responses=ERRORS)
async def comm(request: Request, query: Q) -> Response:
    """Bytes each GPU moves per step, and the seconds that takes on each link."""
    return answer(request, query, lambda e: {"units": e.units(), **e.comm()})


@router.get("/findings", response_model=out.FindingsResponse, operation_id="findings", responses=ERRORS)
async def findings(request: Request, query: Q) -> Response:
    """What the numbers mean for this configuration, as data and as sentences."""
    return answer(request, query, lambda e: {"units": e.units(), "findings": e.findings()})


@router.get(
    "/csv/{name}",
    operation_id="csv",
    responses={200: {"content": {"text/csv": {}}, "description": "The view's data as CSV."}, **ERRORS},
    response_class=Response,
)
async def csv(
    request: Request, query: Q, name: Annotated[View, Path(description="Which view.")]
) -> Response:
    """One view's data as CSV, with bytes and the display unit in labelled columns."""

    key = f"{request.url.path}?{query.canonical()}"

    def encode() -> Encoded:
        report = {**envelope(query), **Evaluation(query.to_config()).view()}
        return Encoded.build(view_csv(name, report).encode(), "text/csv; charset=utf-8", key)

    disposition = {"Content-Disposition": f'attachment; filename="memory-wall-{name.value}.csv"'}
    return cached_response(request, cache, key, encode, extra_headers=disposition)


def catalog_data() -> dict[str, Any]:
    return {
        "version": __version__,
        "cards": [
            {"id": c.id.value, "label": c.label, "generation": c.generation,
             "marketed_bytes": c.marketed_bytes, "driver_bytes": c.driver_bytes, "source": c.source}
            for c in CARDS.values()
        ],
        "recipes": [
            {"id": r.id.value, "label": r.label, "weight_bytes": float(r.weight_bytes),
             "grad_bytes": float(r.grad_bytes), "optimizer_bytes": float(r.optimizer_bytes),
             "source": r.source}
            for r in RECIPES.values()
        ],
        "links": [
            {"id": link.id.value, "label": link.label,
             "bandwidth_bytes_per_s": link.bandwidth_bytes_per_s, "source": link.source}
            for link in LINKS.values()
        ],
        "presets": [
            {"id": p.id, "label": p.label, "params": p.params, "layers": p.shape.layers,
             "hidden": p.shape.hidden, "heads": p.shape.heads, "vocab": p.shape.vocab, "source": p.source}
            for p in PRESETS
        ],
        "schemes": [{"id": s.value, "label": SCHEME_LABELS[s], "shards": SCHEME_SHARDS[s]} for s in SCHEMES],
        "strategies": [{"id": s.value, "help": STRATEGY_HELP[s]} for s in Strategy],
        "keys": key_table(),
        "views": [v.value for v in View],
    }


@router.get("/catalog", response_model=out.CatalogResponse, operation_id="catalog")
async def catalog(request: Request) -> Response:
    """Cards, recipes, links, presets, schemes and every URL key with its bounds and help."""
    return cached_response(
        request, cache, "catalog", lambda: Encoded.build(dumps(catalog_data()), "application/json", "catalog")
    )
