"""A tampered summary is refused by ``from_dict`` and by the stores' decoding, naming what is wrong.

A summary's role decides how much the model trusts it: one that became ``system`` would be a
second, privileged system message in the view. Its provenance must be consistent: each covered
message once, and never itself as the summary it replaced.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from summem import Memory, SummarizationReducer
from summem.errors import CorruptRecordError, StoreError
from summem.stores import InMemoryStore
from summem.stores.base import decode_message
from tests.fakes.counters import WordCounter
from tests.fakes.memory import small_reducer
from tests.fakes.messages import sys, turn
from tests.fakes.summarizers import FakeSummarizer


def exported(**reducer_args: Any) -> dict[str, Any]:
    if reducer_args:
        reducer = SummarizationReducer(
            FakeSummarizer(reply="fixed"),
            token_counter=WordCounter(),
            threshold_tokens=60,
            target_tokens=30,
            summary_max_tokens=5,
            **reducer_args,
        )
    else:
        reducer = small_reducer(FakeSummarizer(reply="fixed"))
    memory = Memory("s", reducer=reducer)
    memory.add(sys("be brief"))
    for i in range(9):
        memory.extend(turn(i))
    data: dict[str, Any] = json.loads(json.dumps(memory.to_dict()))
    assert data["summary"] is not None and data["summary"]["s"]["covered_ids"]
    return data


def refused(data: dict[str, Any], match: str, **kwargs: Any) -> None:
    store = InMemoryStore()
    with pytest.raises(StoreError, match=match):
        Memory.from_dict(data, store=store, **kwargs)
    assert store.list_sessions() == []


@pytest.mark.parametrize("role", ["system", "developer"])
def test_a_summary_that_became_a_system_message_is_refused(role: str) -> None:
    data = exported()
    assert data["summary"]["m"]["role"] == "user"
    data["summary"]["m"]["role"] = role
    refused(data, f"summary is a {role!r} message")
    # also when the caller brings its own reducer (one that writes user summaries)
    refused(data, f"summary is a {role!r} message", reducer=small_reducer())


def test_a_reducer_that_writes_system_summaries_resumes_its_own() -> None:
    data = exported(summary_role="system")
    assert data["summary"]["m"]["role"] == "system"
    resumed = Memory.from_dict(copy.deepcopy(data))
    assert resumed.summary is not None and resumed.summary.role == "system"


def test_duplicated_covered_ids_are_refused() -> None:
    data = exported()
    covered = data["summary"]["s"]["covered_ids"]
    covered.append(covered[0])
    refused(data, "covers .* twice")


def test_a_summary_naming_itself_as_its_previous_one_is_refused() -> None:
    data = exported()
    data["summary"]["s"]["previous_summary_id"] = data["summary"]["id"]
    refused(data, "names itself as the summary it replaced")


def test_a_summary_naming_a_history_message_as_its_previous_one_is_refused() -> None:
    data = exported()
    data["summary"]["s"]["previous_summary_id"] = data["history"][0]["id"]
    refused(data, "previous summary .* is a message of the history")


def test_the_stores_decoding_refuses_the_same_tampered_provenance() -> None:
    record = exported()["summary"]
    twice = copy.deepcopy(record)
    twice["s"]["covered_ids"] += twice["s"]["covered_ids"][:1]
    itself = copy.deepcopy(record)
    itself["s"]["previous_summary_id"] = itself["id"]
    for bad, reason in ((twice, "twice"), (itself, "names itself")):
        with pytest.raises(CorruptRecordError, match=reason):
            decode_message(json.dumps(bad), session_id="s", where="summary")
    assert decode_message(json.dumps(record), session_id="s").is_summary
