"""The quote refitter (tests/requote.py) keeps a quote's shape around new output."""

from __future__ import annotations

from requote import fit, fit_line


def test_a_quote_without_gaps_becomes_the_whole_new_output():
    assert fit(("a", "b"), ["a", "c", "d"]) == ["a", "c", "d"]


def test_gaps_and_cut_lines_keep_their_place():
    quoted = ("head", "long line that was cut …", "…", "(3 rows)")
    output = ["head", "long line that is now different and longer", "x", "(4 rows)"]
    new = fit(quoted, output)
    assert new[0] == "head" and new[2] == "…" and new[3] == "(4 rows)"
    assert new[1].endswith(" …") and output[1].startswith(new[1][:-2])


def test_a_quoted_line_that_still_matches_is_kept_as_written():
    assert fit_line("0.45  MDP …", "0.45  MDP: stationary policies") == "0.45  MDP …"
    assert fit_line("exact", "changed") == "changed"
