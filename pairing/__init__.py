"""Quick pairing ("Play now"): players who want the same time control and table size
are seated together as soon as enough of them wait."""
