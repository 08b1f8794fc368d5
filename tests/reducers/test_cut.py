from summem.conversation import boundaries, split_groups
from summem.messages import parse_messages
from summem.reducers.cut import CutOptions, choose_cut
from tests.fakes.messages import a, call, res, u


def test_groups_keep_parallel_calls_with_results_in_any_order() -> None:
    msgs = parse_messages([u("q"), call("c1", "c2"), res("c2"), res("c1"), a("done"), u("next")])
    groups = split_groups(msgs)
    assert [len(g) for g in groups] == [1, 3, 1, 1]
    assert boundaries(msgs).pending_from is None


def test_pending_call_blocks_everything_after_it() -> None:
    msgs = parse_messages([u("q"), a("x"), call("c1", "c2"), res("c1"), u("interjection")])
    b = boundaries(msgs)
    assert b.pending_from == 2
    assert b.starts == (0, 1, 2)
    sizes = [10] * len(msgs)
    assert choose_cut(msgs, sizes, fixed=0, target=1) == 2


def test_message_between_call_and_result_joins_the_group() -> None:
    msgs = parse_messages([u("q"), call("c1"), u("hurry"), res("c1"), a("ok")])
    assert boundaries(msgs).starts == (0, 1, 4)


def test_orphan_tool_result_is_its_own_group() -> None:
    msgs = parse_messages([res("ghost"), u("q")])
    b = boundaries(msgs)
    assert b.orphans == (0,)
    assert b.starts == (0, 1)


def test_smallest_cut_that_fits() -> None:
    msgs = parse_messages([u("1"), a("2"), u("3"), a("4"), u("5")])
    sizes = [10, 10, 10, 10, 10]
    assert choose_cut(msgs, sizes, fixed=5, target=35) == 2  # 5 + 30 fits
    assert choose_cut(msgs, sizes, fixed=5, target=100) == 1  # called only when over: evict one


def test_newest_group_stays_even_if_oversized() -> None:
    msgs = parse_messages([u("1"), u("huge")])
    assert choose_cut(msgs, [10, 1000], fixed=0, target=50) == 1
    single = parse_messages([u("huge")])
    assert choose_cut(single, [1000], fixed=0, target=50) == 0


def test_never_cuts_inside_a_group() -> None:
    msgs = parse_messages([u("q"), call("c1"), res("c1"), a("x"), u("y")])
    sizes = [1, 1, 50, 1, 1]
    cut = choose_cut(msgs, sizes, fixed=0, target=3)
    assert cut == 3


def test_keep_last_user_turns() -> None:
    msgs = parse_messages([u("1"), a("1"), u("2"), a("2"), u("3"), a("3")])
    sizes = [10] * 6
    opts = CutOptions(keep_last_user_turns=2)
    assert choose_cut(msgs, sizes, fixed=0, target=10, options=opts) == 2


def test_keep_last_user_turns_with_fewer_user_turns_keeps_them_all() -> None:
    # Three turns asked for, two exist: both stay; only what precedes the first one may go.
    msgs = parse_messages([a("0"), a("0b"), u("1"), a("1"), u("2"), a("2")])
    sizes = [10] * 6
    opts = CutOptions(keep_last_user_turns=3)
    assert choose_cut(msgs, sizes, fixed=0, target=10, options=opts) == 2
    no_user = parse_messages([a("0"), a("1"), a("2")])
    assert choose_cut(no_user, [10] * 3, fixed=0, target=10, options=opts) == 2


def test_cut_before_user() -> None:
    msgs = parse_messages([u("1"), a("1"), a("1b"), u("2"), a("2")])
    sizes = [10] * 5
    opts = CutOptions(cut_before_user=True)
    assert choose_cut(msgs, sizes, fixed=0, target=30, options=opts) == 3
    assert choose_cut(msgs, sizes, fixed=0, target=45, options=opts) == 3
