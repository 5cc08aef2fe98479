"""app/model/ is pure: numpy and the standard library only (DESIGN 2)."""

import ast
import sys
from pathlib import Path

MODEL = Path(__file__).resolve().parents[2] / "app" / "model"
ALLOWED_THIRD_PARTY = {"numpy"}


def imported_roots(path: Path) -> set[str]:
    roots = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_model_imports_only_numpy_the_standard_library_and_itself():
    files = sorted(MODEL.glob("*.py"))
    assert len(files) >= 8
    for path in files:
        for root in imported_roots(path):
            if root == "app":
                continue
            assert root in sys.stdlib_module_names or root in ALLOWED_THIRD_PARTY, f"{path.name} imports {root}"


def test_model_modules_import_nothing_of_the_web_layer():
    for path in MODEL.glob("*.py"):
        text = path.read_text()
        for web in ("fastapi", "pydantic", "jinja2", "plotly", "starlette", "app.schemas", "app.api"):
            assert f"import {web}" not in text and f"from {web}" not in text, (path.name, web)


def test_the_import_check_catches_a_web_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from fastapi import FastAPI\nimport numpy as np\n")
    assert imported_roots(bad) == {"fastapi", "numpy"}
