"""The shared trace writer (``tracing``) and the table-driven trace formatter (``trace_format``)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from plain import plain

from foury_sim.games import delve as D
from foury_sim.games.delve import layout as DL
from foury_sim.games.delve import trace as DT
from foury_sim.games.foury import layout as FL
from foury_sim.games.foury import trace as FT
from foury_sim.games.foury.icons import ICON_KEYS
from foury_sim.trace_format import TraceCode, TraceTable, fallback
from foury_sim.tracing import trace_row

GOBLIN, TROLL = ICON_KEYS.index("goblin"), ICON_KEYS.index("troll")  # shipped enemy slots

TEST_CODE = 990  # a code no game uses: the test registers its words and removes them afterwards


# --- the writer -------------------------------------------------------------------------------
@njit(cache=False)
def _log_in_state(tr, st, slot, code, a, b):
    """A game keeping its row count in a state slot (as Foury does), rows from 0."""
    trace_row(tr, st, slot, 0, code, (np.int64(a), np.int64(b)))


@njit(cache=False)
def _log_in_row0(tr, code, a, b, c):
    """A game keeping its row count in the trace's first row (as Delve does), rows from 1."""
    trace_row(tr, tr, (0, 0), 1, code, (np.int64(a), np.int64(b), np.int64(c)))


@pytest.mark.parametrize("jit", [True, False])
def test_writer_counts_in_a_state_slot_and_drops_what_does_not_fit(jit):
    log = _log_in_state if jit else plain(_log_in_state)
    tr = np.zeros((3, 3), np.int64)
    st = np.zeros(4, np.int64)
    for k in range(5):
        log(tr, st, 2, 10 + k, k, -k)
    assert st.tolist() == [0, 0, 3, 0]
    assert tr.tolist() == [[10, 0, 0], [11, 1, -1], [12, 2, -2]]


@pytest.mark.parametrize("jit", [True, False])
def test_writer_counts_in_the_first_row(jit):
    log = _log_in_row0 if jit else plain(_log_in_row0)
    tr = np.zeros((3, 4), np.int64)
    for k in range(4):
        log(tr, 7 + k, k, 2 * k, True)
    assert tr.tolist() == [[2, 0, 0, 0], [7, 0, 0, 1], [8, 1, 2, 1]]


@pytest.mark.parametrize("jit", [True, False])
def test_writer_is_a_no_op_when_tracing_is_off(jit):
    """The parallel runs pass a trace of one row (Foury) or none (Delve): nothing is written or counted."""
    log_st = _log_in_state if jit else plain(_log_in_state)
    log_r0 = _log_in_row0 if jit else plain(_log_in_row0)
    one, st = np.zeros((1, 3), np.int64), np.zeros(2, np.int64)
    log_st(one, st, 1, 5, 6, 7)
    assert one.tolist() == [[0, 0, 0]] and st.tolist() == [0, 0]
    none = np.zeros((0, 4), np.int64)
    log_r0(none, 5, 6, 7, 8)
    assert none.shape == (0, 4)
    one = np.zeros((1, 4), np.int64)
    log_r0(one, 5, 6, 7, 8)
    assert one.tolist() == [[0, 0, 0, 0]]


# --- one table per game -----------------------------------------------------------------------
def _codes(module, prefix: str) -> dict[str, int]:
    return {k: v for k, v in vars(module).items() if k.startswith(prefix) and isinstance(v, int)}


def test_every_foury_trace_code_has_words_once():
    codes = _codes(FL, "TR_")
    assert len(codes) == len(set(codes.values())) == 73  # 47 + 6 (2-player) + 2 + 3 x 6 (campaigns)
    assert set(FT.TABLE.codes) == set(codes.values())
    assert len({c.name for c in FT.TABLE.codes.values()}) == len(codes)


def test_every_delve_trace_code_has_words_once():
    codes = _codes(DL, "E_")
    assert len(codes) == len(set(codes.values())) == 24
    assert set(DT.TABLE.codes) == set(codes.values())
    assert len({c.name for c in DT.TABLE.codes.values()}) == len(codes)


# --- the fallback line ------------------------------------------------------------------------
def test_foury_unknown_code_is_shown_raw():
    tr = np.array([[FL.TR_TIE, 0, 0, 0, 0, 0], [999, 1, 2, 3, 4, 5]], np.int64)
    assert FT.format_trace(tr, 9) == ["      tie: nothing happens", "  [trace code 999: 1 2 3 4 5]"]


def test_foury_value_without_words_is_shown_raw():
    """A market row of an operation the table has no template for (e.g. a new one) is not dropped."""
    tr = np.array([[FL.TR_MARKET, FL.M_BUY, 0, 0, 2, 0], [FL.TR_MARKET, 77, 1, 2, 3, 0]], np.int64)
    assert FT.format_trace(tr, 9) == ["    buy 2 hearts with a chest", f"  [trace code {FL.TR_MARKET}: 77 1 2 3 0]"]


@pytest.fixture(scope="module")
def delve_rules():
    return D.load_ruleset()


def _delve_trace(*rows) -> np.ndarray:
    tr = np.zeros((len(rows) + 2, DL.TRACE_COLS), np.int64)
    tr[0, 0] = len(rows)
    for i, row in enumerate(rows):
        tr[1 + i, : len(row)] = row
    return tr


def test_delve_unknown_code_is_shown_raw(delve_rules):
    tr = _delve_trace([DL.E_SLAIN, 1, 4], [999, 2, 3, 1, 2, 3, 4, 5, 6, 7, 8])
    assert DT.format_trace(tr, delve_rules, "none") == [
        "      the dragon is slain; the Lair empties",
        "  [trace code 999: 2 3 1 2 3 4 5 6 7 8]",
    ]


def test_a_value_out_of_a_name_list_is_shown_not_wrapped():
    tr = np.array([[FL.TR_STEAL, -1, 2, 0, 0, 0], [FL.TR_STEAL, 1, 0, 0, 0, 0]], np.int64)
    assert FT.format_trace(tr, 9) == ["      the bandit steals 1 <track -1> (2 left)",
                                      "      the bandit steals 1 shield (0 left)"]


def test_fallback_line():
    assert fallback(5, [1, -2, 3]) == "  [trace code 5: 1 -2 3]"


# --- a test-only trace code, registered from the test -----------------------------------------
@pytest.fixture
def foury_test_code():
    FT.TABLE.register(
        TEST_CODE,
        TraceCode("haunt", ("cell", "foe", "bonus"), "    a {foe:icon} haunts {cell:room} (strength d6{bonus:+d})"),
    )
    try:
        yield TEST_CODE
    finally:
        FT.TABLE.unregister(TEST_CODE)


@njit(cache=False)
def _kernel_logs_test_code(tr, st, code, cell, foe):
    trace_row(tr, st, 0, 0, code, (np.int64(cell), np.int64(foe), np.int64(-1), np.int64(0), np.int64(0)))


def test_a_code_registered_from_a_test_renders_through_the_table(foury_test_code):
    """A new rule's code: the kernel logs it through the shared writer, one table entry gives its words."""
    tr = np.zeros((4, FL.TRACE_COLS), np.int64)
    st = np.zeros(1, np.int64)
    _kernel_logs_test_code(tr, st, foury_test_code, 11, TROLL)
    _kernel_logs_test_code(tr, st, FL.TR_WIN, GOBLIN, 11)
    lines = FT.format_trace(tr[: st[0]], 9)
    assert lines == ["    a troll haunts (2,3) (strength d6-1)", "      the goblin is defeated"]
    names = list(FT.Context(9).icon_names)
    names[TROLL] = "river troll"  # icon names are the context's (e.g. a ruleset's enemy list)
    assert FT.format_trace(tr[:1], 9, names) == ["    a river troll haunts (2,3) (strength d6-1)"]


def test_a_delve_code_registered_from_a_test_sees_the_common_fields(delve_rules):
    DT.TABLE.register(TEST_CODE, TraceCode("bless", ("face", "count"), "L{level} delve {delve}: {count} {face:face}"))
    try:
        tr = _delve_trace([TEST_CODE, 2, 5, DL.MAGE, 3])
        assert DT.format_trace(tr, delve_rules, "none") == ["L5 delve 2: 3 mage"]
    finally:
        DT.TABLE.unregister(TEST_CODE)
    assert DT.format_trace(tr, delve_rules, "none") == [f"  [trace code {TEST_CODE}: 2 5 2 3 0 0 0 0 0 0]"]


def test_templates_are_checked_when_registered():
    table = TraceTable("test", kinds={"room": lambda v, ctx: str(v)})
    with pytest.raises(ValueError, match="unknown field format 'rooms'"):
        table.register(1, TraceCode("x", ("cell",), "at {cell:rooms}"))
    with pytest.raises(ValueError, match=r"\{cel\} is not a field"):
        table.register(1, TraceCode("x", ("cell",), "at {cel}"))
    with pytest.raises(ValueError, match="'by' field 'side' is not a field"):
        table.register(1, TraceCode("x", ("cell",), {0: "a", None: "b"}, by="side"))
    with pytest.raises(ValueError, match="several templates need a 'by' field"):
        table.register(1, TraceCode("x", ("cell",), {0: "a"}))
    table.register(1, TraceCode("x", ("cell", "flag"), {0: "at {cell:room}", None: "\nflagged {cell:room}"}, by="flag"))
    with pytest.raises(ValueError, match="trace code 1 is already 'x'"):
        table.register(1, TraceCode("y", (), "y"))
    assert table.format([[1, 4, 0], [1, 5, 2], [2, 7]]) == ["at 4", "", "flagged 5", "  [trace code 2: 7]"]


def test_a_hook_sees_every_row_first():
    """State across rows (Foury: the move after a jump; Delve: the hero's side) goes through the hook."""
    seen = []

    def hook(ctx, code, fields):
        seen.append((code, dict(fields)))
        return [] if code == 2 else None

    table = TraceTable("test", {1: TraceCode("one", ("a",), "one {a}")}, hook=hook)
    assert table.format([[1, 3], [2, 4], [1, 5]]) == ["one 3", "one 5"]
    assert seen == [(1, {"a": 3}), (2, {}), (1, {"a": 5})]


def test_the_writer_is_part_of_every_kernel_cache_key():
    """Kernels inline the writer: an edit of tracing.py must not leave a stale cached kernel."""
    from foury_sim.config import KERNEL_CORE

    assert "tracing.py" in KERNEL_CORE
