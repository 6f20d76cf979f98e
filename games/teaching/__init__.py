"""Learning material as data: the rule sections and table options of RULES.md, in
English and Polish, each with small positions played through the engine.

The files live in ``games/teaching/rules/`` (one TOML file per section or option);
:func:`rule_sections` reads and checks them once. Pure Python like the engine: no
Django, so a test, the rules page and the lessons of /learn/ (``learn/lessons/``, read
by ``learn.lessons``) read the same data.
"""

from games.teaching.sections import (
    After,
    Example,
    RuleSection,
    TeachingDataError,
    Words,
    load_sections,
    option_anchor,
    option_section,
    rule_sections,
)

__all__ = [
    "After",
    "Example",
    "RuleSection",
    "TeachingDataError",
    "Words",
    "load_sections",
    "option_anchor",
    "option_section",
    "rule_sections",
]
