"""projects/ud/scripts/error_breakdown.py (issue 19): the gold cells of a word (against a
brute-force reading of the definitions), runs as the mean of their seeds, and contributions
that add up to the LAS difference in every grouping and table."""
import random
import re
import sys
from pathlib import Path

import pytest

from conllu_samples import NONPROJ, perturb_treebank, random_treebank, write

PROJECT = Path(__file__).resolve().parents[1] / "projects" / "ud"
sys.path.insert(0, str(PROJECT / "scripts"))

import error_breakdown as eb  # noqa: E402
from spacy_dynoracle.corpus import read_sentences  # noqa: E402

UPOS = ("NOUN", "VERB", "ADJ", "DET", "PUNCT", "ADP", "PRON", "ADV", "CCONJ", "PROPN")


def brute_nonprojective(heads):
    """{dependent: the words strictly inside its arc} of the non-projective arcs: an arc is
    non-projective iff a word strictly between its ends does not descend from its head."""
    def descends(k, h):
        while k != 0:
            if k == h:
                return True
            k = heads[k - 1]
        return False

    out = {}
    for d, h in enumerate(heads, 1):
        inside = range(min(h, d) + 1, max(h, d))
        if h and any(not descends(k, h) for k in inside):
            out[d] = set(inside)
    return out


def with_upos(text, seed, p_change=0.0):
    """The CoNLL-U text with a random UPOS per word (the random treebanks have X), or with
    the UPOS of p_change of the words changed (a tagger's errors)."""
    r = random.Random(seed)
    lines = []
    for line in text.split("\n"):
        cols = line.split("\t")
        if len(cols) == 10:
            if cols[3] == "X":
                cols[3] = r.choice(UPOS)
            elif r.random() < p_change:
                cols[3] = r.choice([u for u in UPOS if u != cols[3]])
        lines.append("\t".join(cols))
    return "\n".join(lines)


def test_gold_cells_by_hand_and_against_the_definitions(tmp_path):
    gold = list(read_sentences(write(tmp_path, NONPROJ)))
    groups = eb.gold_groups(gold)
    # np1: hearing(2) -> issue(7) spans "is scheduled" (not below hearing): words 3-6 inside;
    # p1 (words 10-13 of the file): projective; np2 (from 14): written(7) -> Who(1) and
    # Who(1) -> by(8) span words 2-6 and 2-7. Indices count from 0 over the file's words.
    assert [i for i, k in enumerate(groups[eb.GOLD_NP_ARC]) if k == "non-projective"] == [6, 13, 20]
    inside = [i for i, k in enumerate(groups[eb.IN_NP_SPAN]) if k == "yes"]
    assert inside == [2, 3, 4, 5] + [14, 15, 16, 17, 18, 19]
    assert groups[eb.LENGTH_SIDE][:4] == ["1, head right", "2, head right", "1, head right", "root"]
    assert groups[eb.LENGTH_SIDE][6] == "3-6, head left"      # issue(7) <- hearing(2): length 5
    sentences = list(read_sentences(write(tmp_path, random_treebank(7, n_sents=80), "r.conllu")))
    groups = eb.gold_groups(sentences)
    i = 0
    for s in sentences:
        nonprojective = brute_nonprojective(s.heads)
        inside = set().union(*nonprojective.values()) if nonprojective else set()
        for d in range(1, len(s.words) + 1):
            assert (groups[eb.GOLD_NP_ARC][i] == "non-projective") == (d in nonprojective)
            assert (groups[eb.IN_NP_SPAN][i] == "yes") == (d in inside)
            i += 1
    assert "non-projective" in groups[eb.GOLD_NP_ARC] and "yes" in groups[eb.IN_NP_SPAN]


def _runs(tmp_path):
    """Gold sentences with UPOS and two runs of two seeds each (perturbed copies, the tags
    of some words changed)."""
    gold_text = with_upos(random_treebank(11, n_sents=60), 0)
    gold = list(read_sentences(write(tmp_path, gold_text, "gold.conllu")))
    runs = {}
    for rid, p_head in (("a", 0.2), ("b", 0.4)):
        for seed in (0, 1):
            text = with_upos(perturb_treebank(gold_text, 100 * seed + len(runs) * 7 + int(10 * p_head), p_head=p_head),
                             seed, p_change=0.2)
            name = f"{rid}-s{seed}"
            runs.setdefault(rid, {})[name] = list(read_sentences(write(tmp_path, text, f"{name}.conllu")))
    return gold, runs


def gold_text_of(tmp_path):
    return (tmp_path / "gold.conllu").read_text(encoding="utf-8")


def _contribution(text):
    return float(re.search(r"→ \*\*([+-][0-9.]+)\*\*", text).group(1))


def test_a_run_is_the_mean_of_its_seeds_and_the_cells_add_up_to_the_difference(tmp_path):
    gold, runs = _runs(tmp_path)
    b = eb.breakdown(gold, runs)
    w = b.words
    assert b.seeds == {"a": ["a-s0", "a-s1"], "b": ["b-s0", "b-s1"]}
    # the mean of the seeds' LAS as spacy_dynoracle.evaluate scores them
    for rid in ("a", "b"):
        assert b.las(rid) == pytest.approx(sum(w.np_arcs[s]["LAS"] for s in b.seeds[rid]) / 2)
    delta = b.las("b") - b.las("a")
    assert abs(delta) > 1
    for group in eb.GROUPS:
        keys = w.groups[group]
        assert len(keys) == w.n
        total = sum(eb.points(b, "b", [i for i, k in enumerate(keys) if k == cell])
                    - eb.points(b, "a", [i for i, k in enumerate(keys) if k == cell]) for cell in set(keys))
        assert total == pytest.approx(delta)
        rows = eb.cell_table(b, group, "a").splitlines()
        assert rows[-1].startswith("| all |") and _contribution(rows[-1]) == pytest.approx(delta, abs=0.006)
        assert sum(_contribution(r) for r in rows[2:-1]) == pytest.approx(delta, abs=0.006 * len(rows))
    # within one cell of another grouping: the cells sum to what that cell adds
    within = [i for i, k in enumerate(w.groups[eb.LENGTH_SIDE]) if k == "1, head right"]
    part = eb.points(b, "b", within) - eb.points(b, "a", within)
    assert 0 < len(within) < w.n and part != pytest.approx(delta)
    rows = eb.cell_table(b, eb.UPOS_GROUP, "a", within).splitlines()
    assert rows[-1].startswith(f"| all | {len(within)} |") and _contribution(rows[-1]) == pytest.approx(part, abs=0.006)
    assert sum(int(r.split("|")[2]) for r in rows[2:-1]) == len(within)
    # the kinds of LAS error sum to minus the difference, the crossing kinds to the difference
    kinds = eb.error_kind_table(b, "a").splitlines()[-1].split("|")[2:-1]
    assert float(kinds[0]) == pytest.approx(delta, abs=0.006)
    assert sum(float(x) for x in kinds[1:]) == pytest.approx(-delta, abs=0.03)
    crossing = eb.crossing_cost_table(b, "a").splitlines()[-1].split("|")[1:-1]
    assert sum(float(crossing[k]) for k in (4, 7, 10)) == pytest.approx(delta, abs=0.02)
    # the predicted UPOS: about 80% right (20% changed), never right where the run wrote "_"
    assert 70 < 100 * sum(b.upos_ok["a-s0"]) / w.n < 90
    untagged = "\n".join("\t".join(c[:3] + ["_"] + c[4:]) if len(c) == 10 else "\t".join(c)
                         for c in (line.split("\t") for line in gold_text_of(tmp_path).split("\n")))
    assert not any(eb.upos_right(gold, list(read_sentences(write(tmp_path, untagged, "untagged.conllu")))))


def test_a_run_against_itself_and_a_perfect_run(tmp_path):
    """Negative controls: the same predictions under two names differ in no cell; the gold
    trees as a run score 100 with no label-only or head errors."""
    gold, runs = _runs(tmp_path)
    b = eb.breakdown(gold, {"a": runs["a"], "copy": {"copy-s0": runs["a"]["a-s0"], "copy-s1": runs["a"]["a-s1"]},
                            "gold": {"gold-s0": gold}})
    for group in eb.GROUPS:
        rows = eb.cell_table(b, group, "a").splitlines()[2:]
        assert all(row.split("|")[5].strip() == "+0.0 / +0.0 → **+0.00**" for row in rows)
    runs_rows = {row.split("|")[1].strip(): row.split("|") for row in eb.runs_table(b).splitlines()[2:]}
    assert runs_rows["gold"][3].strip() == "100.00"
    assert runs_rows["gold"][7].strip() == runs_rows["gold"][8].strip() == "0.0"     # label-only, head errors
    assert runs_rows["gold"][9].strip() == "100.0"        # the gold UPOS


def test_the_command_line_on_conllu_files(tmp_path, capsys):
    gold_text = with_upos(random_treebank(5, n_sents=30), 0)
    gold = write(tmp_path, gold_text, "gold.conllu")
    preds = []
    for name, seed, p_head in (("good-s0", 1, 0.1), ("good-s1", 2, 0.1), ("bad-s0", 3, 0.5)):
        path = write(tmp_path, perturb_treebank(gold_text, seed, p_head=p_head), f"{name}.conllu")
        preds += ["--pred", f"{name}={path}"]
    eb.main(["--gold", str(gold), *preds, "--best-of", "good,bad", "--alias", "bad=worse"])
    out = capsys.readouterr().out
    assert "| good | 2 |" in out and "| worse | 1 |" in out
    assert "against good (" in out and "against worse" not in out     # the best of the two
    assert out.count("### By ") == len(eb.GROUPS)
    eb.main(["--gold", str(gold), *preds, "--baselines", "good", "--within", "head direction=head left"])
    out = capsys.readouterr().out
    assert out.count("### Within head direction = head left: by ") == len(eb.GROUPS) - 1
    for bad in (["--alias", "noequals"], ["--baselines", "nobody"], ["--within", "head direction=nowhere"]):
        with pytest.raises(SystemExit):
            eb.main(["--gold", str(gold), *preds, *bad])
    assert "expected ID=NAME" in capsys.readouterr().err


def test_seeds_are_the_folders_of_the_run_id_and_only_those(tmp_path):
    base = tmp_path / "UD_X" / "tagger"
    for name in ("swap-dynamic-s0", "swap-dynamic-s1", "swap-dynamic-k0-p1.0+margin-s0", "swap-dynamic-s2"):
        (base / name).mkdir(parents=True)
        if name != "swap-dynamic-s2":          # still training: no run.json
            (base / name / "run.json").write_text("{}")
    assert [f.name for f in eb.seed_folders(tmp_path, "UD_X", "tagger", "swap-dynamic")] == \
        ["swap-dynamic-s0", "swap-dynamic-s1"]
    assert eb.run_id("swap-dynamic-k0-p1.0+margin-s12") == "swap-dynamic-k0-p1.0+margin"
