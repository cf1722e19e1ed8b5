"""Checks on the container setup in docker/ (no Docker engine and no database needed).

The compose test runs Debian's ``docker-compose`` (v1.29) only to validate and normalise
docker/compose.yml; it never builds or starts anything. The variables come from an env file made
from docker/.env.example with generated secrets (as a firm fills it in), never from a developer's
docker/.env.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
from importlib.metadata import version
from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
COMPOSE_FILE = REPO_ROOT / "docker" / "compose.yml"
DOCKERFILE = REPO_ROOT / "docker" / "Dockerfile"
ENV_EXAMPLE = REPO_ROOT / "docker" / ".env.example"
# The variables compose.yml reads: a developer's shell must not supply them to the tests.
_COMPOSE_VARS = set(re.findall(r"\$\{(\w+)", COMPOSE_FILE.read_text(encoding="utf-8")))

SERVICES = {"web", "worker", "beat", "db", "redis", "qdrant"}
SHARED_ENV = ("DATABASE_URL", "REDIS_URL", "QDRANT_URL")


def filled_env_example(**values: str) -> dict[str, str]:
    """docker/.env.example as a firm fills it in: generated SECRET_KEY and QDRANT_API_KEY, the
    example's other values, then ``values`` (an empty string removes a variable)."""
    env: dict[str, str] = {}
    for line in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            env[name.strip()] = value.strip()
    env.update(SECRET_KEY=secrets.token_urlsafe(50), QDRANT_API_KEY=secrets.token_urlsafe(32))
    env.update(values)
    return {k: v for k, v in env.items() if v != "" or k not in values}


def run_compose_config(env_file: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess:
    exe = shutil.which("docker-compose")
    if exe is None:
        pytest.fail(
            "docker-compose is not installed, so docker/compose.yml cannot be validated. "
            "Install it with `apt-get install docker-compose` (the CI script does this)."
        )
    path = tmp_path / "compose.env"
    path.write_text("".join(f"{k}={v}\n" for k, v in env_file.items()), encoding="utf-8")
    # The shell's variables win over an env file: keep the compose file's own out of it.
    shell = {k: v for k, v in os.environ.items() if k not in env_file and k not in _COMPOSE_VARS}
    return subprocess.run(
        [exe, "--env-file", str(path), "-f", str(COMPOSE_FILE.relative_to(REPO_ROOT)), "config"],
        cwd=REPO_ROOT,
        env=shell,
        capture_output=True,
        text=True,
        timeout=120,
    )


def compose_config(tmp_path: Path, **values: str) -> dict:
    """``docker-compose config`` of docker/compose.yml with the filled-in .env.example."""
    result = run_compose_config(filled_env_example(**values), tmp_path)
    assert result.returncode == 0, (
        f"`docker-compose -f docker/compose.yml config` exited with {result.returncode}:\n"
        f"{result.stderr}{result.stdout}"
    )
    config = yaml.safe_load(result.stdout)
    assert isinstance(config, dict), f"unexpected config output:\n{result.stdout}"
    return config


def test_compose_config_is_valid_and_complete(tmp_path):
    config = compose_config(tmp_path)
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


@pytest.mark.parametrize("missing", ["SECRET_KEY", "QDRANT_API_KEY"])
def test_compose_refuses_to_start_without_a_secret(tmp_path, missing):
    """Before, a missing SECRET_KEY became "change-me" and the site started with it."""
    result = run_compose_config(filled_env_example(**{missing: ""}), tmp_path)
    assert result.returncode != 0, f"compose accepted a stack without {missing}"
    assert f"set {missing} in docker/.env" in result.stderr


def test_only_web_publishes_a_port(tmp_path):
    services = compose_config(tmp_path)["services"]
    published = {name for name, service in services.items() if service.get("ports")}
    assert published == {"web"}, f"services publishing ports: {sorted(published)}"
    assert all(not service.get("expose") for service in services.values())
    # On this host only, by default, for the TLS proxy in front of it.
    (port,) = services["web"]["ports"]
    assert str(port).startswith("127.0.0.1:8000:8000"), port


def test_backing_services_are_on_an_internal_network_only(tmp_path):
    config = compose_config(tmp_path)
    networks, services = config.get("networks") or {}, config["services"]
    internal = {name for name, net in networks.items() if (net or {}).get("internal")}
    assert internal, "no internal network"
    for name in ("db", "redis", "qdrant"):
        joined = set(services[name].get("networks") or {"default"})
        assert joined <= internal, (
            f"{name} is on {sorted(joined - internal)}, which is not internal"
        )
    for name in ("web", "worker", "beat"):
        joined = set(services[name].get("networks") or {"default"})
        assert joined & internal, f"{name} cannot reach the backing services"


def test_qdrant_requires_the_api_key_the_app_is_given(tmp_path):
    key = secrets.token_urlsafe(32)
    services = compose_config(tmp_path, QDRANT_API_KEY=key)["services"]
    assert services["qdrant"]["environment"].get("QDRANT__SERVICE__API_KEY") == key
    for name in ("web", "worker"):
        assert services[name]["environment"].get("QDRANT_API_KEY") == key, name


def test_qdrant_server_matches_the_client(tmp_path):
    """qdrant-client warns against (and may not work with) a server more than one minor release
    away; the image was v1.12 while the client is 1.20."""
    image = compose_config(tmp_path)["services"]["qdrant"]["image"]
    match = re.fullmatch(r"qdrant/qdrant:v(\d+)\.(\d+)\.(\d+)", image)
    assert match, f"pin an exact Qdrant release, not {image!r}"
    server = (int(match[1]), int(match[2]))
    client = tuple(int(part) for part in version("qdrant-client").split(".")[:2])
    assert server[0] == client[0] and abs(server[1] - client[1]) <= 1, (
        f"Qdrant server {image} does not match qdrant-client {version('qdrant-client')}"
    )


def test_web_and_worker_have_healthchecks(tmp_path):
    services = compose_config(tmp_path)["services"]
    web_test = " ".join(services["web"].get("healthcheck", {}).get("test") or [])
    assert "legalnav.core.healthcheck" in web_test, web_test
    worker_test = " ".join(services["worker"].get("healthcheck", {}).get("test") or [])
    assert "celery -A legalnav inspect ping" in worker_test, worker_test
    assert "celery@$$HOSTNAME" in worker_test or "celery@$HOSTNAME" in worker_test, worker_test
    # The web process refuses to run in production without these; compose passes them through.
    for name in ("web", "worker", "beat"):
        env = services[name]["environment"]
        assert env.get("DEBUG") == "0", name
        assert len(env.get("SECRET_KEY") or "") >= 50, name
