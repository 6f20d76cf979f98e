"""Puzzle ratings: an attempt is a game of one player against one puzzle.

The library is OpenSkill (``openskill``, already the site's rating library for matches,
games.ratings): maintained, pure Python, with a published model (Weng and Lin's
Bayesian approximation). Lichess rates puzzles with Glicko-2, which also keeps a
rating and its uncertainty per side; OpenSkill's Thurstone-Mosteller model on a
two-sided game does the same job -- a win over a puzzle rated far above moves the
player much, a solver whose rating is still uncertain moves fast -- without a second
rating library, and its numbers are shown on the same scale as the match ratings
(games.ratings.display_rating). Thurstone-Mosteller (full pairing) is the model the
library's authors advise for two sides; Plackett-Luce, used for the matches' places,
is for many.
"""

from __future__ import annotations

from openskill.models import ThurstoneMostellerFull

from games.models import RATING_MU, RATING_SIGMA

__all__ = ["MODEL", "rate_attempt"]

MODEL = ThurstoneMostellerFull(mu=RATING_MU, sigma=RATING_SIGMA)


def rate_attempt(
    player: tuple[float, float], puzzle: tuple[float, float], *, solved: bool
) -> tuple[tuple[float, float], tuple[float, float]]:
    """``((mu, sigma) of the player, (mu, sigma) of the puzzle)`` after one attempt."""
    me = MODEL.rating(mu=player[0], sigma=player[1])
    it = MODEL.rating(mu=puzzle[0], sigma=puzzle[1])
    ranks = [1, 2] if solved else [2, 1]
    [[me_after], [it_after]] = MODEL.rate([[me], [it]], ranks=ranks)
    return (me_after.mu, me_after.sigma), (it_after.mu, it_after.sigma)
