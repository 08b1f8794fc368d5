"""The installed CLI replays LoCoMo without the source tree's evals package."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from summem.formats.locomo import read_conversation
from tests.cli.test_app import locomo_sample


def test_locomo_replays_without_the_evals_package(tmp_path: Path) -> None:
    data = [locomo_sample("conv-1", "Ana", "Ben"), locomo_sample("conv-2", "Cy", "Di")]
    path = tmp_path / "locomo10.json"
    path.write_text(json.dumps(data))
    code = (
        "import sys\n"
        "class NoEvals:\n"  # an installed summem has no evals package: hide the source tree's
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'evals' or name.startswith('evals.'):\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, NoEvals())\n"
        "from summem.cli.app import main\n"
        f"main(['replay', {str(path)!r}, '--conversation', '1', '--store', 'memory://', "
        "'--json', '--threshold-tokens', '400', '--target-tokens', '250', "
        "'--summary-max-tokens', '100'])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120
    )
    assert out.returncode == 0, out.stderr[-2000:]
    report = json.loads(out.stdout)
    assert report["input"]["format"] == "locomo"
    assert report["input"]["messages"] == len(read_conversation(data[1], 1).turns)
    assert "evals" not in out.stderr


def test_the_cli_and_the_evals_read_the_same_messages() -> None:
    from evals.families.locomo import _conversation

    sample = locomo_sample("conv-9", "Eve", "Fox")
    evals_view = _conversation(0, sample, {})
    formats_view = read_conversation(sample, 0)
    assert evals_view.messages() == formats_view.messages()
    assert [m.id for m in evals_view.message_objects()] == [
        m.id for m in formats_view.message_objects()
    ]
