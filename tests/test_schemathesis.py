"""Schemathesis against the app in-process: every operation, positive and negative data, every
built-in check (issue 2). Any 500, any response off its documented schema, any schema-valid
query refused or schema-invalid query accepted fails the suite."""

from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import CHECKS, load_all_checks

from app.main import app

load_all_checks()
ALL_CHECKS = [check for check in CHECKS.get_all() if callable(check) and not isinstance(check, type)]
CONFIG = schemathesis.Config.from_path(Path(__file__).resolve().parent.parent / "schemathesis.toml")
schema = schemathesis.openapi.from_asgi("/api/v1/openapi.json", app, config=CONFIG)


def test_every_built_in_check_is_enabled():
    names = {check.__name__ for check in ALL_CHECKS}
    assert {"not_a_server_error", "response_schema_conformance", "negative_data_rejection",
            "positive_data_acceptance", "status_code_conformance"} <= names


@schema.parametrize()
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_conforms_to_its_openapi_document(case):
    case.call_and_validate(checks=ALL_CHECKS)
