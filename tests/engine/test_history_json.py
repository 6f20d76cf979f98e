"""A state's JSON history, built from the history it extends (``HandState.history_json``)."""

from games.engine import HandState, Rules
from games.engine.hand import deal


def _history(state: HandState) -> list[dict]:
    return [entry.to_json() for entry in state.history]


def test_each_moves_json_history_is_the_whole_history_in_order():
    state = deal(Rules(), 4, 0, "history-json")
    for turn in range(60):
        if state.outcome is not None:
            break
        moves = state.legal_moves()
        state = state.apply(moves[turn % len(moves)])
        data = state.to_json()
        assert data["history"] == _history(state)
        assert state.public_view()["history"] == _history(state)
        assert HandState.from_json(data) == state


def test_two_moves_from_one_state_keep_their_own_histories():
    state = deal(Rules(), 3, 1, "history-fork")
    while len(state.legal_moves()) < 2:  # the opening nine of hearts is forced
        state = state.apply(state.legal_moves()[0])
    state.to_json()
    first, second = state.legal_moves()[0], state.legal_moves()[-1]
    a, b = state.apply(first), state.apply(second)
    assert a.to_json()["history"] == _history(a)
    assert b.to_json()["history"] == _history(b)
    assert first != second
    assert a.to_json()["history"][-1] != b.to_json()["history"][-1]


def test_editing_one_written_history_leaves_the_next_untouched():
    state = deal(Rules(), 2, 0, "history-edit")
    state = state.apply(state.legal_moves()[0])
    written = state.to_json()["history"]
    written.append({"seat": 9})
    assert state.to_json()["history"] == _history(state)


def test_hands_in_memory_share_one_dict_for_each_kind_of_entry():
    """A live room keeps the JSON of hundreds of long hands: an entry that recurs (a seat
    laying a card, in this hand or another) is one dict, not one per action."""
    histories = []
    for number in range(12):
        state = deal(Rules(), 4, number % 4, f"shared-entries-{number}")
        for turn in range(120):
            if state.outcome is not None:
                break
            moves = state.legal_moves()
            state = state.apply(moves[(turn * 7 + number) % len(moves)])
            state.to_json()  # the move pipeline writes every state
        data = state.to_json()
        assert data["history"] == _history(state)
        histories.append(data["history"])
    entries = [entry for history in histories for entry in history]
    by_value: dict[str, dict] = {}
    for entry in entries:
        first = by_value.setdefault(repr(sorted(entry.items())), entry)
        assert entry is first  # equal entries: the same dict
    assert len(by_value) < len(entries) / 2
