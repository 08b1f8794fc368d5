"""What the eighth blind set's families share: its people's chatter, a few helpers, build.

The people here fit kitchens and dictate messages from the van, run the office of a small
design studio, lead a team at a software agency, move house while opening a café, or import
food from Italy, Portugal and the Netherlands. The turn writer, the checks and the seed redraw
are the sixth set's (:class:`evals.families.blind6.base.Writer`, ``check`` and ``build``);
this module gives the writer new chatter (small talk, long answers, code blocks, tool logs),
which never holds a digit, a clock time, money, a weekday, a month, a code or a person's name,
so a planted value cannot turn up there by chance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from evals.families.blind6 import base as b6
from evals.families.trajectories import Trajectory

__all__ = ["Writer", "build"]

TOPICS: dict[str, tuple[str, ...]] = {
    "van": (
        "quoting for a job when the customer keeps changing the layout",
        "the racking in the back of the van rattling on every bump",
        "an apprentice who turns up without his own tools",
        "customers who want a finish that doesn't suit the room",
        "keeping receipts in some kind of order for the accountant",
        "worktop offcuts piling up in the garage",
        "a reply to a review that says we left dust everywhere",
        "whether to put my rates up this year",
        "a neighbour complaining about the van parked outside",
        "scribing a worktop to a wall that's nowhere near straight",
        "chasing a builder who hasn't paid for the last job",
        "my back after a week of fitting base units",
        "soft-close hinges that won't line up",
        "explaining to a customer why the old tiles have to come off",
    ),
    "office": (
        "the shared drive permissions nobody understands",
        "a welcome pack for new starters",
        "the printer jamming whenever anyone prints double-sided",
        "a formula that keeps returning an error in the supplies sheet",
        "people leaving dirty mugs in the sink",
        "the meeting room calendar getting double booked",
        "a polite nudge about expense claims without receipts",
        "the office plants dying over the summer",
        "an out-of-office message that doesn't sound robotic",
        "tidying up the studio's contacts list",
        "the wifi dropping out in the back room",
        "a leaving do for someone who hates fuss",
        "archiving old project folders without losing anything",
        "a fire drill that people actually take seriously",
    ),
    "team": (
        "a flaky test that only fails on the build server",
        "standups that drag on far too long",
        "a pull request that's grown far too big to review",
        "onboarding a developer who's new to the codebase",
        "the retro turning into a moan session",
        "log noise that hides the real errors",
        "estimates the client treats as promises",
        "a junior who never asks for help",
        "technical debt nobody wants to schedule",
        "writing release notes people will read",
        "a staging environment that never matches production",
        "a dependency upgrade that broke half the build",
        "code review comments that come across as rude",
        "deciding when a spike has gone on too long",
    ),
    "move": (
        "packing the kitchen without losing the kettle",
        "the café's opening menu being far too long",
        "what to do with furniture that won't fit the new place",
        "getting the kids settled in a new school",
        "training the first baristas",
        "the landlord's inventory being wrong",
        "choosing between paint swatches that all look the same",
        "a sign for the café window",
        "a loyalty card scheme that isn't annoying",
        "setting up utilities at the new house",
        "the cat hiding under the bed since the move",
        "a rota for the café that's fair to everyone",
        "the milk supplier forgetting our order",
        "deciding what goes in the storage unit",
    ),
    "deli": (
        "keeping hard cheese from drying out in the counter",
        "labels that meet the allergen rules",
        "a tasting evening for regular customers",
        "slow-moving jars cluttering the top shelf",
        "writing product descriptions that don't all sound alike",
        "the chiller alarm going off at night",
        "a wholesale price list for the cafés nearby",
        "customs paperwork that keeps getting rejected",
        "a hamper range for the gift season",
        "staff who cut the ham too thick",
        "a supplier who answers emails weeks late",
        "the website's stock levels being wrong",
        "a newsletter for the shop",
        "damaged jars arriving in a pallet",
    ),
}
"""Ordinary topics, by the persona of the family."""

_ASKS = (
    "can you help with {t}",
    "right, {t}. where would you start",
    "need your brain on {t} for a sec",
    "any ideas about {t}? i've run out of my own",
    "{t} has come up again, what's the sensible move",
    "what's the usual way people deal with {t}",
    "give me a short plan for {t}",
    "is there a quick fix for {t} or is it a proper job",
    "{t} - am i overthinking this",
    "thinking about {t} and going in circles, talk me through it",
    "could you draft something short about {t}",
    "what would you say to someone dealing with {t}",
    "mind if we look at {t} again",
    "honestly what do you make of {t}",
)
_CONTEXT = (
    "",
    "",
    "",
    "morning!",
    "hope you're having a better day than me.",
    "bit of a random one.",
    "sorry, this is a long one.",
    "not urgent.",
    "quick before the next thing.",
    "my other half says i'm making a fuss about nothing.",
    "been putting this off.",
    "second coffee hasn't kicked in yet.",
)
_SMALL_TALK = (
    ("how's your day going", "Busy in a good way, thanks for asking. What can I do for you?"),
    ("weather is miserable here", "Sorry to hear that. Good day for getting desk jobs done."),
    ("finally some sun", "Lovely. Hope you get a bit of it before the next job."),
    ("long week", "Sounds like it. Let's make the rest of it easier."),
    ("just back from lunch", "Welcome back. Where were we?"),
)
_OPENERS = (
    "Sure.",
    "Good question.",
    "Here's how I'd go about it.",
    "That one trips a lot of people up.",
    "Let's take it step by step.",
    "Happy to.",
    "A few thoughts.",
    "Fair question.",
    "Right, let's look at it.",
)
_SENTENCES = (
    "The first step is to write down what actually happens, not what should happen.",
    "Most of the time the cause sits one step earlier than the place you notice it.",
    "Change one thing, watch what happens, then decide on the next change.",
    "A short message with a clear ask gets answered faster than a long one.",
    "It is worth asking the people who do the work what slows them down.",
    "Keep the first version small so it is easy to throw away if it doesn't work.",
    "Put the decision in writing so nobody has to rely on memory later.",
    "A checklist on the wall beats a perfect process in a drawer.",
    "If it keeps happening, it is a system problem rather than a people problem.",
    "Give it a fair trial before judging it, a couple of weeks is usually enough.",
    "The plain wording tends to land better than the clever wording.",
    "Try to make the right thing the easy thing and most people will do it.",
    "Check the boring basics first; they explain more problems than anything exotic.",
    "It helps to agree who owns each part before anything starts.",
    "You can be firm and friendly at the same time, and it works better than either alone.",
    "Leave some slack in the plan, because something always takes longer than expected.",
    "Thank people when they get it right, it makes the next request easier.",
    "If a conversation is getting heated, move it off email and talk in person.",
    "Keep a simple log of what you tried so you don't repeat yourself.",
    "Ask for a second pair of eyes before you commit to anything expensive.",
    "Don't aim for perfect on the first pass, aim for clear.",
    "Look after yourself as well, nobody does good work exhausted.",
    "A short trial run shows most of the problems early and cheaply.",
    "Say what you need first, then the reasons, then any background.",
    "When people disagree, it usually helps to write the options side by side.",
    "Tidy up as you go; the end-of-day clear-out is where things get lost.",
    "It is fine to say no, and a short reason is enough.",
    "If nobody reads the long version, write a short one and link the rest.",
    "That should be enough to get going, tell me what happens.",
    "You'll find it gets much easier after the first couple of goes.",
)
_BULLETS = (
    "write it down",
    "one change at a time",
    "ask the people doing it",
    "keep it short",
    "check the basics",
    "agree an owner",
    "try it, then review",
    "thank people",
)
_CODE = (
    "```python\ndef tidy(rows):\n    seen = set()\n    out = []\n    for row in rows:\n"
    "        key = row.strip().lower()\n        if key and key not in seen:\n"
    "            seen.add(key)\n            out.append(row.strip())\n    return out\n```",
    "```bash\nfind . -name '*.tmp' -mtime +thirty -print\n# check the list, then:\n"
    "find . -name '*.tmp' -mtime +thirty -delete\n```",
    "```sql\nselect name, status\nfrom tasks\nwhere status <> 'done'\norder by name;\n```",
    '```\n=IFERROR(VLOOKUP(A:A, Supplies!A:C, three, FALSE), "missing")\n```\n'
    "Replace the word with the column number you need.",
    "```python\nimport logging\n\nlog = logging.getLogger(__name__)\n\n"
    'def handle(event):\n    log.info("handling %s", event.kind)\n    try:\n'
    "        event.apply()\n    except ValueError:\n"
    '        log.warning("skipped bad event")\n```',
    "```yaml\nretry:\n  attempts: three\n  backoff: exponential\n"
    "notify:\n  on_failure: team-channel\n```",
)
_LOGS = (
    (
        "run_command",
        "tail build log",
        "INFO  fetching dependencies\nINFO  cache hit, skipping download\nINFO  running tests\n"
        "WARN  test skipped: needs network\nINFO  all remaining tests passed\nINFO  done",
    ),
    (
        "run_command",
        "sync shared drive",
        "sync: scanning folders\nsync: nothing new in Archive\nsync: uploaded changed files\n"
        "sync: conflict copy kept for Brand guidelines\nsync: finished",
    ),
    (
        "search_web",
        "how to stop a team meeting running over",
        "Results: fix an end time, share the agenda first, park long topics for later, "
        "end with actions and owners.",
    ),
    (
        "search_web",
        "keeping cut cheese fresh counter",
        "Results: wrap in waxed paper rather than cling film, keep the cut face covered, "
        "rotate stock daily.",
    ),
    (
        "run_command",
        "check printer queue",
        "queue: job held, paper tray empty\nqueue: job waiting\nqueue: driver reports no errors",
    ),
    (
        "search_web",
        "getting a cat settled after moving house",
        "Results: one quiet room first, familiar bedding, keep them in for a while, "
        "let them explore at their own pace.",
    ),
)
_THANKS = ("thanks", "cheers", "perfect, ta", "that helps", "nice", "ok will do", "great stuff")


class Writer(b6.Writer):
    """The sixth set's turn writer, with this set's people and their chatter."""

    personas = TOPICS
    talk = b6.Talk(
        asks=_ASKS,
        context=_CONTEXT,
        openers=_OPENERS,
        sentences=_SENTENCES,
        bullets=_BULLETS,
        thanks=_THANKS,
        welcomes=("No problem.", "Any time.", "Good luck with it."),
        lookups=_LOGS,
        lookup_lead="Let me check.",
        small_talk=_SMALL_TALK,
        code=_CODE,
        code_head="Something like this might help:",
        bullets_head="In short:",
        small_talk_p=0.06,
        thanks_p=0.1,
        code_p=0.3,
        bullets_p=0.2,
    )

    def short(self) -> str:
        """A short acknowledgement that repeats nothing."""
        return self.rng.choice(
            (
                "Okay, updated.",
                "Got it.",
                "Noted.",
                "Right, I've changed that.",
                "Thanks, sorted.",
                "Understood, amended.",
            )
        )

    def pick(self, values: Sequence[str]) -> str:
        """One of ``values`` not used yet in this conversation (then marked used)."""
        return self.fresh(lambda: self.rng.choice(values))


def build(
    seed: int,
    style: str,
    turns: int,
    facts: int,
    write: Callable[[Writer, int, int], None],
    system: str,
    persona: str,
) -> Trajectory:
    """One conversation of ``style`` (seeded ``blind8/<style>/<seed>/<attempt>``), checked."""
    return b6.build(
        seed,
        style,
        turns,
        facts,
        write,
        system,
        writer=lambda rng, text: Writer(rng, text, persona),
        prefix="blind8",
    )
