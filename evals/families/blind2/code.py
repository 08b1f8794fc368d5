"""A coding-assistant session: names decided early and referred to much later, never repeated.

Plants ``facts`` facts in a long session in one repository. Most are decisions or findings
that later turns lean on: a module path the user picks, a helper the assistant names, the
error message a test run prints, a branch, an environment variable, a database table, a
command-line flag, a ticket, a pinned version, the address a dev server prints. Each is
stated once (by the user, by the assistant, or in a tool result), and one or more later turns
(5 to 120 turns on) refer to it without naming it ("that KeyError is back", "add a docstring
to the helper you wrote", "push to the branch"). A few of the names are changed later ("call
it ... instead"): those are corrections whose ``stale`` is the old name. Between them: test
runs, ``git status``, lint output, files shown, stack traces and diffs full of other paths,
names and errors of the same shapes, and some small talk. Scored by the trajectories runner:
kind ``code`` (paths, names, errors, flags...) or ``value`` (versions, addresses), in view
after 1, 3 and 10 reductions and at the end; renames also in ``stale`` and ``stale only``.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from dataclasses import dataclass

from evals.families.blind2.base import Writer, pick_turns
from evals.families.facts import FactKind

__all__ = ["DECISIONS", "write"]

VERBS = ("parse", "coerce", "normalise", "resolve", "load", "build", "render", "compute",
         "merge", "split", "validate", "fetch", "apply", "reconcile", "flush", "stamp")  # fmt: skip
NOUNS = ("locale", "tag", "invoice", "rate", "vat", "tenant", "slug", "ledger", "batch", "row",
         "header", "currency", "window", "quota", "webhook", "retry", "cursor", "token", "payout",
         "refund", "dialect", "schedule", "receipt", "discount", "region", "shard")  # fmt: skip
DIRS = ("ingest", "billing", "api", "core", "exports", "jobs", "adapters", "reports")
LIBS = ("httpx", "pydantic", "sqlalchemy", "celery", "boto3", "structlog", "alembic", "redis")
PROJECTS = ("ledgerline", "tidemark", "paperkite", "quaystone")


class Repo:
    """Names of the shapes this repository has; ``fresh`` for planted ones, loose for filler."""

    def __init__(self, w: Writer) -> None:
        self.w = w
        self.pkg = w.rng.choice(PROJECTS)

    def make(self, shape: str) -> str:
        r = self.w.rng
        a, b = r.sample(NOUNS, 2)
        if shape == "func":
            return f"{'_' if r.random() < 0.4 else ''}{r.choice(VERBS)}_{a}_{b}"
        if shape == "path":
            return f"src/{self.pkg}/{r.choice(DIRS)}/{a}_{b}.py"
        if shape == "error":
            kind = r.choice(("KeyError", "AttributeError", "ValueError"))
            if kind == "KeyError":
                return f"KeyError: '{a}_{b}'"
            if kind == "AttributeError":
                return f"AttributeError: 'NoneType' object has no attribute '{a}_{b}'"
            return (
                f"ValueError: unknown {a} code '{r.choice('ABCDEFGHKMNPRSTX')}{r.randint(10, 99)}'"
            )
        if shape == "branch":
            return f"{r.choice(('fix', 'feat', 'chore'))}/{a}-{b}-{r.randint(100, 4999)}"
        if shape == "env":
            return f"{self.pkg.upper()}_{a.upper()}_{b.upper()}"
        if shape == "table":
            return f"{a}_{b}s"
        if shape == "flag":
            return f"--{a}-{b}"
        if shape == "ticket":
            return f"{r.choice(('BILL', 'OPS', 'PAY', 'CORE'))}-{r.randint(1000, 9999)}"
        if shape == "pin":
            return f"{r.choice(LIBS)}=={r.randint(0, 4)}.{r.randint(1, 40)}.{r.randint(0, 12)}"
        if shape == "addr":
            return f"http://127.0.0.1:{r.randint(5000, 9899)}"
        raise KeyError(shape)

    def planted(self, shape: str) -> str:
        return self.w.fresh(lambda: (self.make(shape), ()))[0]

    def filler(self, shape: str) -> str:
        return self.w.loose(lambda: self.make(shape))


@dataclass(frozen=True)
class Decision:
    """A kind of name decided or found: who states it, how, how later turns point back at it."""

    shape: str
    kind: FactKind
    state: Callable[[Writer, Repo, str], int]
    later: tuple[str, ...]
    rename: tuple[str, ...] = ()


def _user(frames: tuple[str, ...], acks: tuple[str, ...]) -> Callable[[Writer, Repo, str], int]:
    def state(w: Writer, repo: Repo, v: str) -> int:
        where = w.say("user", w.rng.choice(frames).format(v=v))
        w.say("assistant", w.rng.choice(acks))
        return where

    return state


def _assistant(
    asks: tuple[str, ...], frames: tuple[str, ...]
) -> Callable[[Writer, Repo, str], int]:
    def state(w: Writer, repo: Repo, v: str) -> int:
        w.say("user", w.rng.choice(asks))
        where = w.say("assistant", w.rng.choice(frames).format(v=v))
        if w.rng.random() < 0.6:
            w.say("user", w.rng.choice(("ok", "sounds good", "fine", "👍", "sure, go")))
            w.say(
                "assistant",
                w.rng.choice(("Done.", "Written, tests pass.", "Pushed to your working tree.")),
            )
        return where

    return state


def _error(w: Writer, repo: Repo, v: str) -> int:
    r = w.rng
    w.say("user", r.choice(("run the tests", "why is CI red?", "try the import job locally")))
    test = f"tests/{r.choice(DIRS)}/test_{repo.filler('func').lstrip('_')}.py"
    trace = [
        "Traceback (most recent call last):",
        f'  File "{repo.filler("path")}", line {r.randint(20, 400)}, in {repo.filler("func")}',
        f"    {r.choice(('row', 'item', 'rec'))} = {repo.filler('func')}(payload)",
        f'  File "{repo.filler("path")}", line {r.randint(20, 400)}, in {repo.filler("func")}',
        "    return lookup[key]",
        v,
    ]
    out = f"{test}::test_{r.choice(('happy_path', 'edge_cases', 'roundtrip', 'empty'))} FAILED\n"
    out += (
        "\n".join(trace)
        + f"\n{r.randint(1, 3)} failed, {r.randint(40, 480)} passed"
        + f" in {r.randint(2, 90)}.{r.randint(10, 99)}s"
    )
    where = w.call("shell", {"cmd": f"pytest {test} -x -q"}, out)
    w.say("assistant", r.choice(("One failure, the payload lacks a field.", "A lookup fails.")))
    return where


def _server(w: Writer, repo: Repo, v: str) -> int:
    r = w.rng
    w.say("user", r.choice(("start the dev server", "spin up the api locally so I can poke it")))
    out = "\n".join(
        (
            f"INFO:     Started server process [{r.randint(2000, 60000)}]",
            "INFO:     Waiting for application startup.",
            "INFO:     Application startup complete.",
            f"INFO:     Uvicorn running on {v} (Press CTRL+C to quit)",
        )
    )
    where = w.call("shell", {"cmd": f"uvicorn {repo.pkg}.api.app:app --reload"}, out)
    w.say("assistant", "It's up.")
    return where


DECISIONS = (
    Decision(
        "path",
        "code",
        _user(
            (
                "Let's put the new parser in {v}, it doesn't belong in utils.",
                "new module please: {v}. keep it small",
                "I'd like the reconciliation code to live in {v} rather than in utils.",
            ),
            ("Created it with a stub and a test file.", "Okay, new module created."),
        ),
        (
            "add a test for the empty-file case in that new module",
            "the module we created at the start, move the constants to the top of it",
            "does the new module have type hints everywhere? fix it if not",
        ),
        ("actually rename the module to {v}, the old name was confusing",),
    ),
    Decision(
        "func",
        "code",
        _assistant(
            (
                "write a helper that turns '  en_gb ' into 'en-GB'",
                "can you pull the rounding out of that loop?",
                "factor out the bit that picks the tenant",
            ),
            (
                "I've added `{v}` and called it from both places.",
                "Done: the logic is now in `{v}`, with three tests.",
                "I'll call it `{v}`; it's private to the module.",
            ),
        ),
        (
            "make that helper you wrote handle None too",
            "add a docstring to the helper from earlier",
            "the helper from this morning, is it covered by tests?",
        ),
        (
            "call the helper {v} instead, it reads better at the call site",
            "rename that helper to {v} please",
        ),
    ),
    Decision(
        "error",
        "code",
        _error,
        (
            "that error from the test run earlier is back on CI",
            "did we ever fix the failing lookup from before?",
            "the error we saw this morning, write a regression test for it",
        ),
    ),
    Decision(
        "branch",
        "code",
        _user(
            ("work on {v} please, I've already made it", "branch is {v}, don't touch main"),
            ("Checked out.", "Switched to it."),
        ),
        ("push what we've got to the branch", "rebase the branch on main and push"),
    ),
    Decision(
        "env",
        "code",
        _user(
            (
                "the secret comes from {v}, never hard-code it",
                "read the API key from {v}, that's what ops set in prod",
            ),
            ("Reading it from the environment now.", "Okay, no hard-coded key."),
        ),
        (
            "add the env var we use for the secret to the README",
            "what happens if that env var is missing? fail loudly",
        ),
    ),
    Decision(
        "table",
        "code",
        _assistant(
            ("where should we store the adjustments?", "we need somewhere to keep the retries"),
            (
                "I'd add a table, `{v}`, with a foreign key to the parent row.",
                "Migration added: new table `{v}`.",
            ),
        ),
        (
            "add an index on the new table's created_at",
            "backfill the new table from last month's data",
        ),
    ),
    Decision(
        "flag",
        "code",
        _assistant(
            ("give the import script a way to only do a few rows",),
            ("Added a `{v}` option to the CLI; default off.",),
        ),
        ("document the new CLI option in --help properly",),
    ),
    Decision(
        "ticket",
        "code",
        _user(
            ("this is for {v}, put it in the commit messages", "ticket's {v} btw"),
            ("Will do.", "Noted for the commits."),
        ),
        ("write the PR description and link the ticket",),
    ),
    Decision(
        "pin",
        "value",
        _user(
            (
                "pin {v}, the next release broke our retries",
                "we have to stay on {v} until the upgrade ticket",
            ),
            ("Pinned in pyproject and the lock file.", "Pinned."),
        ),
        ("why did we pin that library again? put a comment next to the pin",),
    ),
    Decision(
        "addr",
        "value",
        _server,
        ("hit the health endpoint on the dev server", "is the dev server still up?"),
    ),
)

CHAT = (
    "brb coffee", "standup in 5", "ok", "hmm", "why is CI so slow today", "nice",
    "can you explain what that does in one sentence?", "lol", "sorry, was in a meeting",
)  # fmt: skip


def _busywork(w: Writer, repo: Repo) -> None:
    """A filler turn of a coding session: tests, status, lint, a file, or small talk."""
    r = w.rng
    roll = r.random()
    if roll < 0.2:
        w.say("user", r.choice(("run the tests", "tests?", "quick test run")))
        n = r.randint(80, 600)
        took = f"{r.randint(3, 80)}.{r.randint(10, 99)}s"
        out = f"{'.' * r.randint(30, 70)}\n{n} passed, {r.randint(0, 6)} skipped in {took}"
        w.call("shell", {"cmd": "pytest -q"}, out)
        w.say("assistant", "All green.")
    elif roll < 0.35:
        w.say("user", r.choice(("git status", "what have we changed?")))
        files = "\n".join(f"\tmodified:   {repo.filler('path')}" for _ in range(r.randint(1, 5)))
        w.call("shell", {"cmd": "git status"}, f"Changes not staged for commit:\n{files}")
        w.say("assistant", r.choice(("A few files touched.", "Those are ours.")))
    elif roll < 0.5:
        w.say("user", r.choice(("lint it", "run ruff", "mypy?")))
        lines = "\n".join(
            f"{repo.filler('path')}:{r.randint(1, 300)}:{r.randint(1, 80)}: "
            f"{r.choice(('E501 Line too long', 'F401 unused import', 'B008 call in default'))}"
            for _ in range(r.randint(0, 4))
        )
        w.call("shell", {"cmd": "ruff check ."}, lines or "All checks passed!")
        w.say("assistant", "Fixed those." if lines else "Clean.")
    elif roll < 0.65:
        path, func = repo.filler("path"), repo.filler("func")
        w.say("user", r.choice((f"what's in {path}?", f"show me {func}")))
        body = (f"def {func}(value, *, strict=False):\n    if value is None:\n        return None\n"
                f"    return {repo.filler('func')}(value.strip(), strict=strict)\n")  # fmt: skip
        w.call("read_file", {"path": path}, body)
        w.say("assistant", w.fill("It's {count} lines; it strips the value and delegates."))
    elif roll < 0.8:
        w.say("user", r.choice(CHAT))
        w.say(
            "assistant", r.choice(("Sure.", "No rush.", "It caches the lookups per request.", "👍"))
        )
    else:
        w.chatter()


def write(rng: random.Random, turns: int, facts: int) -> Writer:
    """``facts`` facts: decisions and findings (a tenth renamed later), each referred to later."""
    w = Writer(
        rng, "You are a coding assistant with a shell and an editor in the user's repository."
    )
    repo = Repo(w)
    renames = max(1, facts // 10)
    first = facts - renames
    shapes = [DECISIONS[i % len(DECISIONS)] for i in range(first)]
    rng.shuffle(shapes)
    starts = pick_turns(rng, turns * 2 // 3, first, lo=2, gap=4)
    plan: dict[int, tuple[str, int]] = {t: ("state", i) for i, t in enumerate(starts)}
    renamable = [i for i, d in enumerate(shapes) if d.rename]
    for i in rng.sample(renamable, renames):
        at = starts[i] + rng.randint(10, 80)
        while at in plan:
            at += 1
        plan[at] = ("rename", i)
    refs: dict[int, tuple[str, int]] = {}
    for i, t in enumerate(starts):
        for _ in range(rng.randint(1, 2)):
            at = t + rng.randint(5, 120)
            while at in plan or at in refs:
                at += 1
            refs[at] = ("refer", i)
    plan.update({t: v for t, v in refs.items() if t < turns})
    fact_of: dict[int, int] = {}
    for t in range(turns):
        w.begin()
        step = plan.get(t)
        if step is None:
            _busywork(w, repo)
            continue
        what, i = step
        d = shapes[i]
        if what == "refer":
            w.say("user", rng.choice(d.later))
            w.say(
                "assistant",
                rng.choice(
                    ("Done.", "On it, done.", "Sorted, and the tests still pass.", "Yes, fixed.")
                ),
            )
            continue
        value = repo.planted(d.shape)
        if what == "state":
            where = d.state(w, repo, value)
            w.record(d.kind, value, (), t, where)
        else:
            where = w.say("user", rng.choice(d.rename).format(v=value))
            w.say(
                "assistant",
                rng.choice(("Renamed everywhere, tests pass.", "Done, all call sites updated.")),
            )
            old = w.facts[fact_of[i]]
            w.facts[fact_of[i]] = dataclasses.replace(old, until=where)
            w.record(d.kind, value, (), t, where, stale=old.value, stale_index=old.message_index)
        fact_of[i] = len(w.facts) - 1
    return w
