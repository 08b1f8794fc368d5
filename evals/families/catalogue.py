"""The named trajectory families every eval runs, and the tool-heavy trajectories.

A family is a kind of planted-fact trajectory (:mod:`evals.families.trajectories`): how long,
what filler, how many facts and corrections, who states them and in what style. A new family
is one :class:`Family` line here (with a new style, if it needs one, in the generator); every
runner (``--family``), the CI gate and the cost model pick it up by name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from evals.families import (
    answers,
    blind3,
    blind4,
    blind5,
    blind6,
    blind7,
    blind8,
    blind9,
    blind10,
    blind11,
    blind12,
    blind13,
    blind14,
    blind16,
    blind17,
    fixups,
    intl_changes,
    passing,
    scripts,
)
from evals.families.trajectories import Trajectory, generate_trajectory

__all__ = ["FAMILIES", "GENERATORS", "TRACE", "Family", "tool_heavy"]

GENERATORS = {
    **blind3.GENERATORS,
    **blind4.GENERATORS,
    **blind5.GENERATORS,
    **blind6.GENERATORS,
    **blind7.GENERATORS,
    **blind8.GENERATORS,
    **blind9.GENERATORS,
    **blind10.GENERATORS,
    **blind11.GENERATORS,
    **blind12.GENERATORS,
    **blind13.GENERATORS,
    **blind14.GENERATORS,
    **blind16.GENERATORS,
    **blind17.GENERATORS,
    **fixups.GENERATORS,
    **scripts.GENERATORS,
    **intl_changes.GENERATORS,
    "passing-details": passing.generate,
    "prose-answers": answers.generate,
}
"""Families that write their own trajectories (each blind set and ``fixups``), by style."""


@dataclass(frozen=True)
class Family:
    """A kind of trajectory: how long, what filler, how many facts and corrections."""

    name: str
    turns: int
    facts: int
    filler: str = "plain"
    corrections: int = 0
    about: str = ""
    speakers: str = "user"
    style: str = "direct"

    def trajectory(
        self, seed: int, *, turns: int | None = None, facts: int | None = None
    ) -> Trajectory:
        """This family's trajectory for ``seed``, with every field it sets.

        ``turns`` and ``facts`` override the family's own when given.
        """
        generators = GENERATORS
        if self.style in generators:
            return generators[self.style](
                seed,
                turns=self.turns if turns is None else turns,
                facts=self.facts if facts is None else facts,
            )
        return generate_trajectory(
            seed,
            turns=self.turns if turns is None else turns,
            facts=self.facts if facts is None else facts,
            filler=self.filler,
            corrections=self.corrections,
            speakers=self.speakers,
            style=self.style,
        )


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in (
        Family("plain", 200, 20, about="the original: plain filler, facts never updated"),
        Family(
            "realistic",
            200,
            20,
            "realistic",
            about="filler dense with numbers, codes, dates, times and names",
        ),
        Family(
            "corrections",
            200,
            10,
            "plain",
            10,
            about="10 values stated, then corrected later; the stale value must go",
        ),
        Family(
            "both-speakers",
            200,
            20,
            about="the same fact sentences said by the user or the assistant at random",
            speakers="both",
        ),
        Family(
            "indirect",
            200,
            20,
            about="facts implied by context, not stated as 'my X is Y' ('we fly out on <date>, "
            "same as last time')",
            style="indirect",
        ),
        Family(
            "lists",
            200,
            20,
            "realistic",
            about="the user lists facts of one kind in one shared frame, in consecutive turns "
            "('My sister <name> lives in Leeds and ...', then a brother), among realistic filler",
            style="lists",
        ),
        Family(
            "nested-tool",
            200,
            20,
            about="facts 3+ levels deep in tool-result JSON, among other keys and numbers",
            style="nested-tool",
        ),
        Family(
            "heldout",
            200,
            20,
            "realistic",
            2,
            about="held out from tuning: a home/IT/travel/banking assistant with its own filler "
            "and frames; user, assistant and tool facts, short lists, one frame said twice far "
            "apart, corrections",
            style="heldout",
        ),
        Family(
            "prose-preferences",
            200,
            20,
            about="held out, written blind: tastes, habits and personal facts in plain prose "
            "with no cue words ('Coffee-wise it's a cortado for me'), among small talk dense "
            "with values on both sides",
            style="prose",
        ),
        Family(
            "passing-details",
            240,
            16,
            about="own (not held out): a personal detail said as a clause inside a user message "
            "of 40-80 words about something else ('..., since my partner went vegan in the "
            "spring, so what ...'), no cue words; the assistant never repeats it",
            style="passing-details",
        ),
        Family(
            "prose-answers",
            240,
            16,
            about="own (not held out, round 11): personal details said as the answer to the "
            "assistant's questions ('Two, twins, both nine.'), alone or beside answers to other "
            "questions, or as one clause of the user's value-dense small talk ('Ran 12 km ...'); "
            "no cue words",
            style="prose-answers",
        ),
        Family(
            "tables",
            200,
            20,
            about="held out, written blind: tool results as markdown, CSV and JSON tables of "
            "5-30 rows, one cell of each pointed at later by its row; filler tables and "
            "repeated status reports",
            style="tables",
        ),
        Family(
            "ledgers",
            200,
            20,
            about="not held out (written beside the table rules): a back office whose tools "
            "answer with tables of 4-24 rows in six shapes; a later user turn names a row by "
            "one cell and the fact is another cell of it",
            style="ledgers",
        ),
        Family(
            "ledger-updates",
            200,
            16,
            about="own (not held out): the ledgers back office, where a list is fetched again "
            "with the cell of a row a user turn named changed; the fact is the new cell, the "
            "old one stale",
            style="ledger-updates",
        ),
        Family(
            "tool-shapes",
            200,
            16,
            about="own (not held out, round 12): the ledgers back office answering as APIs do: "
            "JSON records nested three levels deep, rows told apart by a free-text cell named "
            "by one word of it, a comparison printed transposed; a later user turn names a row",
            style="tool-shapes",
        ),
        Family(
            "record-shapes",
            200,
            16,
            about="own (not held out, round 14): the ledgers back office printing 3-5 records "
            "as command-line tools and exports do: columns one space apart, a fixed-width "
            "report, a report grouped under headings, JSON Lines, XML, key: value blocks, a "
            "YAML list; the request or a later user turn names a row by its key cell",
            style="record-shapes",
        ),
        Family(
            "people-details",
            200,
            12,
            about="own (not held out, round 13): a detail about someone else in a sentence "
            "opening with their pronoun contracted, after the one that sets the scene ('My "
            "brother is flying in. He'll land on 14 March 2027.'); a third revised later",
            style="people-details",
        ),
        Family(
            "confirmations",
            200,
            20,
            about="held out, written blind: the assistant offers 1-3 options, the user accepts "
            "one in a few words ('the second one'); the fact is the accepted value",
            style="confirmations",
        ),
        Family(
            "fixups",
            200,
            10,
            about="tuned on: a booking's value stated by either side, then corrected by the user "
            "without naming the subject ('No wait, make it 16:15', 'Hmm, four instead'), or only "
            "confirmed ('No, five is fine')",
            style="fixups",
        ),
        Family(
            "correction-chains",
            200,
            8,
            about="held out, written blind: 8 values and names, each corrected 2-4 times over "
            "long gaps; every correction is a fact until the next supersedes it",
            style="chains",
        ),
        Family(
            "slot-changes",
            200,
            5,
            about="own (not held out, round 13): one value of a thing changed 2-3 times with a "
            "change word, some changes arriving in a vendor's email (a tool result), beside the "
            "thing's other values of the same kinds said once and never replaced",
            style="slot-changes",
        ),
        Family(
            "multilingual",
            200,
            20,
            about="held out, written blind: names with diacritics and German/Spanish/French/"
            "Italian/Portuguese dates, in English and in short sentences of those languages",
            style="locales",
        ),
        Family(
            "fragments",
            200,
            18,
            about="written blind, tuned on since round 12 (no longer held out): the value in a "
            "sentence that leans on the one before "
            "('We named the boat. She's going to be Salt Fiddle.'), or a message's second "
            "sentence",
            style="fragments",
        ),
        Family(
            "scripts-intl",
            480,
            20,
            about="own (not held out, round 13): a shop's contacts, dates and quotes in "
            "Cyrillic, Persian, Arabic, Devanagari, Thai, Japanese, Chinese, Hangul, Greek and "
            "Hebrew, with their own digits and calendars, in English or their language; about "
            "half replaced later by the user",
            style="scripts",
        ),
        Family(
            "intl-changes",
            360,
            16,
            about="own (not held out, round 14): delivery dates and prices in Japanese, "
            "Chinese, Thai, Hindi, Arabic, Russian, Korean and Amharic, in messages of several "
            "sentences ended by their script's full stop, values written into text without "
            "spaces or in ideographs; most changed later, in the language itself",
            style="intl-changes",
        ),
        Family(
            "blind2-tables",
            360,
            20,
            about="held out, written blind (second set): tool results as kubectl/df fixed-width "
            "output, TSV, HTML tables, YAML records and nested JSON API responses; one cell of "
            "each pointed at 3-20 turns later by its row, never by its value",
            style="tool-tables",
        ),
        Family(
            "blind2-preferences",
            420,
            20,
            about="held out, written blind (second set): 16 tastes, habits and personal facts "
            "said in passing inside small talk, with no cue words; 4 of them said again later "
            "with a new value",
            style="chat-preferences",
        ),
        Family(
            "blind2-revisions",
            420,
            19,
            about="held out, written blind (second set): 8 chains of 2-3 values (a date moved "
            "twice, a misspelt name fixed, a quote revised by the invoice, a reference "
            "reissued, a move that fell through...), corrected by the user or a tool result",
            style="revisions",
        ),
        Family(
            "blind2-accepts",
            400,
            20,
            about="held out, written blind (second set): the assistant offers 2-4 options "
            "(tables, slots, quotes, flights, paints, hotels, deals); the user takes one by "
            "position, by a detail, by agreeing ('yeah go with that', 'ok but make it Friday') "
            "or after a question; some offers turned down",
            style="accepts",
        ),
        Family(
            "blind2-code",
            360,
            20,
            about="held out, written blind (second set): a coding session; module paths, helper "
            "names, error messages, branches, env vars, tables, flags, pins decided or found "
            "early and referred to later without their names; 2 renamed",
            style="code-session",
        ),
        Family(
            "blind2-intl",
            460,
            20,
            about="held out, written blind (second set): German, Spanish, Japanese (romanised) "
            "and Vietnamese names, dates and street lines, in English or their own language, "
            "from the user, the assistant or an email; 2 dates moved later",
            style="intl",
        ),
        Family(
            "blind3-passing",
            360,
            20,
            about="held out, written blind (third set): diets, deadlines, names, sizes and "
            "references said in passing inside longer requests about something else, no cue words",
            style="b3-passing",
        ),
        Family(
            "blind3-revisions",
            660,
            21,
            about="held out, written blind (third set): 7 arrangements revised twice each by the "
            "user ('no wait', 'scratch that', 'make it', 'the 19th works better'); the latest "
            "value must be in view",
            style="b3-revisions",
        ),
        Family(
            "blind3-grids",
            360,
            20,
            about="held out, written blind (third set): psql (+---+), pandas repr, Excel TSV, JSON "
            "records and aligned markdown tables; a row named later by a non-first column, the "
            "fact another cell of it",
            style="b3-grids",
        ),
        Family(
            "blind3-picks",
            600,
            20,
            about="held out, written blind (third set): 2-4 options in a numbered or bulleted "
            "list, one picked by position or paraphrase ('the second one', 'the cheaper one')",
            style="b3-picks",
        ),
        Family(
            "blind3-split",
            640,
            20,
            about="held out, written blind (third set): a fact split over two consecutive user "
            "messages ('my sister's flight' / 'it lands at 6:40 at gate B12')",
            style="b3-split",
        ),
        Family(
            "blind3-ops",
            130,
            20,
            about="held out, written blind (third set): an agentic coding/ops session of "
            "repetitive test runs and logs; a port, commit, env var, migration, pin stated once",
            style="b3-ops",
        ),
        Family(
            "blind4-habits",
            660,
            20,
            about="held out, written blind (fourth set): diets, allergies, schedules, access "
            "needs and dislikes said in plain prose among chit-chat, no cue words",
            style="b4-habits",
        ),
        Family(
            "blind4-tables",
            300,
            20,
            about="held out, written blind (fourth set): docker ps, kubectl get pods, df -h, "
            "ls -l, CSV, HTML, JSON columns/rows and YAML output; a row named later by a cell, "
            "part of its name or a description, the fact another cell of it",
            style="b4-tables",
        ),
        Family(
            "blind4-confirms",
            600,
            20,
            about="held out, written blind (fourth set): the assistant offers 1-3 slots, "
            "quotes, plans or flights; the user takes one in a few words ('yes book it', "
            "'the later one works')",
            style="b4-confirms",
        ),
        Family(
            "blind4-chains",
            640,
            6,
            about="held out, written blind (fourth set): 6 arrangements each revised 3-5 "
            "times, some implicitly or under another name; only the latest counts "
            "(facts: chains)",
            style="b4-chains",
        ),
        Family(
            "blind4-locale",
            840,
            20,
            about="held out, written blind (fourth set): German/French/Spanish/Polish names "
            "with diacritics, dates, comma-decimal amounts and 24-hour times, mixed-language "
            "chit-chat",
            style="b4-locale",
        ),
        Family(
            "blind4-filler",
            560,
            20,
            about="held out, written blind (fourth set): a shop's working session dense with "
            "fresh numbers, codes, dates and names on every side; 20 facts from user, "
            "assistant and tools among it",
            style="b4-filler",
        ),
        Family(
            "blind5-fixups",
            340,
            20,
            about="held out, written blind (fifth set): a value stated once (often by the "
            "assistant), then fixed by a short user message naming only the value ('hmm, can we "
            "do 16:15 instead?'), some reworded ('what I pay the landlord')",
            style="b5-fixups",
        ),
        Family(
            "blind5-longrun",
            420,
            7,
            about="held out, written blind (fifth set): 7 running values (a deadline, a balance, "
            "a build, a headcount...) changed 3-5 times, mostly in the second half; only the "
            "latest counts (facts: chains)",
            style="b5-longrun",
        ),
        Family(
            "blind5-described",
            330,
            20,
            about="held out, written blind (fifth set): markdown, CSV, aligned and JSON-records "
            "tables; a later turn names a row by description ('the cheaper of the two Lisbon "
            "ones', 'the pod that keeps restarting'), the fact another cell of it",
            style="b5-described",
        ),
        Family(
            "blind5-asides",
            320,
            20,
            about="held out, written blind (fifth set): diets, allergies, pets, sizes and "
            "routines as a clause inside long chatty messages about something else, no cue words",
            style="b5-asides",
        ),
        Family(
            "blind5-accepts",
            340,
            20,
            about="held out, written blind (fifth set): 2-4 options offered in a list or prose, "
            "one taken in a few words ('the second sounds good', 'the Porto one', 'yeah that')",
            style="b5-accepts",
        ),
        Family(
            "blind6-restated",
            430,
            20,
            about="held out, written blind (sixth set): a quote, headcount, tradesperson, "
            "reference or day stated by user, assistant or tool, corrected under other words "
            "('what Cavanagh wants for the pipes'), numbers in words, some chains",
            style="b6-restated",
        ),
        Family(
            "blind6-tables",
            430,
            20,
            about="held out, written blind (sixth set): markdown, CSV, TSV, aligned, JSON and "
            "YAML tables of 3-8 rows; a row picked later by a cell or a description ('the one "
            "in Ghent', 'the cheapest', 'the second'), the fact another cell of it",
            style="b6-tables",
        ),
        Family(
            "blind6-prose",
            430,
            20,
            about="held out, written blind (sixth set): diets, bodies, routines, house and "
            "family said in passing in long chatty messages, no cue words ('we don't do pork')",
            style="b6-prose",
        ),
        Family(
            "blind6-confirms",
            440,
            20,
            about="held out, written blind (sixth set): the assistant proposes 1-4 options, the "
            "user accepts in plain words, after questions or with a change ('yes but make it "
            "the later one')",
            style="b6-confirms",
        ),
        Family(
            "blind6-session",
            440,
            20,
            about="held out, written blind (sixth set): one long mixed session: facts stated, "
            "some corrected, tables looked up, details in passing, options accepted",
            style="b6-session",
        ),
        Family(
            "blind7-passing",
            440,
            20,
            about="held out, written blind (seventh set): a nurse and parent's diets, body, "
            "family and flat said in passing, as a clause, two short sentences or a fragment "
            "inside a long request, no cue words",
            style="b7-passing",
        ),
        Family(
            "blind7-chains",
            440,
            20,
            about="held out, written blind (seventh set): a warehouse's collections, slots, "
            "quotes, contacts, weights and references changed 3-6 times each by user, assistant "
            "or look-up, in other words or none ('no, make that the 21st')",
            style="b7-chains",
        ),
        Family(
            "blind7-tables",
            430,
            20,
            about="held out, written blind (seventh set): markdown, quoted CSV, aligned columns "
            "with units, nested JSON, HTML and key: value blocks; a row picked later by a cell "
            "or a description, the fact another cell of it",
            style="b7-tables",
        ),
        Family(
            "blind7-confirms",
            450,
            20,
            about="held out, written blind (seventh set): options offered in lists or prose, "
            "taken in a few words ('yeah your pick', 'not that one, the one after'), after a "
            "question or a refused list",
            style="b7-confirms",
        ),
        Family(
            "blind7-intl",
            430,
            20,
            about="held out, written blind (seventh set): a translator's German, French, "
            "Spanish and Polish names, dates ('3. März', 'le 12 avril', '12/04') and "
            "decimal-comma fees, some corrected",
            style="b7-intl",
        ),
        Family(
            "blind8-asides",
            440,
            20,
            about="held out, written blind (eighth set): a kitchen fitter's food, body, family "
            "and travel limits said in passing in voice notes, emails and errand lists, some "
            "negated ('not the ground floor'), some as a bare answer to a question",
            style="b8-asides",
        ),
        Family(
            "blind8-sheets",
            430,
            20,
            about="held out, written blind (eighth set): an office's listings fetched again and "
            "again as psql grids, TSV, YAML, fixed-width reports and CSV with totals; rows "
            "repeated, updated or added, pointed at later by a word or a place",
            style="b8-sheets",
        ),
        Family(
            "blind8-renames",
            440,
            20,
            about="held out, written blind (eighth set): pairs sharing an attribute (two flights, "
            "deadlines, budgets, slots, contacts, towns, app names), one of them renamed, moved "
            "or revised once or twice ('scrap that', 'we went with', a newer record)",
            style="b8-renames",
        ),
        Family(
            "blind8-accepts",
            440,
            20,
            about="held out, written blind (eighth set): two or three options offered, taken "
            "tersely ('the second', 'go with the cheaper', 'yes to the first, no to the rest') "
            "or all refused for the user's own",
            style="b8-accepts",
        ),
        Family(
            "blind8-intl",
            430,
            20,
            about="held out, written blind (eighth set): a deli's Italian, Portuguese and Dutch "
            "contacts, addresses, dates ('3 marzo', '12 de maio', '5 juni') and decimal-comma "
            "totals, some corrected",
            style="b8-intl",
        ),
        Family(
            "blind9-prose",
            440,
            20,
            about="held out, written blind (ninth set): a vet receptionist's diet, body, family "
            "and travel said in plain words in parentheses, between dashes, inside a question or "
            "one sentence of an email, no cue words",
            style="b9-prose",
        ),
        Family(
            "blind9-tables",
            430,
            20,
            about="held out, written blind (ninth set): a landlord's spreadsheets re-fetched as "
            "markdown, CSV, aligned columns, JSON rows or YAML; cells changed, rows added or "
            "dropped, a row named later by its flat or place",
            style="b9-tables",
        ),
        Family(
            "blind9-chains",
            455,
            20,
            about="held out, written blind (ninth set): a touring musician's soundchecks, hotels, "
            "ferry refs, fees and contacts changed two to four times ('scratch that', 'turns "
            "out', none), beside numbered items that are not corrections",
            style="b9-chains",
        ),
        Family(
            "blind9-confirms",
            460,
            20,
            about="held out, written blind (ninth set): a charity coordinator takes one of two "
            "or three suppliers tersely ('yes the second', 'go with that', 'fine, book it', "
            "'cheapest'), sometimes after a question",
            style="b9-confirms",
        ),
        Family(
            "blind9-intl",
            450,
            20,
            about="held out, written blind (ninth set): a PhD student's Dutch, Norwegian, Turkish "
            "and Czech contacts, day-first dates ('14. 3. 2027', '14-03-2027') and 24-hour times, "
            "some corrected",
            style="b9-intl",
        ),
        Family(
            "blind10-prose",
            440,
            20,
            about="held out, written blind (tenth set): a maths teacher's health, food, home "
            "and travel said in plain words as a reason ('since my dodgy knee...'), as the "
            "answer to the assistant's question, or two or three in one list",
            style="b10-prose",
        ),
        Family(
            "blind10-tables",
            430,
            20,
            about="held out, written blind (tenth set): a bike workshop's jobs, parts and hire "
            "fleet as markdown, CSV, JSON rows and JSON columns, re-fetched with a cell "
            "changed, a row named by its key soon after or much later",
            style="b10-tables",
        ),
        Family(
            "blind10-chains",
            450,
            20,
            about="held out, written blind (tenth set): a wedding's times, amounts, addresses "
            "and people changed two to four times, beside quantities, numbered steps and "
            "'the other one' that are not corrections",
            style="b10-chains",
        ),
        Family(
            "blind10-confirms",
            450,
            20,
            about="held out, written blind (tenth set): a theatre director accepts one of one "
            "to four proposals tersely, by position now or turns later, the assistant's pick, "
            "or with a change ('yes the second but make it 19:30')",
            style="b10-confirms",
        ),
        Family(
            "blind10-intl",
            440,
            20,
            about="held out, written blind (tenth set): a documentary producer's Vietnamese, "
            "Brazilian, Swahili and Greek contacts and dates ('ngày 14 tháng 3 năm 2027', "
            "'14 de março de 2027', '14 Μαρτίου 2027'), a contact replaced or a date moved",
            style="b10-intl",
        ),
        Family(
            "blind11-prose",
            420,
            20,
            about="held out, written blind (eleventh set): a beekeeping joiner's health, family "
            "and home said in plain words mid-ramble, by contrast ('unlike me'), inside a story, "
            "or corrected in passing much later ('i had it backwards, it's my left ear')",
            style="b11-prose",
        ),
        Family(
            "blind11-tables",
            420,
            20,
            about="held out, written blind (eleventh set): a brewery's fermenters, kegs and dry "
            "goods as transposed markdown, INI sections, XML, logfmt lines or a grouped report "
            "with subtotals; a row named by its key before, just after or long after the fetch",
            style="b11-tables",
        ),
        Family(
            "blind11-chains",
            430,
            20,
            about="held out, written blind (eleventh set): a potter's craft-fair stand, slots, "
            "fees, refs and contact changed two to four times by the potter or the fair's email, "
            "beside look-alike values of other things ('the glassblower had theirs changed to')",
            style="b11-chains",
        ),
        Family(
            "blind11-confirms",
            430,
            20,
            about="held out, written blind (eleventh set): a carer takes one of two to four "
            "firms by what sets it apart, by ruling the others out, after a question, by "
            "switching ('no, the second') or later; the firm and its price or time are the facts",
            style="b11-confirms",
        ),
        Family(
            "blind11-intl",
            430,
            20,
            about="held out, written blind (eleventh set): a registrar's Hindi (Devanagari), "
            "Korean (Hangul), Arabic and Hungarian couriers, brokers and dates ('2027년 3월 14일', "
            "'١٤ آذار ٢٠٢٧', '2027. március 14.'), in English or a lender's email, some replaced",
            style="b11-intl",
        ),
        Family(
            "blind12-prose",
            420,
            20,
            about="held out, written blind (twelfth set): a lorry driver's family, health and "
            "food said in plain words before an ask, implied by a story, as the answer to the "
            "assistant's question ('How old are the kids?'), or narrowed much later",
            style="b12-prose",
        ),
        Family(
            "blind12-tables",
            420,
            20,
            about="held out, written blind (twelfth set): a boatyard's berths, lifts and "
            "invoices as psql, mysql boxes, kubectl columns, quoted CSV, nested JSON, YAML, "
            "transposed or grouped with subtotals; a row named by its boat or a word in its notes",
            style="b12-tables",
        ),
        Family(
            "blind12-chains",
            430,
            20,
            about="held out, written blind (twelfth set): a house move's dates, times, quotes, "
            "conveyancer and refs changed two to four times ('moved to', 'bumped', 'reissued "
            "it as'), some by email, beside look-alikes of other things ('the buyers' own')",
            style="b12-chains",
        ),
        Family(
            "blind12-confirms",
            430,
            20,
            about="held out, written blind (twelfth set): an illustrator takes one of two to "
            "four firms by what sets it apart, by ruling the others out, by a pronoun after a "
            "question, after a detour or by changing her mind; the firm and its price",
            style="b12-confirms",
        ),
        Family(
            "blind12-intl",
            430,
            20,
            about="held out, written blind (twelfth set): a shop's Thai, Japanese (kanji), "
            "Ukrainian and Persian contacts and dates ('14 มีนาคม 2570', '令和9年3月14日', "
            "'14 березня 2027', '۲۳ خرداد ۱۴۰۶'), in English or a maker's email, some replaced",
            style="b12-intl",
        ),
        Family(
            "blind13-dialogue",
            540,
            20,
            about="held out, written blind (thirteenth set): two named friends, a tree surgeon "
            "and a lighthouse-museum keeper, chat; each one's details come out as the answer to "
            "the other's question, as an aside or inside a story, no cue words (both sides "
            "carry a name)",
            style="b13-dialogue",
        ),
        Family(
            "blind13-prose",
            420,
            20,
            about="held out, written blind (thirteenth set): a falconer's food, body, home and "
            "family said in plain words before or after an ask, as a remark of its own, as the "
            "answer to the assistant's question, or narrowed 60-160 turns later",
            style="b13-prose",
        ),
        Family(
            "blind13-tables",
            420,
            20,
            about="held out, written blind (thirteenth set): a piano removals firm's moves, "
            "storage and invoices as single-space columns, a grouped report with indented rows "
            "and subtotals, JSON Lines, XML or key: value blocks; a row named by its client or "
            "a word of its long notes",
            style="b13-tables",
        ),
        Family(
            "blind13-chains",
            430,
            20,
            about="held out, written blind (thirteenth set): a cricket club dinner's date, doors "
            "time, deposit, caterer, marquee ref, speaker or ticket price changed two to four "
            "times ('scrap that', a bookings check, a moved date, or just the new value in a "
            "draft), beside look-alikes",
            style="b13-chains",
        ),
        Family(
            "blind13-intl",
            430,
            20,
            about="held out, written blind (thirteenth set): a folk festival's Georgian, "
            "Armenian, Hebrew and Amharic agents and dates ('14 მარტი 2027', '14 մարտի 2027 թ.', "
            "'14 במרץ 2027', Ethiopian-calendar 'መጋቢት 5 ቀን 2019 ዓ.ም.'), some replaced",
            style="b13-intl",
        ),
        Family(
            "blind14-tables",
            420,
            20,
            about="held out, written blind (fourteenth set): a stained-glass workshop's "
            "commissions as YAML, a fixed-width report with a totals line, JSON Lines, HTML, "
            "TSV or a psql result with '(N rows)', among kiln checks and stock re-listings; a "
            "row named by its client or words of its long notes",
            style="b14-tables",
        ),
        Family(
            "blind14-chains",
            430,
            20,
            about="held out, written blind (fourteenth set): a school ski trip's date, pickup "
            "time, deposit, lodge, booking ref or instructor changed two to four times ('we'll "
            "go with ... instead', 'won't work, make it', a counter-offer accepted, a change "
            "the assistant reports, a revised letter), beside look-alikes",
            style="b14-chains",
        ),
        Family(
            "blind14-intl",
            430,
            20,
            about="held out, written blind (fourteenth set): a tea importer's Japanese, Chinese, "
            "Thai and Burmese contacts, towns, prices and dates ('2027年7月2日', "
            "'二〇二七年七月二日', '๒ กรกฎาคม ๒๕๗๐', '၂၀၂၇ ခုနှစ် ဇူလိုင်လ ၂ ရက်'), some "
            "corrected by an email in that language",
            style="b14-intl",
        ),
        Family(
            "blind14-prose",
            420,
            20,
            about="held out, written blind (fourteenth set): a retired ship's engineer who "
            "mends clocks; his health, food, home and family in plain words before or after an "
            "ask or as a remark, four refined 60-160 turns later",
            style="b14-prose",
        ),
        Family(
            "blind14-confirms",
            420,
            20,
            about="held out, written blind (fourteenth set): a mobile dog groomer takes one of "
            "two to four options by position, as the cheaper, with a thumbs-up or 'perfect, "
            "book it' after a recommendation, or with a changed time",
            style="b14-confirms",
        ),
        Family(
            "blind16-prose",
            460,
            20,
            about="held out, written blind (sixteenth set): a chip-shop owner on the lifeboat "
            "crew; his diet, health, home and habits in plain words before an ask, as a clause "
            "inside one, as the answer to the assistant's question or as a remark; four said "
            "again 60-160 turns later in other words",
            style="b16-prose",
        ),
        Family(
            "blind16-tables",
            460,
            20,
            about="held out, written blind (sixteenth set): an allotment society's plot "
            "register as markdown, CSV, a fixed-width report, JSON rows, JSON columns or a "
            "pasted spreadsheet; a row named by its holder then, soon or 30-80 turns later",
            style="b16-tables",
        ),
        Family(
            "blind16-confirms",
            460,
            20,
            about="held out, written blind (sixteenth set): a small-press publisher takes a "
            "printer quote, courier slot, proof date, freelancer or venue by position, as the "
            "cheaper, with 'book it' or 'that one', or after turning the first offer down",
            style="b16-confirms",
        ),
        Family(
            "blind16-chains",
            460,
            20,
            about="held out, written blind (sixteenth set): a gran's surprise ninetieth; date, "
            "start time, venue, cake ref, price a head or singer changed two to four times "
            "('we'll do the ... instead', 'scratch that', a revised confirmation email, the "
            "assistant's report, an invitation draft), beside look-alikes",
            style="b16-chains",
        ),
        Family(
            "blind16-intl",
            460,
            20,
            about="held out, written blind (sixteenth set): a sari shop's Tamil and Bengali "
            "suppliers' contacts, addresses, rupee and taka prices and dates ('14 மார்ச் 2027', "
            "'14.03.2027', '১৪ মার্চ ২০২৭', '১,২৪,৫০০ টাকা'), some corrected in the language",
            style="b16-intl",
        ),
        Family(
            "blind17-chains",
            440,
            20,
            about="held out, written blind (seventeenth set): a hospice's sponsored coast walk; "
            "date, start time, meeting point, coach ref, coach price or lead marshal changed two "
            "to four times (plain new value, 'sorry, I misread', a revised email, the assistant "
            "relaying the coach firm or council), beside look-alikes of other things",
            style="b17-chains",
        ),
        Family(
            "blind17-tables",
            440,
            20,
            about="held out, written blind (seventeenth set): a rural community minibus "
            "scheme's drivers and bookings as markdown, CSV, JSON rows, JSON columns or a "
            "fixed-width report among repeated vehicle checks; a row named by its person in the "
            "request, soon or 30-100 turns later",
            style="b17-tables",
        ),
        Family(
            "blind17-prose",
            440,
            20,
            about="held out, written blind (seventeenth set): a piano tuner in a barbershop "
            "quartet; his health, food, home and family in plain words before an ask, as a "
            "clause, as an answer or a remark, or leaning on the sentence before; some changed "
            "60-160 turns later, two said again in other words",
            style="b17-prose",
        ),
        Family(
            "long",
            1000,
            40,
            "realistic",
            10,
            about="1,000 turns (about 100 reduction cycles), realistic filler, corrections",
        ),
    )
}
"""The families the runners run (``--family``, repeatable; default all)."""

TRACE = " ".join(["upstream answered normally, cache warm, no retry was needed;"] * 24)
"""The verbose trace padded into every tool result of :func:`tool_heavy` (no planted value)."""


def tool_heavy(seed: int, turns: int) -> Trajectory:
    """A trajectory with tools on most turns, each result padded with a verbose trace."""
    traj = generate_trajectory(seed, turns=turns, facts=20, tool_call_rate=0.8)
    messages = []
    for m in traj.messages:
        if m["role"] == "tool":
            data = json.loads(m["content"])
            if isinstance(data, dict):
                m = {**m, "content": json.dumps({**data, "trace": TRACE})}
        messages.append(m)
    return Trajectory(traj.seed, tuple(messages), traj.facts, traj.turn_starts, traj.params)
