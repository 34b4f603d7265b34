"""Slow: `stats` on every treebank under UD_ROOT reproduces the figures of STATS.md."""
import json
import re

import pytest
from typer.testing import CliRunner
from ud_paths import require_ud_root

from spacy_dynoracle.cli import app

pytestmark = pytest.mark.slow
ROW = re.compile(r"^\| (\S+) \| (train|dev|test) \| (.+) \|$")


def stats_md_rows(root):
    """{(treebank, split): [sents, tokens, words, %NP sents, %NP arcs, d2 cov, d3 cov]} as printed."""
    rows = {}
    for line in (root / "STATS.md").read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            cells = [c.strip() for c in match.group(3).split("|")]
            rows[(match.group(1), match.group(2))] = cells[:7]
    return rows


def test_stats_reproduce_stats_md(tmp_path):
    root = require_ud_root()
    expected = stats_md_rows(root)
    assert len(expected) >= 30, "STATS.md tables not found"
    out = tmp_path / "stats.json"
    result = CliRunner().invoke(app, ["stats", str(root), "--json", str(out)])
    assert result.exit_code == 0, result.output
    computed = {}
    for name, stats in json.loads(out.read_text()).items():
        folder, file = name.split("/")
        split = re.search(r"-ud-(train|dev|test)\.conllu$", file).group(1)
        cov = stats["coverage"]
        computed[(folder[len("UD_"):], split)] = [
            f"{stats['sentences']:,}", f"{stats['tokens']:,}", f"{stats['words']:,}",
            f"{stats['nonproj_sentences_pct']:.2f}", f"{stats['nonproj_arcs_pct']:.3f}",
            f"{cov['attardi_d2']['pct']:.2f}", f"{cov['attardi_d3']['pct']:.2f}",
        ]
        # Projective systems cover exactly the projective sentences; swap covers all.
        assert cov["arc_eager"]["sentences"] == stats["sentences"] - stats["nonproj_sentences"]
        assert cov["swap"]["sentences"] == stats["sentences"]
    assert set(computed) == set(expected)
    mismatches = {key: (computed[key], expected[key]) for key in expected if computed[key] != expected[key]}
    assert not mismatches
