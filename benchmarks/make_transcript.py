"""Write a long synthetic transcript (JSONL) for ``summem replay``, e.g. to measure a 50 MB replay.

Run from the repository root::

    python benchmarks/make_transcript.py --mb 50 --out /tmp/long.jsonl
    /usr/bin/time -v summem replay /tmp/long.jsonl --out /tmp/long-replay --json > /dev/null

The conversation is :mod:`benchmarks.bench_memory`'s (a user asks, the assistant calls a tool,
the tool answers, the assistant replies), with fresh tool call ids in each block, one message
per line, until the file reaches ``--mb`` megabytes. Never commit the file it writes.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_long import rekey
from benchmarks.bench_memory import conversation

BLOCK = 4000  # messages generated at a time (their tool call ids prefixed per block)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=50.0, help="size to reach, in megabytes")
    parser.add_argument("--out", type=Path, required=True, help="the JSONL file to write")
    args = parser.parse_args(argv)
    limit = int(args.mb * 1_000_000)
    written = messages = block = 0
    with args.out.open("w", encoding="utf-8") as fh:
        while written < limit:
            block += 1
            for m in rekey(conversation(BLOCK, seed=block), f"b{block}"):
                line = json.dumps(m, ensure_ascii=False) + "\n"
                fh.write(line)
                written += len(line.encode("utf-8"))
                messages += 1
            # a block ends on a group boundary (conversation() does), so any prefix of whole
            # blocks is a valid transcript
    print(f"wrote {messages:,} messages, {written / 1e6:.1f} MB to {args.out}")


if __name__ == "__main__":
    main()
