"""The ASGI application: the API, the pages, static files and the health check."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response

from app import __version__
from app.api import router as api_router
from app.api_models import Health
from app.pages import router as pages_router
from app.schemas import error_message
from app.security import install as install_security
from app.static_files import StaticAssets

DESCRIPTION = """
Per-GPU memory and per-step communication of data-parallel training under plain data
parallelism and ZeRO stages 1, 2 and 3, with activations, recomputation, sequence parallelism,
reversible layers and offload. Every figure is in bytes (or seconds); `units` says how the
explorer labels them. The query keys are those of the explorer's share links.
"""


def validation_errors(errors: list[dict[str, Any]]) -> dict[str, Any]:
    detail = []
    for error in errors:
        loc = [str(part) for part in error.get("loc", ())]
        key = loc[1] if len(loc) > 1 and loc[0] in ("query", "path") else (loc[0] if loc else "")
        detail.append(
            {
                "loc": loc,
                "key": key,
                "msg": error_message({**error, "loc": (key,)}),
                "type": error.get("type", ""),
                "input": jsonable_encoder(error.get("input")),
            }
        )
    return {"message": "; ".join(d["msg"] for d in detail), "detail": detail}


def create_app() -> FastAPI:
    app = FastAPI(
        title="Memory Wall",
        version=__version__,
        description=DESCRIPTION,
        openapi_url="/api/v1/openapi.json",
        docs_url="/api/docs",
        redoc_url=None,
        swagger_ui_oauth2_redirect_url=None,
    )
    assets = StaticAssets()
    app.state.assets = assets

    @app.exception_handler(RequestValidationError)
    async def on_validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse(validation_errors(list(exc.errors())), status_code=422)

    @app.get("/healthz", response_model=Health, operation_id="healthz", tags=["ops"])
    async def healthz() -> Response:
        """Liveness: the process answers."""
        return Response(
            b'{"status":"ok","version":"' + __version__.encode() + b'"}',
            media_type="application/json",
            headers={"Cache-Control": "no-store"},
        )

    # Routes are matched in order: the API (the view first) before pages and static files.
    app.include_router(api_router)
    app.include_router(pages_router)

    @app.get("/static/{path:path}", include_in_schema=False)
    async def static(request: Request, path: str) -> Response:
        return assets.response(request, path)

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon(request: Request) -> Response:
        # Browsers ask for it on every page that names no icon (JSON answers, say).
        return assets.response(request, f"{assets.tree_hash}/favicon.svg")

    install_security(app)
    return app


app = create_app()
