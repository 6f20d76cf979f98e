"""The levels are ordered: random < greedy < ismcts, measured in letters (seeded hands).

Every seat of each deal is taken in turn by the level under test, the other
three by the level it must beat, so no level is helped by good cards. Hands
are cut at 150 actions with the most cards losing (the tournament cut-off):
random play hardly ever ends a hand, only a hand with a loser says who played
better, and short hands keep the test fast. The margins are wide: the figures
the bench measures over thousands of hands are far from these bounds.
"""

from games.bots import choose_move
from games.engine import Rules, deal, move_from_json

PLAYERS = 4


CUT = Rules(max_actions=150, max_actions_result="most_cards")


def letters_share(level: str, others: str, deals: int, *, playouts: int) -> tuple[float, int]:
    """(share of the letters taken by ``level``, letters given) seated with 3 ``others``."""
    taken = given = 0
    for number in range(deals):
        for seat in range(PLAYERS):
            levels = [level if s == seat else others for s in range(PLAYERS)]
            state = deal(CUT, PLAYERS, number % PLAYERS, f"strength:{number}")
            while state.outcome is None:
                view = state.view_for(state.to_move)
                seed = f"{number}:{seat}:{state.action_count}"
                move = choose_move(levels[state.to_move], view, seed=seed, playouts=playouts)
                state = state.apply(move_from_json(move))
            if state.outcome.loser is not None:
                given += 1
                taken += state.outcome.loser == seat
    return taken / given, given


def test_greedy_beats_random_by_far():
    share, given = letters_share("greedy", "random", 30, playouts=1)
    assert given == 120
    assert share < 0.08  # fair: 25 %
    share, given = letters_share("random", "greedy", 30, playouts=1)
    assert given == 120
    assert share > 0.7


def test_ismcts_beats_greedy():
    # A small budget (the default is far larger) keeps this near 10 s.
    share, given = letters_share("ismcts", "greedy", 20, playouts=30)
    assert given == 80
    assert share < 0.2  # fair: 25 %
