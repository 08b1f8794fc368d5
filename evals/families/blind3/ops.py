"""``blind3-ops``: a long agentic coding and ops session, mostly repetitive tool output.

An agent fixes a flaky service: it runs the tests again and again (pytest output with dozens
of PASSED lines and the same two failures), tails container logs (health checks, request
lines, warnings), checks ``git status`` and ``kubectl get pods``. Among all that, a few
values are stated once and matter later: the port a service was moved to, the commit that
broke things, an environment variable's name, a migration id, a pinned version, a PR number,
a feature flag, a container id. Each is said once (by the user, the assistant or in a tool
result) and later referred to without it ("revert that commit", "set the variable we found").
The repetitive output has its own ports, hashes and ids, all fresh.
"""

from __future__ import annotations

import random

from evals.families.blind3.base import Conversation

__all__ = ["FACTS", "write"]

_HEX = "0123456789abcdef"
_TESTS = (
    "test_checkout_total",
    "test_refund_partial",
    "test_webhook_retry",
    "test_invoice_pdf",
    "test_login_lockout",
    "test_cart_merge",
    "test_coupon_expiry",
    "test_tax_rounding",
    "test_address_lookup",
    "test_currency_switch",
    "test_stock_reserve",
    "test_email_receipt",
    "test_rate_limit",
    "test_session_refresh",
    "test_order_cancel",
    "test_search_paging",
    "test_export_csv",
    "test_audit_log",
    "test_signup_flow",
    "test_password_reset",
)


def _hex(rng: random.Random, n: int) -> str:
    return "".join(rng.choice(_HEX) for _ in range(n))


def _pytest(rng: random.Random, failing: tuple[str, ...]) -> str:
    lines = [
        "============================= test session starts ==============================",
        f"platform linux -- Python 3.12.{rng.randint(1, 7)}, pytest-8.3.{rng.randint(1, 4)}, "
        f"pluggy-1.5.0",
        "rootdir: /srv/app",
        "configfile: pyproject.toml",
        "plugins: asyncio-0.23.8, cov-5.0.0, xdist-3.6.1",
        f"collected {len(_TESTS) * 3} items",
        "",
    ]
    for mod in ("tests/test_orders.py", "tests/test_payments.py", "tests/test_accounts.py"):
        for t in _TESTS:
            status = "FAILED" if t in failing and mod == "tests/test_payments.py" else "PASSED"
            lines.append(f"{mod}::{t} {status}")
    took = f"{rng.randint(9, 48)}.{rng.randint(10, 99)}s"
    lines += [
        "",
        "=========================== short test summary info ============================",
        *(
            f"FAILED tests/test_payments.py::{t} - AssertionError: assert 502 == 200"
            for t in failing
        ),
        f"========================= 2 failed, {len(_TESTS) * 3 - 2} passed in {took} "
        f"=========================",
    ]
    return "\n".join(lines)


def _logs(rng: random.Random, n: int) -> str:
    out = []
    h, m, s = rng.randint(8, 17), rng.randint(0, 59), rng.randint(0, 59)
    for _ in range(n):
        s += rng.randint(1, 9)
        m, s = m + s // 60, s % 60
        ms = rng.randint(100, 999)
        ts = f"2027-03-{rng.randint(10, 12):02d}T{h:02d}:{m % 60:02d}:{s:02d}.{ms}Z"
        roll = rng.random()
        if roll < 0.5:
            path = rng.choice(("/healthz", "/api/orders", "/api/cart", "/metrics", "/api/session"))
            out.append(
                f"{ts} INFO  http  {rng.choice(('GET', 'POST'))} {path} "
                f"{rng.choice((200, 200, 200, 204, 304))} {rng.randint(2, 180)}ms "
                f"req_id={_hex(rng, 12)}"
            )
        elif roll < 0.75:
            out.append(
                f"{ts} DEBUG pool  connections active={rng.randint(1, 12)} "
                f"idle={rng.randint(0, 8)} waiting=0"
            )
        elif roll < 0.9:
            out.append(
                f"{ts} WARN  worker  job retry attempt={rng.randint(1, 3)} queue=payments "
                f"delay={rng.randint(1, 30)}s"
            )
        else:
            out.append(
                f"{ts} ERROR upstream  POST /v1/charges -> 502 Bad Gateway (retrying) "
                f"req_id={_hex(rng, 12)}"
            )
    return "\n".join(out)


def _status(rng: random.Random) -> str:
    files = rng.sample(
        (
            "src/payments/client.py",
            "src/payments/webhooks.py",
            "tests/test_payments.py",
            "docker-compose.yml",
            "src/settings.py",
            "README.md",
            "deploy/values.yaml",
            "src/orders/models.py",
        ),
        rng.randint(1, 4),
    )
    return (
        "On branch fix/payments-502\nChanges not staged for commit:\n"
        + "\n".join(f"\tmodified:   {f}" for f in files)
        + "\n\nno changes added to commit"
    )


def _pods(rng: random.Random) -> str:
    rows = ["NAME                                READY   STATUS    RESTARTS   AGE"]
    for svc in ("api", "api", "worker", "worker", "scheduler", "redis"):
        name = f"{svc}-{_hex(rng, 9)}-{_hex(rng, 5)}"
        rows.append(
            f"{name:<36}{'1/1':<8}{'Running':<10}{rng.randint(0, 6):<11}{rng.randint(1, 59)}m"
        )
    return "\n".join(rows)


# (kind, make value, the message stating it (role, text with {v}), the later reference)
FACTS = (
    (
        "value",
        lambda r: str(r.randint(18000, 19999)),
        ("tool", "api  | Uvicorn running on http://0.0.0.0:{v} (Press CTRL+C to quit)"),
        "OK so point the smoke tests at the port it came up on, not the old one.",
    ),
    (
        "code",
        lambda r: _hex(r, 9),
        (
            "tool",
            "commit {v}\nAuthor: ci-bot <ci@example.org>\nDate:   Tue Mar 9 22:14:05 2027\n\n    "
            "bump payments SDK and switch retry policy to exponential",
        ),
        "I'm fairly sure that SDK bump is what broke it. Prepare a revert of that commit but "
        "don't push.",
    ),
    (
        "code",
        lambda r: (
            "PAYMENTS_"
            + r.choice(("UPSTREAM", "GATEWAY", "PROVIDER"))
            + "_"
            + r.choice(("TIMEOUT_MS", "BASE_URL", "POOL_SIZE"))
            + "_V"
            + str(r.randint(2, 9))
        ),
        (
            "user",
            "Found it in the runbook: the var they renamed is {v}, the old name is silently "
            "ignored now.",
        ),
        "Can you add the renamed variable to the compose file and the helm values, both places?",
    ),
    (
        "code",
        lambda r: (
            f"{r.randint(40, 99):04d}_add_"
            f"{r.choice(('charge', 'refund', 'payout'))}_idempotency_key"
        ),
        (
            "assistant",
            "The failing path expects a column that only exists after migration {v}; the staging "
            "database is one migration behind.",
        ),
        "Run that migration on staging, then rerun the payments tests.",
    ),
    (
        "code",
        lambda r: f"stripe-python=={r.randint(7, 11)}.{r.randint(0, 14)}.{r.randint(0, 5)}",
        (
            "user",
            "Ops says pin it to {v} until the vendor fixes the retry bug, that's the last one "
            "that behaved.",
        ),
        "Put that pin in requirements and the lock file.",
    ),
    (
        "code",
        lambda r: f"#{r.randint(3000, 8999)}",
        (
            "user",
            "Heads up, Mo already opened {v} touching the same client file, so rebase on that "
            "before you push anything.",
        ),
        "Did the rebase on Mo's PR go cleanly?",
    ),
    (
        "code",
        lambda r: (
            "ff_"
            + r.choice(("async", "bulk", "v2", "new"))
            + "_"
            + r.choice(("capture", "refunds", "webhooks"))
            + "_"
            + r.choice(("rollout", "beta", "canary"))
        ),
        ("tool", "flags: evaluated {v} = true for tenant acme-eu (rule: percentage 25%)"),
        "Turn that flag off for acme-eu and see if the 502s stop.",
    ),
    (
        "code",
        lambda r: _hex(r, 12),
        (
            "tool",
            "CONTAINER ID   IMAGE                  STATUS\n{v}   payments-api:dev       "
            "Restarting (1) 4 seconds ago",
        ),
        "Grab the full logs from the container that was restarting, not the healthy ones.",
    ),
    (
        "value",
        lambda r: f"{r.randint(1200, 9800)}ms",
        (
            "assistant",
            "The gateway closes idle connections after {v}, which is shorter than our pool's "
            "keep-alive, so stale sockets hit the 502.",
        ),
        "Set our keep-alive under the gateway's idle limit then.",
    ),
    (
        "name",
        lambda r: r.choice(
            ("Farida Okonkwo-Hale", "Sebastian Thorvaldsen", "Imelda Craigavon", "Oluwaseun Brandt")
        ),
        (
            "user",
            "If it comes to a rollback, {v} is on call tonight, ping them not the team channel.",
        ),
        "Draft the message to tonight's on-call person, short, with what we know so far.",
    ),
)
"""Each unique value: its kind, how it is drawn, the message stating it and a later reference."""

_USER_RERUN = (
    "Run the tests again.",
    "again please",
    "ok rerun the payments suite",
    "And the tests?",
    "rerun, I changed nothing, just want to see if it's flaky",
    "one more run",
)
_USER_LOGS = (
    "tail the api logs",
    "what do the logs say now?",
    "show me the last 40 lines from the api",
    "logs again",
)


def write(rng: random.Random, turns: int, facts: int) -> Conversation:
    """``turns`` turns of test runs, log tails and status checks; ``facts`` values among them."""
    conv = Conversation(
        "You are a coding agent with shell access to the user's repository and a staging cluster."
    )
    failing = tuple(rng.sample(_TESTS, 2))
    chosen = [FACTS[i % len(FACTS)] for i in range(facts)]
    rng.shuffle(chosen)
    step = max(3, (turns - 10) // max(1, facts))
    at = {2 + i * step + rng.randrange(step - 1): i for i in range(facts)}
    refs: dict[int, str] = {}
    for turn in range(turns):
        if turn in refs:
            conv.user(refs.pop(turn))
            conv.tool(
                "shell",
                {"cmd": "make apply"},
                f"applied in {rng.randint(2, 40)}.{rng.randint(0, 9)}s, exit 0",
            )
            conv.assistant("Done. Nothing else changed; want me to run the tests again?")
            continue
        if turn in at:
            kind, make, (role, text), ref = chosen[at[turn]]
            value = make(rng)
            said = text.format(v=value)
            if role == "user":
                idx = conv.user(said)
                conv.assistant("Understood, noted for when we get there.")
            elif role == "assistant":
                conv.user(rng.choice(("any idea yet?", "what's the actual cause?", "so?")))
                conv.tool(
                    "shell",
                    {"cmd": "grep -rn idle deploy/ src/"},
                    "\n".join(
                        f"src/payments/client.py:{rng.randint(10, 300)}: # idle handling"
                        for _ in range(3)
                    ),
                )
                idx = conv.assistant(said)
            else:
                conv.user(
                    rng.choice(
                        (
                            "check what's running",
                            "look at the last commits",
                            "what does the flag service say",
                            "start the api locally",
                        )
                    )
                )
                idx = conv.tool(
                    "shell",
                    {
                        "cmd": rng.choice(
                            (
                                "docker compose up -d api",
                                "git log -1",
                                "flagctl eval payments",
                                "docker ps -a",
                            )
                        )
                    },
                    said + "\n" + _logs(rng, 4),
                )
                conv.assistant("There it is.")
            conv.plant(kind, value, idx)
            later = turn + rng.randint(4, 25)
            while later in refs or later in at:
                later += 1
            if later < turns:
                refs[later] = ref
            continue
        roll = rng.random()
        if roll < 0.4:
            conv.user(rng.choice(_USER_RERUN))
            conv.tool("shell", {"cmd": "pytest -q tests/ -p no:randomly"}, _pytest(rng, failing))
            conv.assistant(
                rng.choice(
                    (
                        "Same two failures, both 502 from the charge endpoint.",
                        "Still the same two in payments.",
                        "No change: 2 failed, the rest pass.",
                    )
                )
            )
        elif roll < 0.7:
            conv.user(rng.choice(_USER_LOGS))
            conv.tool(
                "shell",
                {"cmd": "docker compose logs --tail 40 api"},
                _logs(rng, rng.randint(20, 40)),
            )
            conv.assistant(
                rng.choice(
                    (
                        "Mostly health checks; the 502s come in bursts from the charge call.",
                        "Same pattern: retries on the payments queue and a few upstream 502s.",
                        "Nothing new in there.",
                    )
                )
            )
        elif roll < 0.85:
            conv.user(rng.choice(("git status?", "what's modified", "where are we")))
            conv.tool("shell", {"cmd": "git status"}, _status(rng))
            conv.assistant("Only the files we've been working on.")
        else:
            conv.user(rng.choice(("how are the pods", "kubectl get pods", "staging healthy?")))
            conv.tool("kubectl", {"args": ["get", "pods", "-n", "staging"]}, _pods(rng))
            conv.assistant("All pods running.")
    return conv
