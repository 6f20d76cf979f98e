"""The reference client of Pan online's Bot and Board API (``docs/bot-api.md``).

``python -m pan_bot --token T --url http://127.0.0.1:8000 --strategy greedy`` plays every
game of the token's account: it opens the event stream, and for each ``gameStart`` opens
that game's stream and posts a move whenever ``myTurn`` is true, chosen by one of the
site's own bots (``games.bots``, pure Python) from the ``view`` the stream sends. It
speaks to the site through its HTTP API only (the standard library's ``urllib``).
"""
