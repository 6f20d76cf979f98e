"""make bench-puzzles prints its three figures."""

from __future__ import annotations

from bench import bench_puzzles


def test_the_bench_prints_the_rate_the_yield_and_the_recheck_survival(capsys) -> None:
    bench_puzzles.main(["--hands", "1", "--seed", "make-puzzles"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("puzzles made per minute of one analysis worker: ")
    assert lines[1] == "analysed hands that yield a puzzle: 100 % (1 of 1; 0 of 1 hands were ties)"
    assert lines[2] == "puzzles that survive the re-check: 100 % (1 of 1)"
