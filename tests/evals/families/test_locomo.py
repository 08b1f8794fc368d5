from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from evals.families.locomo import (
    CATEGORY_NAMES,
    Conversation,
    dia_id_of,
    load_audit_corrections,
    load_locomo,
    normalize_evidence,
    sanitize_name,
)
from summem.errors import ConfigurationError
from summem.messages import parse_messages

CANONICAL = re.compile(r"D[1-9]\d*:[1-9]\d*")

# Every malformed evidence string in locomo10.json (QA items and observations) and its fix.
MALFORMED = {
    "D8:6; D9:17": ["D8:6", "D9:17"],
    "D": [],
    "D:11:26": ["D11:26"],
    "D30:05": ["D30:5"],
    "D9:1 D4:4 D4:6": ["D9:1", "D4:4", "D4:6"],
    "D22:1 D22:2 D9:10 D9:11": ["D22:1", "D22:2", "D9:10", "D9:11"],
    "D21:18 D21:22 D11:15 D11:19": ["D21:18", "D21:22", "D11:15", "D11:19"],
    "D26:14, D26:34, D26:42": ["D26:14", "D26:34", "D26:42"],
    "D22:21, D22:23": ["D22:21", "D22:23"],
    "D22:10, D22:12": ["D22:10", "D22:12"],
    "D4:17, D4:19": ["D4:17", "D4:19"],
    "D12:12, D12:14, D12:16": ["D12:12", "D12:14", "D12:16"],
}


@pytest.mark.parametrize(("raw", "expected"), sorted(MALFORMED.items()))
def test_normalize_malformed_ids(raw: str, expected: list[str]) -> None:
    assert normalize_evidence([raw]) == expected
    assert normalize_evidence(raw) == expected


def test_normalize_keeps_order_and_drops_duplicates() -> None:
    assert normalize_evidence(["D2:3", "D1:4", "D2:3; D1:4", "D1:9"]) == ["D2:3", "D1:4", "D1:9"]
    assert normalize_evidence([]) == []


def test_sanitize_name() -> None:
    assert sanitize_name("Caroline") == "Caroline"
    assert sanitize_name(" Mary Jane O'Neil ") == "Mary_Jane_O_Neil"
    assert sanitize_name("???") == "speaker"
    assert len(sanitize_name("x" * 100)) == 64


# -- the real file ---------------------------------------------------------------------------


def raw_evidence_strings(path: Path) -> list[str]:
    data = json.loads(path.read_text(encoding="utf-8"))
    out = [str(e) for c in data for q in c["qa"] for e in q["evidence"]]
    for c in data:
        for session in c["observation"].values():
            for facts in session.values():
                for fact in facts:
                    ids = fact[1] if isinstance(fact[1], list) else [fact[1]]
                    out.extend(str(i) for i in ids)
    return out


def test_every_malformed_id_in_the_file_is_known_and_fixed(locomo_path: Path) -> None:
    found = {s for s in raw_evidence_strings(locomo_path) if not CANONICAL.fullmatch(s)}
    assert found == set(MALFORMED)


def test_shape_matches_the_release(locomo: list[Conversation]) -> None:
    assert len(locomo) == 10
    assert sum(len(c.session_dates) for c in locomo) == 272
    assert sum(len(c.turns) for c in locomo) == 5882
    qa = [q for c in locomo for q in c.qa]
    assert len(qa) == 1986
    assert Counter(q.category for q in qa) == {1: 282, 2: 321, 3: 96, 4: 841, 5: 446}
    assert {q.category_name for q in qa} == set(CATEGORY_NAMES.values())
    assert all(q.adversarial_answer for q in qa if q.category == 5)
    assert all(q.answer is not None for q in qa if q.category != 5)
    assert sum(len(c.observations) for c in locomo) == 2541


def test_evidence_is_canonical_and_names_real_turns(locomo: list[Conversation]) -> None:
    for conv in locomo:
        known = set(conv.dia_ids)
        for q in conv.qa:
            assert all(CANONICAL.fullmatch(e) and e in known for e in q.evidence)
    unknown = {q.qid: q.unknown_evidence for c in locomo for q in c.qa if q.unknown_evidence}
    assert unknown == {"locomo_3_qa58": ("D10:19",), "locomo_6_qa38": ("D4:36",)}
    no_evidence = [q.qid for c in locomo for q in c.qa if not q.evidence]
    assert no_evidence == ["locomo_0_qa30", "locomo_0_qa46", "locomo_9_qa39", "locomo_9_qa42"]
    fixed = {q.qid: q.evidence for c in locomo for q in c.qa}
    assert fixed["locomo_0_qa37"] == ("D8:6", "D9:17")
    assert fixed["locomo_4_qa18"][4] == "D11:26"
    assert fixed["locomo_9_qa69"] == ("D30:5",)


def test_turns_become_messages(locomo: list[Conversation]) -> None:
    conv = locomo[0]
    messages = conv.messages()
    assert len(messages) == len(conv.turns)
    parse_messages(messages)
    assert messages[0] == {
        "role": "user",
        "content": "[1:56 pm on 8 May, 2023] Hey Mel! Good to see you! How have you been?",
        "name": "Caroline",
    }
    assert messages[1]["role"] == "assistant"
    assert messages[1]["name"] == "Melanie"
    for turn, message in zip(conv.turns, messages, strict=True):
        assert message["role"] == ("user" if turn.speaker == conv.speaker_a else "assistant")
        assert message["content"].startswith(f"[{turn.date_time}] ") == turn.first_in_session
        if turn.caption:
            assert message["content"].endswith(f"[shares an image: {turn.caption}]")
    sessions = [t.session for t in conv.turns]
    assert sessions == sorted(sessions)
    assert sum(t.first_in_session for t in conv.turns) == len(conv.session_dates)
    assert [t.index for t in conv.turns] == list(range(len(conv.turns)))


def test_observations_are_ordered_and_tagged(locomo: list[Conversation]) -> None:
    for conv in locomo:
        pos = {t.dia_id: t.index for t in conv.turns}
        last = [max(pos[d] for d in o.dia_ids) for o in conv.observations]
        assert last == sorted(last)
    multi = [o for c in locomo for o in c.observations if len(o.dia_ids) > 1]
    assert len(multi) == 15


def test_audit_corrections(locomo_path: Path, audit_path: Path) -> None:
    corrections = load_audit_corrections(audit_path)
    assert len(corrections) == 57
    conversations = load_locomo(locomo_path, audit_path=audit_path)
    items = {q.qid: q for c in conversations for q in c.qa}
    assert sum(q.corrected for q in items.values()) == 57
    assert items["locomo_0_qa1"].evidence == ("D1:14",)
    assert items["locomo_0_qa1"].raw_evidence == ("D1:12",)
    assert not items["locomo_0_qa2"].corrected  # a HALLUCINATION entry, not a citation fix


def test_audit_for_another_file_is_refused(locomo_path: Path, tmp_path: Path) -> None:
    audit = tmp_path / "audit.json"
    audit.write_text(
        json.dumps(
            [
                {
                    "question_id": "locomo_0_qa1",
                    "question": "Something else?",
                    "error_type": "WRONG_CITATION",
                    "correct_evidence": ["D1:14"],
                }
            ]
        )
    )
    with pytest.raises(ValueError, match="does not match"):
        load_locomo(locomo_path, audit_path=audit)


def test_message_ids_map_back_to_turns(locomo: list[Conversation]) -> None:
    conv = locomo[0]
    objects = conv.message_objects(timestamp_key="timestamp")
    assert [dia_id_of(m.id) for m in objects] == list(conv.dia_ids)
    assert objects[0].id == "conv-26/D1:1"
    assert objects[0].to_openai()["timestamp"] == "1:56 pm on 8 May, 2023"
    assert "timestamp" not in conv.messages()[0]
    assert dia_id_of("m_0123") is None
    assert dia_id_of("x/D1:0") is None


def test_the_dataset_folder_or_file_is_read_and_bad_paths_say_why(
    locomo_path: Path, tmp_path: Path
) -> None:
    assert [c.sample_id for c in load_locomo(locomo_path.parent)] == [
        c.sample_id for c in load_locomo(locomo_path)
    ]
    with pytest.raises(FileNotFoundError, match=r"without locomo10\.json"):
        load_locomo(tmp_path)
    bad = tmp_path / "locomo10.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="not LoCoMo's JSON"):
        load_locomo(tmp_path)
    bad.write_text('{"a": 1}', encoding="utf-8")
    with pytest.raises(ConfigurationError, match="list of conversations"):
        load_locomo(bad)
