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


def test_a_memory_imports_only_what_a_turn_needs() -> None:
    """``from summem import Memory, SummarizationReducer`` leaves out what only recall,
    export and resume, ``record()``, Responses items, masking, the extractive summarizer (its
    prompts and YAML), store URLs and ``create`` need: they load on first use."""
    code = (
        "import sys; from summem import Memory, SummarizationReducer; "
        "later = ('yaml', 'summem.prompts', 'summem.summarizers.extractive.summarizer', "
        "'summem.recall.index', 'summem.session.export', 'summem.formats.responses', "
        "'summem.stores.url', 'summem._secrets', 'summem.session.recorded', "
        "'summem.reducers.records', 'summem.stores.common.new_session', "
        "'summem.summarizers.extractive.tool_facts'); "
        "print([m for m in later if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_lazy_module_attributes_load_on_use_and_refuse_unknown_names() -> None:
    import pytest

    import summem.summarizers.extractive as extractive
    import summem.summarizers.hooks as hooks
    from summem._secrets import redact_pii
    from summem.summarizers.extractive.summarizer import ExtractiveSummarizer

    assert extractive.ExtractiveSummarizer is ExtractiveSummarizer
    assert hooks.redact_pii is redact_pii
    for module in (extractive, hooks):
        with pytest.raises(AttributeError, match="no_such_name"):
            module.no_such_name  # noqa: B018
