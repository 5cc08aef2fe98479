"""Each view's data as CSV: bytes as computed, plus the same figures in the display unit.

Column headers carry their unit, so a spreadsheet never has to guess.
"""

from __future__ import annotations

import csv
import io
from typing import Any

from app.schemas import View


def _unit_columns(units: dict[str, Any]) -> tuple[str, float]:
    return units["memory"], float(units["memory_bytes"])


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 2**63 else repr(value)
    return str(value)


def view_rows(view: View, report: dict[str, Any]) -> list[list[Any]]:
    """Header row first, then data rows, for one view of a full report (``Evaluation.view``)."""
    unit, unit_bytes = _unit_columns(report["units"])
    if view is View.LADDER:
        data = report["ladder"]
        rows: list[list[Any]] = [["scheme", "gpus", "bytes", f"{unit}", "fits"]]
        for scheme in data["schemes"]:
            for n, b, fit in zip(data["gpus"], scheme["bytes"], scheme["fits"]):
                rows.append([scheme["id"], n, b, round(b / unit_bytes, 3), fit])
        return rows
    if view is View.WALL:
        data = report["wall"]
        rows = [["scheme", "gpus", "bytes", f"{unit}", "fits"]]
        for scheme in data["schemes"]:
            for segment in scheme["segments"]:
                for n, b in zip(segment["gpus"], segment["bytes"]):
                    rows.append([scheme["id"], float(n), float(b), round(float(b) / unit_bytes, 3), segment["fits"]])
        return rows
    if view is View.PILE:
        data = report["pile"]
        names = list(data["schemes"][0]["components"])
        rows = [["scheme", *(f"{c}_bytes" for c in names), "total_bytes", f"total_{unit}"]
                + [f"fits_{c['id']}" for c in data["ceilings"]]]
        for scheme in data["schemes"]:
            rows.append(
                [scheme["id"], *(scheme["components"][c] for c in names), scheme["total"],
                 round(scheme["total"] / unit_bytes, 3)]
                + [c["fits"][scheme["id"]] for c in data["ceilings"]]
            )
        return rows
    if view is View.SEQ:
        data = report["seq"]
        schemes = list(data["model_states_bytes"])
        rows = [["seq_len", "activations_layers_bytes", "activations_working_bytes",
                 "activations_logits_bytes", "activations_total_bytes", f"activations_total_{unit}"]
                + [f"model_states_{s}_bytes" for s in schemes]]
        acts = data["activations"]
        for i, s in enumerate(data["seq_lens"]):
            total = float(data["activations_total"][i])
            rows.append(
                [int(s), float(acts["layers"][i]), float(acts["working"][i]), float(acts["logits"][i]),
                 total, round(total / unit_bytes, 3)]
                + [data["model_states_bytes"][x] for x in schemes]
            )
        return rows
    if view is View.SIZES:
        data = report["sizes"]
        rows = [["params", "scheme", "bytes", f"{unit}", "fits"]]
        for scheme in data["schemes"]:
            for p, b, fit in zip(data["params"], scheme["bytes"], scheme["fits"]):
                rows.append([p, scheme["id"], float(b), round(float(b) / unit_bytes, 3), fit])
        return rows
    if view is View.COMM:
        data = report["comm"]
        links = [link["id"] for link in data["links"]]
        rows = [["scheme", "param_multiple", "volume_bytes", "volume_GB"] + [f"seconds_{x}" for x in links]]
        for scheme in data["schemes"]:
            rows.append(
                [scheme["id"], scheme["param_multiple"], scheme["volume_bytes"],
                 round(scheme["volume_bytes"] / 1e9, 3)]
                + [scheme["seconds"][x] for x in links]
            )
        return rows
    rows = [["kind", "schemes", "text"]]
    for finding in report["findings"]:
        rows.append([finding["kind"], " ".join(finding["schemes"]), finding["text"]])
    return rows


def view_csv(view: View, report: dict[str, Any]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for row in view_rows(view, report):
        writer.writerow([_fmt(v) for v in row])
    return out.getvalue()
