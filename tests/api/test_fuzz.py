"""Schemathesis against the running app: a live server on 127.0.0.1 with a member's token, every
operation of /api/openapi.json fuzzed (examples, coverage, fuzzing and stateful phases).

Checked: no server error, and responses that conform to the document (status codes, content
types, headers, body schemas), schema-violating input refused, undocumented methods refused,
authentication not ignored. Not checked: that every schema-valid request is accepted, since some
rules cannot be put in a schema (the file type is read from the name's extension; an amended
document must be in the same matter) and are refused with a 4xx on purpose.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from legalnav.api.tokens import api_token_create
from legalnav.documents.services import document_add
from legalnav.matters.models import Membership
from tests.api.conftest import add_indexed
from tests.conftest import MatterFactory, MembershipFactory


@pytest.mark.django_db(transaction=True)
def test_schemathesis_finds_no_server_error_and_no_schema_mismatch(live_server, tmp_path):
    matter = MatterFactory(name="Fuzzed")
    user = MembershipFactory(matter=matter, role=Membership.Role.OWNER).user
    add_indexed(matter)
    # A matter the token's user is not a member of, with a document: ids to stumble on.
    stranger = MatterFactory(name="Not yours")
    document_add(matter=stranger, filename="secret.txt", data=b"1. Secret terms.", enqueue=False)
    _, token = api_token_create(user=user, name="schemathesis")

    command = [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "run",
        f"{live_server.url}/api/openapi.json",
        "--header",
        f"Authorization: Bearer {token}",
        "--checks",
        "all",
        "--exclude-checks",
        "positive_data_acceptance",
        # Closing the matter would make every later write a (documented) 409 matter_closed and
        # leave the rest unfuzzed; tests/matters/test_life.py covers closing.
        "--exclude-operation-id",
        "matters_close",
        "--max-examples",
        "15",
        # A fixed seed: CI runs the same cases every time (a failure can be replayed); set
        # LEGALNAV_FUZZ_SEED to explore others.
        "--seed",
        os.environ.get("LEGALNAV_FUZZ_SEED", "262730068783153490174430669680743187316"),
        "--workers",
        "1",
        "--request-timeout",
        "120",
        "--max-response-time",
        "300",
    ]
    env = {**os.environ, "NO_COLOR": "1", "SCHEMATHESIS_HOOKS": ""}
    run = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=1200, env=env
    )
    report = run.stdout[-8000:] + run.stderr[-2000:]
    assert run.returncode == 0, report
    assert "Tested: 42" in run.stdout, report  # every operation was reached
    assert "Server error" not in run.stdout, report
