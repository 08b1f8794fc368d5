"""The real entry points: ``--help``/``--version`` without heavy imports, ``python -m summem``
and the installed console script, in subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_app import EXAMPLE, REPO, SMALL, run, transcript, write_json

# -- help and version -------------------------------------------------------------------------


def test_help_lists_the_commands() -> None:
    result = run("--help")
    assert result.exit_code == 0
    for command in ("replay", "sessions", "chat", "eval"):
        assert command in result.output
    assert "python -m evals.runners.locomo" in run("eval").output


def test_version() -> None:
    from summem import __version__

    result = run("--version")
    assert result.exit_code == 0
    assert __version__ in result.output


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["replay", "--help"]])
def test_help_and_version_import_nothing_heavy(args: list[str]) -> None:
    code = (
        "import sys\n"
        "from summem.cli.app import main\n"
        "try:\n"
        f"    main({args!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('litellm', 'openai', 'tiktoken', 'matplotlib', 'rich', 'redis', 'psycopg')\n"
        "print('LOADED', [m for m in heavy if m in sys.modules])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert "LOADED []" in out.stdout


@pytest.mark.parametrize("entry", ["import", "python -m summem --help", "summem --help"])
def test_the_cli_loads_only_itself(entry: str) -> None:
    """``import summem.cli`` and ``--help`` load the CLI's own modules and click, nothing else.

    What makes ``--help`` fast is what it does not import (the SDKs, pydantic, the stores):
    checked by module, not by timing, so the test does not depend on the machine's speed.
    """
    run_it = {
        "import": "import summem.cli\n",
        "python -m summem --help": (
            "import runpy\nrunpy.run_module('summem', run_name='__main__')\n"
        ),
        "summem --help": "from summem.cli.app import main\nmain()\n",
    }[entry]
    code = (
        "import atexit, sys\n"
        "sys.argv = ['summem', '--help']\n"
        "def report():\n"
        "    mods = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('summem', 'litellm', 'openai', 'redis', 'pydantic', 'tiktoken', 'rich', 'yaml'))\n"
        "    print('LOADED', ' '.join(mods))\n"
        "atexit.register(report)\n"
        "try:\n" + "".join(f"    {line}\n" for line in run_it.splitlines()) + ""
        "except SystemExit:\n"
        "    pass\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60
    )
    assert out.returncode == 0, out.stderr
    loaded = set(out.stdout.split("LOADED", 1)[1].split())
    allowed = {
        "summem",
        "summem._version",
        "summem._lazy",  # the top level's names load on first use through it
        "summem._secrets",
        "summem.errors",
        "summem.cli",
        "summem.cli.app",
        "summem.cli.common",
        "summem.__main__",
        "summem.logs",
    }
    assert loaded <= allowed, sorted(loaded - allowed)
    if entry != "import":
        assert "Usage: summem" in out.stdout


# -- the real entry points ----------------------------------------------------------------------


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env.update(LITELLM_LOCAL_MODEL_COST_MAP="True", COLUMNS="120")
    return env


@pytest.mark.skipif(not EXAMPLE.exists(), reason="examples/support-transcript.json not written yet")
def test_python_m_summem_replays_the_bundled_example(tmp_path: Path) -> None:
    out = tmp_path / "out"
    cmd = [
        sys.executable,
        "-m",
        "summem",
        "replay",
        "examples/support-transcript.json",
        "--config",
        "examples/summem.yaml",
        "--out",
        str(out),
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=_env(), timeout=120)
    assert done.returncode == 0, done.stderr
    assert "offline extractive summarizer" in done.stderr
    assert "Reductions" in done.stdout
    view = json.loads((out / "view.json").read_text())
    source = json.loads(EXAMPLE.read_text())["messages"]
    assert view[0] == source[0] and view[-1] == source[-1]
    summaries = [json.loads(line) for line in (out / "summaries.jsonl").read_text().splitlines()]
    assert summaries and summaries[-1]["message"] == view[1]
    assert all(s["provenance"]["covered_ids"] for s in summaries)


def test_the_console_script_answers_in_json(tmp_path: Path) -> None:
    script = Path(sys.executable).parent / "summem"
    if not script.exists():
        pytest.skip("the summem console script is not installed in this environment")
    source = write_json(tmp_path / "chat.json", transcript())
    cmd = [str(script), "replay", str(source), *SMALL, "--out", str(tmp_path / "out"), "--json"]
    done = subprocess.run(
        cmd, capture_output=True, text=True, cwd=tmp_path, env=_env(), timeout=120
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["totals"]["reductions"] >= 2
    assert doc["files"]["view"].endswith("view.json")
    bad = subprocess.run(
        [str(script), "replay", "missing.json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_env(),
        timeout=60,
    )
    assert bad.returncode == 2
    assert bad.stderr.strip() == "Error: missing.json: cannot read: No such file or directory"
