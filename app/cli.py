"""The command line: ``memwall serve``, ``memwall table`` and ``memwall curve``.

Options map onto the query contract's keys, and ``--query`` takes any share link's query
string, so the command line answers exactly what the page and the API answer.
"""

from __future__ import annotations

import argparse
import sys
from urllib.parse import parse_qsl

from pydantic import ValidationError

from app.csv_export import view_csv
from app.model.curves import LADDER_GPUS, ladder
from app.model.report import Evaluation
from app.model.states import SCHEME_LABELS
from app.model.units import format_bytes
from app.schemas import MemoryQuery, View, error_message

SERVER_LOOP = "asyncio"
"""The event loop to serve with: under saturation uvloop answered some requests seconds late,
asyncio none beyond twice the median (README, Deployment)."""


def build_query(args: argparse.Namespace) -> MemoryQuery:
    raw: dict[str, object] = {}
    for key, value in parse_qsl(args.query or "", keep_blank_values=True):
        field = MemoryQuery.model_fields.get(key)
        if field is not None and getattr(field.annotation, "__origin__", None) is list:
            raw.setdefault(key, []).append(value)  # type: ignore[union-attr]
        else:
            raw[key] = value
    for option, key in (("params", "p"), ("unit", "unit"), ("card", "card"), ("opt", "opt")):
        value = getattr(args, option, None)
        if value is not None:
            raw[key] = value
    return MemoryQuery.model_validate(raw)


def parse_gpus(text: str) -> tuple[int, ...]:
    try:
        gpus = tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"--gpus={text}: expected whole numbers such as 8,16,32,64")
    if not gpus or any(n < 1 for n in gpus):
        raise argparse.ArgumentTypeError(f"--gpus={text}: every GPU count must be at least 1")
    return gpus


def table(query: MemoryQuery, gpus: tuple[int, ...]) -> str:
    """The first seed's ladder as a Markdown table, for any configuration."""
    evaluation = Evaluation(query.to_config())
    rows = ladder(evaluation.memories, gpus)
    unit = query.unit
    lines = [
        "| | " + " | ".join(f"{n:,} GPUs" for n in gpus) + " |",
        "|---|" + "---|" * len(gpus),
    ]
    for scheme, values in rows.items():
        lines.append(
            f"| {SCHEME_LABELS[scheme]} | " + " | ".join(format_bytes(v, unit) for v in values) + " |"
        )
    capacity = evaluation.capacity_bytes
    lines.append("")
    lines.append(f"A card holds {format_bytes(capacity, unit)} ({query.to_config().card.label}).")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="memwall", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="serve the explorer")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1)

    def config_options(sub: argparse.ArgumentParser) -> None:
        sub.add_argument("--params", help="model size p: 30e9, 30B, 350M, 1.5T")
        sub.add_argument("--unit", choices=["GiB", "GB"])
        sub.add_argument("--card", help="card id, e.g. 80gb, a100-80, h100-80")
        sub.add_argument("--opt", help="precision recipe, e.g. adam-mixed")
        sub.add_argument("--query", help="any other keys, as a share link's query string")

    tab = commands.add_parser("table", help="print the memory ladder")
    config_options(tab)
    tab.add_argument("--gpus", type=parse_gpus, default=LADDER_GPUS, help="GPU counts, e.g. 8,16,32,64")

    curve = commands.add_parser("curve", help="write one view's data")
    config_options(curve)
    curve.add_argument("--view", choices=[v.value for v in View], default=View.WALL.value)
    curve.add_argument("--csv", action="store_true", help="CSV (the only format so far)")

    args = parser.parse_args(argv)
    if args.command == "serve":
        import uvicorn

        uvicorn.run("app.main:app", host=args.host, port=args.port, workers=args.workers, loop=SERVER_LOOP)
        return 0
    try:
        query = build_query(args)
    except ValidationError as exc:
        for error in exc.errors():
            print(f"memwall: {error_message(error)}", file=sys.stderr)
        return 2
    if args.command == "table":
        print(table(query, args.gpus))
        return 0
    report = Evaluation(query.to_config()).view()
    sys.stdout.write(view_csv(View(args.view), {"units": report["units"], **report}))
    return 0
