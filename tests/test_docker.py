"""Checks on the container setup in docker/ (no Docker engine and no database needed).

The compose test runs Debian's ``docker-compose`` (v1.29) only to validate and normalise
docker/compose.yml; it never builds or starts anything.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
COMPOSE_FILE = REPO_ROOT / "docker" / "compose.yml"
DOCKERFILE = REPO_ROOT / "docker" / "Dockerfile"

SERVICES = {"web", "worker", "beat", "db", "redis", "qdrant"}
SHARED_ENV = ("DATABASE_URL", "REDIS_URL", "QDRANT_URL")


def _compose_config() -> dict:
    exe = shutil.which("docker-compose")
    if exe is None:
        pytest.fail(
            "docker-compose is not installed, so docker/compose.yml cannot be validated. "
            "Install it with `apt-get install docker-compose` (the CI script does this)."
        )
    result = subprocess.run(
        [exe, "-f", str(COMPOSE_FILE.relative_to(REPO_ROOT)), "config"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, (
        f"`docker-compose -f docker/compose.yml config` exited with {result.returncode}:\n"
        f"{result.stderr}{result.stdout}"
    )
    config = yaml.safe_load(result.stdout)
    assert isinstance(config, dict), f"unexpected config output:\n{result.stdout}"
    return config


def test_compose_config_is_valid_and_complete():
    config = _compose_config()
    services = config.get("services") or {}
    assert SERVICES <= set(services), f"missing services: {sorted(SERVICES - set(services))}"

    web, worker = services["web"], services["worker"]
    assert web.get("build"), "web must be built from the repository"
    assert web.get("build") == worker.get("build"), "web and worker must share one image build"
    assert web.get("image") == worker.get("image"), "web and worker must tag the same image"
    assert "celery -A legalnav worker" in str(worker.get("command"))
    # The job sweeper needs exactly one beat process for the deployment.
    assert "celery -A legalnav beat" in str(services["beat"].get("command"))
    assert services["beat"].get("image") == worker.get("image")

    for var in SHARED_ENV:
        web_value = (web.get("environment") or {}).get(var)
        assert web_value, f"web has no {var}"
        assert (worker.get("environment") or {}).get(var) == web_value, (
            f"worker's {var} differs from web's"
        )

    for name in ("db", "redis"):
        healthcheck = services[name].get("healthcheck") or {}
        assert healthcheck.get("test"), f"{name} has no healthcheck"
        assert (web.get("depends_on") or {}).get(name, {}).get("condition") == "service_healthy"


def test_dockerfile_installs_cpu_torch_first_and_runs_offline():
    text = DOCKERFILE.read_text(encoding="utf-8")
    # Only instructions, not comments, count.
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("#")]
    body = "\n".join(lines)

    torch = re.search(
        r"pip install[^\n]*torch==2\.13\.0[^\n]*--index-url https://download\.pytorch\.org/whl/cpu",
        body,
    )
    assert torch, "the Dockerfile must pip install torch==2.13.0 from the PyTorch CPU index"
    project = re.search(r"pip install \.(\s|$)", body)
    assert project, "the Dockerfile must `pip install .`"
    assert torch.start() < project.start(), "CPU torch must be installed before `pip install .`"

    assert re.search(r"^ENV\b[^\n]*(\\\n[^\n]*)*\bHF_HUB_OFFLINE=1\b", body, re.M), (
        "the Dockerfile must set HF_HUB_OFFLINE=1"
    )
