"""Fair play's detection: the statistics of a hand's decisions (``signals``, pure), how
unusual each is beside honest play (``reference``, the simulation's data), and the
records and cases built from them (``moderation.services.fairplay_cases``)."""
