"""displaCy rendering of dependency trees, non-projective ones included.

Trees are passed to displaCy as ``manual=True`` data built here, not as Docs: displaCy's
Doc path merges punctuation into the preceding word by default (``collapse_punct``),
which would redraw the arcs of a UD tree. Arc heights come from displaCy's own
``DependencyRenderer.get_levels`` (spaCy 3.8): arcs are placed in order of length, each
one level above every shorter arc it overlaps. So an arc nested inside another is always
drawn lower, and two crossing arcs (interleaved end points) get different heights and
intersect exactly once, which is what a non-projective arc should look like. The tests
check this on the rendered SVG.
"""
from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Sequence


def tree_to_displacy(
    words: Sequence[str],
    heads: Sequence[int],
    labels: Sequence[str],
    tags: Optional[Sequence[str]] = None,
    title: Optional[str] = None,
) -> Dict:
    """displaCy ``manual`` data for one tree; ``heads[i]`` = head of word i+1, 0 = root.

    The root has no arc in displaCy, so "(root)" is appended to its tag line.
    """
    tags = tags if tags is not None else [""] * len(words)
    out_words = []
    arcs = []
    for i, (word, head, label, tag) in enumerate(zip(words, heads, labels, tags)):
        if head == 0:
            tag = f"{tag} (root)".strip()
        else:
            start, end = sorted((i, head - 1))
            arcs.append({"start": start, "end": end, "label": label, "dir": "left" if i < head - 1 else "right"})
        out_words.append({"text": word, "tag": tag})
    data: Dict = {"words": out_words, "arcs": arcs}
    if title:
        data["title"] = title
    return data


def sentence_to_displacy(sentence, title: Optional[str] = None) -> Dict:
    """displaCy data for a parsed `conllu_io.Sentence` (FORM, UPOS, HEAD, DEPREL)."""
    words = sentence.words
    return tree_to_displacy(
        [w.form for w in words], [w.head for w in words], [w.deprel for w in words],
        [w.upos if w.upos != "_" else "" for w in words], title,
    )


def span_to_displacy(span, title: Optional[str] = None) -> Dict:
    """displaCy data for a parsed sentence (a spaCy Span; heads outside it are roots)."""
    heads = []
    for token in span:
        inside = span.start <= token.head.i < span.end and token.head.i != token.i
        heads.append(token.head.i - span.start + 1 if inside else 0)
    labels = ["root" if t.dep_ == "ROOT" else t.dep_ for t in span]
    return tree_to_displacy([t.text for t in span], heads, labels, [t.pos_ for t in span], title)


def render_trees(parses: Iterable[Dict], *, page: bool = True, options: Optional[Dict] = None) -> str:
    """Render displaCy data as one HTML page (page=True) or concatenated SVG markup."""
    from spacy import displacy

    return displacy.render(list(parses), style="dep", manual=True, page=page, jupyter=False,
                           options=options or {})


def render_svgs(parses: Iterable[Dict], options: Optional[Dict] = None) -> List[str]:
    """One standalone SVG document per tree (titles are HTML headings, so they are left out)."""
    untitled = ({k: v for k, v in p.items() if k != "title"} for p in parses)
    return [render_trees([p], page=False, options=options) for p in untitled]
