import importlib
import subprocess
import sys

import pytest

import summem
import summem.errors

HOMES = (
    "summem.async_memory",
    "summem.clients",
    "summem.config",
    "summem.errors",
    "summem.events",
    "summem.integrations.agents",
    "summem.logs",
    "summem.memory",
    "summem.messages",
    "summem.observe",
    "summem.prompts",
    "summem.recall",
    "summem.reducers",
    "summem.retry",
    "summem.stores",
    "summem.summarizers",
    "summem.tokens",
    "summem.wrappers",
)
"""Where the names that are not at the top live (what users import from them)."""


def _isort_key(name: str) -> tuple[int, str]:
    """ruff's order for ``__all__`` (RUF022): CONSTANTS, then Classes, then the rest."""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, name


def test_the_top_level_stays_small() -> None:
    assert len(summem.__all__) <= 20, summem.__all__
    assert {"Memory", "AsyncMemory", "SummemError", "open_store", "wrap_openai"} <= set(
        summem.__all__
    )


@pytest.mark.parametrize("home", HOMES)
def test_each_home_exports_a_sorted_all_of_importable_names(home: str) -> None:
    module = importlib.import_module(home)
    names = list(module.__all__)
    assert names, home
    assert names == sorted(names, key=_isort_key), home
    assert len(set(names)) == len(names), home
    for name in names:
        assert getattr(module, name) is not None, f"{home}.{name}"
        assert name in dir(module), f"{home}.{name}"


def test_no_name_is_both_at_the_top_and_missing_from_its_home() -> None:
    """A name at the top is also importable from the package it belongs to."""
    for name in summem.__all__:
        if name == "__version__":
            continue
        value = getattr(summem, name)
        assert value.__module__.startswith("summem."), name
        homes = [h for h in HOMES if name in importlib.import_module(h).__all__]
        assert homes, f"{name} is at the top only"


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
    errors = [getattr(summem.errors, n) for n in summem.errors.__all__]
    assert len(errors) > 20 and all(issubclass(e, summem.SummemError) for e in errors)
    assert summem.SummemError is summem.errors.SummemError


@pytest.mark.parametrize(
    "imported",
    [
        "summem",
        "summem.clients, summem.errors, summem.events, summem.observe, summem.reducers, "
        "summem.summarizers, summem.recall",
    ],
)
def test_import_is_light(imported: str) -> None:
    code = (
        f"import sys, {imported}; "
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


def test_the_wrapper_import_path_loads_no_yaml() -> None:
    """``wrap_openai`` renders transcripts and answers recall without the prompt files: its
    import path loads neither yaml nor ``importlib.metadata`` (issue 34's cold start)."""
    code = (
        "import sys; from summem import Memory, SummarizationReducer, wrap_openai, "
        "wrap_completion; "
        "later = ('yaml', 'summem.prompts', 'importlib.metadata', 'asyncio', 'tiktoken', "
        "'pydantic', 'pydantic_core'); "
        "print([m for m in later if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_first_turn_loads_no_tokenizer() -> None:
    """A fresh process's first turns load no tokenizer encoding (the view is far below its
    threshold: an upper bound decides), nor asyncio, yaml, the store registry or the default
    summarizer (made when a memory first summarizes); reading ``size`` counts exactly."""
    code = (
        "import sys; from summem import Memory, SummarizationReducer, wrap_openai; "
        "m = Memory('c'); m.add({'role': 'system', 'content': 'Be brief.'}); "
        "m.add({'role': 'user', 'content': 'hello there'}); m.messages(); "
        "m.add({'role': 'assistant', 'content': 'Hi!'}); m.messages(); "
        "later = ('tiktoken', 'asyncio', 'yaml', 'importlib.metadata', 'socket', "
        "'summem.summarizers.extractive.summarizer', 'pydantic', 'pydantic_core'); "
        "print([n for n in later if n in sys.modules]); "
        "print(m.size, 'tiktoken' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded, sized = out.stdout.strip().splitlines()
    assert loaded == "[]"
    assert sized == "22 True"  # (3 + 1 + 3) + (3 + 1 + 2) + (3 + 1 + 2) + 3, exactly


def test_a_wrapped_clients_first_turn_loads_no_pydantic_yaml_or_tokenizer() -> None:
    """Through ``wrap_openai``, a fresh process's first turn (the new message recorded, the
    view sent, the reply recorded) loads neither pydantic (summem's messages are plain
    classes; the config and prompt files load it when used), nor yaml, nor a tokenizer (the
    reply carries its usage, as the API's does: without it the wrapper counts an estimate).
    The client answers with dicts, as one that is no openai SDK object may (the SDK itself
    is built on pydantic)."""
    code = (
        "import sys\n"
        "from types import SimpleNamespace as NS\n"
        "from summem import Memory, SummarizationReducer, wrap_openai\n"
        "def create(**kw):\n"
        "    reply = {'role': 'assistant', 'content': 'Hi! ' + str(len(kw['messages']))}\n"
        "    return {'id': 'r1', 'object': 'chat.completion', 'model': kw['model'],\n"
        "            'choices': [{'index': 0, 'finish_reason': 'stop', 'message': reply}],\n"
        "            'usage': {'prompt_tokens': 9, 'completion_tokens': 3, 'total_tokens': 12}}\n"
        "memory = Memory('c')\n"
        "client = wrap_openai(NS(chat=NS(completions=NS(create=create))), memory)\n"
        "messages = [{'role': 'system', 'content': 'Be brief.'},\n"
        "            {'role': 'user', 'content': 'hi'}]\n"
        "client.chat.completions.create(model='gpt-4o-mini', messages=messages)\n"
        "print([m['content'] for m in memory.messages()])\n"
        "later = ('pydantic', 'pydantic_core', 'yaml', 'tiktoken', 'importlib.metadata')\n"
        "print([n for n in later if n in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    view, loaded = out.stdout.strip().splitlines()
    assert view == "['Be brief.', 'hi', 'Hi! 2']"  # the reply to the view it was sent: recorded
    assert loaded == "[]"
