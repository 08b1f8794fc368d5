import subprocess
import sys

import summem


def test_all_is_sorted_and_complete() -> None:
    public = sorted(summem.__all__)
    assert summem.__all__ == public
    for name in summem.__all__:
        assert getattr(summem, name) is not None, name
    exported = {
        name
        for name, value in vars(summem).items()
        if not name.startswith("_") and getattr(value, "__module__", "").startswith("summem")
    }
    assert exported <= set(summem.__all__), exported - set(summem.__all__)


def test_every_exported_error_derives_from_the_root() -> None:
    errors = [getattr(summem, n) for n in summem.__all__ if n.endswith("Error")]
    assert errors and all(issubclass(e, summem.SummemError) for e in errors)


def test_import_is_light() -> None:
    code = (
        "import sys, summem; "
        "heavy = ('litellm', 'openai', 'matplotlib', 'redis', 'psycopg'); "
        "heavy = [m for m in heavy if m in sys.modules]; "
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
