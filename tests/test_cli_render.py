"""displaCy rendering: crossing arcs really cross, nested arcs nest; the render command."""
import random
import re
from itertools import combinations

import numpy as np
import pytest
from conllu_samples import NONPROJ, random_tree_heads, tiny_parser, write
from typer.testing import CliRunner

from spacy_dynoracle.cli import app
from spacy_dynoracle.conllu_io import read_conllu
from spacy_dynoracle.render import render_svgs, sentence_to_displacy, tree_to_displacy
from spacy_dynoracle.trees import nonprojective_dependents

runner = CliRunner()
WORD_X = re.compile(r'<tspan class="displacy-word" fill="currentColor" x="([\d.]+)">')
ARC = re.compile(r'class="displacy-arc" id="[^"]+" stroke-width="[^"]+" d="M([\d.]+),([\d.]+) C[\d.]+,([\d.]+) ([\d.]+),[\d.]+ [\d.]+,[\d.]+"')
LABEL = re.compile(r'class="displacy-label"[^>]*>([^<]*)</textPath>')


def drawn_arcs(svg):
    """[(x_start, x_end, peak height)] of every arc, in drawing order."""
    return [(float(x0), float(x1), float(y) - float(c)) for x0, y, c, x1 in ARC.findall(svg)]


def check_drawing(heads, labels):
    """Render one tree and check its geometry against the tree."""
    words = [f"w{i}" for i in range(1, len(heads) + 1)]
    data = tree_to_displacy(words, heads, labels)
    (svg,) = render_svgs([data])
    xs = [float(x) for x in WORD_X.findall(svg)]
    arcs = drawn_arcs(svg)
    spans = [(min(d, h) - 1, max(d, h) - 1) for d, h in enumerate(heads, 1) if h != 0]
    assert len(arcs) == len(spans) == len(LABEL.findall(svg))
    assert LABEL.findall(svg) == [label for label, h in zip(labels, heads) if h != 0]
    gap = xs[1] - xs[0] if len(xs) > 1 else 0
    for (x0, x1, _), (a, b) in zip(arcs, spans):
        # Each arc starts just right of its left word and ends just left of its right word.
        assert xs[a] < x0 < xs[a] + gap / 2 and xs[b] - gap / 2 < x1 <= xs[b]
    for (arc1, (a, b)), (arc2, (c, d)) in combinations(zip(arcs, spans), 2):
        if (c, d) < (a, b):
            (arc1, (a, b)), (arc2, (c, d)) = (arc2, (c, d)), (arc1, (a, b))
        if a < c < b < d:
            # Crossing in the tree: arc2 leaves the baseline under arc1 and arc1 lands under
            # arc2, so the two curves intersect.
            assert arc1[0] < arc2[0] < arc1[1] < arc2[1]
        elif a <= c and d <= b:
            assert arc1[2] > arc2[2], "an enclosing arc must be drawn higher"
        if max(a, c) < min(b, d):
            assert arc1[2] != arc2[2], "overlapping arcs need different heights"
    return svg


@pytest.mark.parametrize("index", [0, 2])
def test_nonprojective_sample_sentences_draw_correctly(tmp_path, index):
    sentence = list(read_conllu(write(tmp_path, NONPROJ)))[index]
    assert nonprojective_dependents(sentence.heads)
    check_drawing(sentence.heads, [w.deprel for w in sentence.words])


def test_random_nonprojective_trees_draw_correctly():
    r = random.Random(3)
    drawn = 0
    while drawn < 40:
        n = r.randint(3, 12)
        heads = random_tree_heads(r, n)
        if nonprojective_dependents(heads[1:]):
            check_drawing(heads[1:], [f"l{i}" for i in range(n)])
            drawn += 1


def test_sentence_data_marks_the_root(tmp_path):
    sentence = list(read_conllu(write(tmp_path, NONPROJ)))[1]
    data = sentence_to_displacy(sentence, title="t")
    assert [w["tag"] for w in data["words"]] == ["NOUN", "VERB (root)", "ADV", "PUNCT"]
    assert data["title"] == "t" and len(data["arcs"]) == 3


def test_render_gold_trees_to_html(tmp_path):
    path = write(tmp_path, NONPROJ)
    out = tmp_path / "trees.html"
    result = runner.invoke(app, ["render", str(path), "--out", str(out), "--nonproj"])
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert html.count("<svg") == 2 and "sent_id np1 (gold)" in html and "sent_id np2 (gold)" in html
    assert "sent_id p1" not in html


def test_render_svg_files_one_per_tree(tmp_path):
    path = write(tmp_path, NONPROJ)
    result = runner.invoke(app, ["render", str(path), "--out", str(tmp_path / "t.svg"), "--sents", "1,3"])
    assert result.exit_code == 0, result.output
    for name in ("t-1.svg", "t-2.svg"):
        svg = (tmp_path / name).read_text(encoding="utf-8")
        assert svg.startswith("<svg") and svg.count("<svg") == 1
    result = runner.invoke(app, ["render", str(path), "--out", str(tmp_path / "one.svg"), "--sent-id", "p1"])
    assert result.exit_code == 0 and (tmp_path / "one.svg").exists()


def test_render_with_a_pipeline_and_gold(tmp_path):
    path = write(tmp_path, NONPROJ * 2)
    model = tmp_path / "model"
    tiny_parser(path, iterations=3).to_disk(model)
    out = tmp_path / "p.html"
    result = runner.invoke(app, ["render", str(model), str(path), "--out", str(out), "--limit", "2", "--gold"])
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert html.count("<svg") == 4 and html.count("(gold)") == 2


def test_render_errors(tmp_path):
    path = write(tmp_path, NONPROJ)
    result = runner.invoke(app, ["render", str(path), "--out", str(tmp_path / "x.png")])
    assert result.exit_code == 1 and ".html or .svg" in result.output
    result = runner.invoke(app, ["render", str(path), "--out", str(tmp_path / "x.html"), "--sent-id", "nope"])
    assert result.exit_code == 1 and "no sentence matches" in result.output
    result = runner.invoke(app, ["render", str(tmp_path / "gone.conllu"), "--out", str(tmp_path / "x.html")])
    assert result.exit_code == 1 and "gone.conllu does not exist" in result.output


def test_render_uncertain_arcs_of_a_window_pipeline(tmp_path):
    from conllu_samples import random_treebank, tiny_window_parser

    path = write(tmp_path, random_treebank(5, n_sents=20))
    model = tmp_path / "window"
    tiny_window_parser(path, iterations=2).to_disk(model)
    out = tmp_path / "u.html"
    # threshold above 1: every arc is "uncertain" and carries its probability
    result = runner.invoke(app, ["render", str(model), str(path), "--out", str(out), "--limit", "3",
                                 "--uncertain", "1.0", "--min-alt", "0.0", "--gold"])
    assert result.exit_code == 0, result.output
    html = out.read_text(encoding="utf-8")
    assert html.count("<svg") == 6
    parsed = html.split("(gold)")[0]
    labels = LABEL.findall(parsed)
    assert labels and all(re.search(r"\d\.\d\d$", label) for label in labels)
    assert any(label.startswith("?") for label in labels)        # alternative heads drawn
    # a high threshold with alternatives off the scale: only the parser's own arcs, and the
    # probabilities are those of the pipeline's marginals (checked against the API)
    result = runner.invoke(app, ["render", str(model), str(path), "--out", str(out), "--sents", "1",
                                 "--uncertain", "0.0", "--min-alt", "1.01"])
    assert result.exit_code == 0, result.output
    import spacy
    from spacy.tokens import Doc

    from spacy_dynoracle import exact_decoding as ed
    from spacy_dynoracle.parser import arc_marginals_parser

    nlp = spacy.load(model)
    arc_marginals_parser(nlp)
    sentence = list(read_conllu(path))[0]
    words = [w.form for w in sentence.words]
    doc = nlp(Doc(nlp.vocab, words=words, spaces=sentence.spaces(),
                  sent_starts=[True] + [False] * (len(words) - 1)))
    expected = ed.uncertain_arcs_displacy(doc, threshold=0.0, min_alt=1.01)
    assert sum(t.head.i == t.i for t in doc) == 1                  # one preset sentence
    assert np.allclose(np.diag(doc._.dynoracle_arc_marginals).sum(), 1.0)   # one root each
    assert LABEL.findall(out.read_text(encoding="utf-8")) == [a["label"] for a in expected["arcs"]]
    assert not any("?" in a["label"] or " 0." in a["label"] for a in expected["arcs"])


def test_render_uncertain_needs_marginals(tmp_path):
    path = write(tmp_path, NONPROJ * 2)
    model = tmp_path / "stock"
    tiny_parser(path, iterations=1).to_disk(model)
    out = tmp_path / "u.html"
    result = runner.invoke(app, ["render", str(model), str(path), "--out", str(out), "--uncertain", "0.9"])
    assert result.exit_code == 1 and "no arc marginals" in result.output and not out.exists()
    result = runner.invoke(app, ["render", str(path), "--out", str(out), "--uncertain", "0.9"])
    assert result.exit_code == 1 and "give a pipeline" in result.output
    result = runner.invoke(app, ["render", str(model), str(path), "--out", str(out), "--uncertain", "2"])
    assert result.exit_code == 1 and "[0, 1]" in result.output
