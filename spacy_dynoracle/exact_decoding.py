"""Exact decoding and arc marginals for `dynoracle_parser` with a window model
(issue 8 items 2-3; spec docs/specs/dp_tabulation.md §5, §7). Docs: docs/tabulation.md.

* The model is `spacy_dynoracle.WindowParserModel.v1` (architectures.py): spaCy's parser
  model whose state features are only (b0, s0). Every move's score is then a function of the
  window (s0, b0), which the O(n^3) charts of arc_hybrid, arc_eager and arc_standard read
  exactly (docs/specs/dp_tabulation.md §5.3: buffer and stack-top positions are free). It
  trains like any parser model (greedy, with the dynamic oracle).
* `window_class_scores(parser, doc)`: the scores of every class in every window (s0, b0),
  from the per-token precomputed lower-layer vectors in batched matrix calls
  (docs/specs/dp_tabulation.md §7 step 2).
* `exact_parse(parser, docs)`: the globally best transition sequence of the model (sum of
  per-window log-softmax scores; labels eliminated per window, docs/specs/dp_tabulation.md §5.7),
  applied with the real transitions; with `marginals=True` also the arc marginals on the Doc:
  `doc._.dynoracle_arc_marginals` (n x n array, [child, head], a root is its own head) and
  `token._.dynoracle_head_probs` (the top heads [(head index, probability), ...]).

Importing this module (the factory does) registers the Doc and Token extensions.
In a pipeline: `dynoracle_parser` with `decode = "exact"` (Parser.predict returns
`exact_states`) and/or `arc_marginals = true` (set_annotations adds the marginals).
"""
from typing import List, Optional

import numpy as np
from spacy.tokens import Doc, Token

from . import load_compiled
from .architectures import WINDOW_FEATURES, n_state_tokens


def check_exact_config(model, system):
    """Factory-time check of decode="exact" / arc_marginals=True."""
    if system not in SUPPORTED_SYSTEMS:
        raise ValueError(f"exact decoding and arc marginals support {SUPPORTED_SYSTEMS}, "
                         f"not {system!r}")
    if n_state_tokens(model) != WINDOW_FEATURES:
        raise ValueError("decode='exact' and arc_marginals need a window model: set "
                         "[components.parser.model] @architectures = "
                         "\"spacy_dynoracle.WindowParserModel.v1\" "
                         "(docs/specs/dp_tabulation.md §5.3)")


def _check_window_model(parser):
    n = n_state_tokens(parser.model)
    if n != WINDOW_FEATURES:
        raise ValueError(
            f"exact decoding needs a window model (spacy_dynoracle.WindowParserModel.v1, "
            f"{WINDOW_FEATURES} state features); this parser's model reads "
            f"{n} state tokens (children, deeper stack), which the "
            "tabulation cannot score exactly (docs/specs/dp_tabulation.md §5.3)")


def window_class_scores(parser, doc: Doc) -> np.ndarray:
    """scores[s0, b0, class] for every window, shape (n+1, n+1, n_classes), index n = none
    (empty stack / empty buffer), exactly the scores the parser's model gives a state with
    that stack top and buffer front. Unseen classes get -inf."""
    return window_class_scores_batch(parser, [doc])[0]


def window_class_scores_batch(parser, docs: List[Doc]) -> list:
    """window_class_scores of every doc (None for an empty doc), with one tok2vec call for
    the batch (docs/specs/dp_tabulation.md §7 step 2: the lower layer is computed once per token
    and slot, the windows combine it by broadcasting, the upper layer is one matrix product per
    doc)."""
    _check_window_model(parser)
    model = parser.model
    lower = model.get_ref("lower")
    W = np.asarray(lower.get_param("W"))               # (nF, nO, nP, nI)
    b = np.asarray(lower.get_param("b"))               # (nO, nP)
    pad = np.asarray(lower.get_param("pad"))[0]        # (nF, nO, nP)
    nF, nO, nP, nI = W.shape
    upper = None
    if model.attrs.get("has_upper", True) and model.has_ref("upper"):
        upper = model.get_ref("upper")
        UW = np.asarray(upper.get_param("W")).T
        Ub = np.asarray(upper.get_param("b"))
    unseen = sorted(model.attrs.get("unseen_classes", ()))
    nonempty = [d for d in docs if len(d)]
    out = [None] * len(docs)
    if not nonempty:
        return out
    X_all = np.asarray(model.get_ref("tok2vec").predict(nonempty), dtype=np.float32)
    Y_all = (X_all @ W.reshape(nF * nO * nP, nI).T).reshape(-1, nF, nO, nP)
    # pieces before units, so that each maxout piece is a contiguous (nO,) row
    Y_all = np.ascontiguousarray(Y_all.transpose(0, 1, 3, 2))            # (N, nF, nP, nO)
    pad = np.ascontiguousarray(pad.transpose(0, 2, 1))                   # (nF, nP, nO)
    bias = np.ascontiguousarray(b.T)                                     # (nP, nO)
    start = 0
    for k, doc in enumerate(docs):
        n = len(doc)
        if not n:
            continue
        N1 = n + 1
        Y = np.concatenate([Y_all[start:start + n], pad[None]], axis=0)   # row n: padding
        start += n
        # hidden[s0, b0] = maxout(Y[b0, slot 0] + Y[s0, slot 1] + b), in blocks of s0 rows
        # (a few MB each: the full (N1, N1, nP, nO) sum is ~100 MB at n = 250)
        Yb = Y[:, 0] + bias                                               # (N1, nP, nO)
        Ys = Y[:, 1]
        H = np.empty((N1, N1, nO), dtype=np.float32)
        rows = max(1, (1 << 20) // (N1 * nP * nO))
        buf = np.empty((rows, N1, nP, nO), dtype=np.float32)
        for s in range(0, N1, rows):
            e = min(N1, s + rows)
            A = np.add(Ys[s:e, None], Yb[None], out=buf[:e - s])
            np.maximum.reduce(A, axis=2, out=H[s:e])
        H = H.reshape(N1 * N1, nO)
        S = (H @ UW + Ub) if upper is not None else H                     # one 2-D product
        S = S.astype(np.float64).reshape(N1, N1, -1)
        if unseen:
            S[..., unseen] = -np.inf
        out[k] = S
    return out


def _class_moves(parser):
    codes = load_compiled("system_base").MOVE_CODES
    moves = np.empty(parser.moves.n_moves, dtype=np.intp)
    for i in range(parser.moves.n_moves):
        code = parser.moves.get_class_name(i).partition("-")[0]
        moves[i] = codes.index(code)
    return moves


def _log_softmax(S):
    m = S.max(axis=-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    out = S - m                      # in place from here: S is (n+1)^2 x classes
    tmp = np.exp(out)
    with np.errstate(divide="ignore"):
        out -= np.log(tmp.sum(axis=-1, keepdims=True))
    return out


def _move_groups(parser):
    """(move id, class indices) per unlabelled move; a slice when the classes are
    contiguous (spaCy orders them by action), so the per-move views need no copy."""
    class_move = _class_moves(parser)
    groups = []
    for m in np.unique(class_move):
        cls = np.flatnonzero(class_move == m)
        sel = slice(cls[0], cls[-1] + 1) if cls[-1] - cls[0] + 1 == len(cls) else cls
        groups.append((int(m), cls, sel))
    return groups


def move_window_scores(parser, doc, semiring="max", normalize=True, S=None):
    """Per unlabelled move id: (N1, N1) scores over windows (s0, b0), labels eliminated
    (docs/specs/dp_tabulation.md §5.7: max or log-sum-exp), and per move the best class index per
    window. S: the doc's window_class_scores if already computed. normalize="all" subtracts the
    window's log-partition over all classes from the eliminated scores (max and
    log-sum-exp commute with that shift), so the log-softmax is never materialised."""
    if S is None:
        S = window_class_scores(parser, doc)
    if normalize not in (True, False, "all", "valid", "none"):
        raise ValueError(f"normalize must be 'all', 'valid' or 'none', not {normalize!r}")
    out, best_class, mass = {}, {}, {}
    for m, cls, sel in _move_groups(parser):
        sub = S[..., sel]
        arg = sub.argmax(axis=-1)
        best_class[m] = cls[arg]
        if semiring == "max":
            out[m] = np.take_along_axis(sub, arg[..., None], axis=-1)[..., 0]
        else:
            out[m] = _lse(sub)
        if normalize == "valid":      # the per-move mass, for normalising over valid moves
            mass[m] = out[m] if semiring != "max" else _lse(sub)
    if normalize in (True, "all"):
        # the moves partition the classes: in the log semiring Z is their log-sum-exp
        Z = _lse(np.stack(list(out.values()), axis=-1)) if semiring != "max" else _lse(S)
        with np.errstate(invalid="ignore"):
            out = {m: np.where(np.isneginf(v), -np.inf, v - Z) for m, v in out.items()}
    if normalize == "valid":
        out["mass"] = mass
    return out, best_class


def preset_boundaries(doc):
    """(starts, cannot_start): boolean arrays of a Doc's preset sentence boundaries
    (Token.is_sent_start True / False, i.e. TokenC.sent_start 1 / -1). Read them *before*
    the parser annotates the Doc: afterwards they are the parse's own boundaries."""
    flags = [t.is_sent_start for t in doc]
    starts = np.array([f is True for f in flags], dtype=bool)
    if len(starts):
        starts[0] = False        # spaCy reports True for the first token; it constrains nothing
    return starts, np.array([f is False for f in flags], dtype=bool)


def _mask_presets(ms, system, presets, n):
    """Preset sentence boundaries as -inf windows (docs/conventions.md "Sentences"). The
    systems' checks read s0 and b0 only (system_base.pxd shift_is_valid / root_is_valid,
    LEFT of arc_hybrid and arc_eager and RIGHT of arc_eager: b0 must not start a preset
    sentence), so they are window masks and the charts stay exact: SHIFT of a sentence
    start onto a stack word, LEFT (and arc_eager's RIGHT) towards a sentence start, ROOT
    before a word that cannot start a sentence."""
    if presets is None:
        return
    starts, cannot = presets
    if not (starts.any() or cannot.any()):
        return
    SHIFT, LEFT, RIGHT, ROOT = 0, 1, 2, 3
    N1 = n + 1
    start_b0 = np.zeros((1, N1), dtype=bool)
    start_b0[0, :n] = starts
    cannot_b0 = np.zeros((1, N1), dtype=bool)
    cannot_b0[0, :n] = cannot
    shift_bad = np.zeros((N1, N1), dtype=bool)
    shift_bad[:n] = start_b0                 # s0 a word (index n: empty stack, always valid)
    masks = {SHIFT: shift_bad, ROOT: cannot_b0}
    if system in ("arc_hybrid", "arc_eager"):
        masks[LEFT] = start_b0
    if system == "arc_eager":
        masks[RIGHT] = start_b0
    for table in (ms, ms.get("mass", {})):
        for m, bad in masks.items():
            if m in table:
                table[m] = np.where(bad, -np.inf, table[m])


def _lse(a, axis=-1):
    m = a.max(axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return (m + np.log(np.exp(a - m).sum(axis=axis, keepdims=True)))[..., 0]


def _valid_mass_access(ms, n):
    """Shared by the valid-class normalisations: `get(table, move)` (-inf where the move
    has no table), the per-window log mass of each move `ms["mass"]`, and `with_b0(move)`:
    that mass where b0 exists (column n = empty buffer gets -inf), for moves needing b0."""
    neg2 = np.full((n + 1, n + 1), -np.inf)
    mass = ms["mass"]
    get = lambda d, m: d.get(m, neg2)
    has_b0 = np.ones((n + 1, n + 1), dtype=bool)
    has_b0[:, n] = False
    with_b0 = lambda m: np.where(has_b0, get(mass, m), -np.inf)
    return get, mass, with_b0


def _valid_normalised_hybrid(ms, n):
    """arc_hybrid tables of log p(move | state) with the softmax over the state's *valid*
    classes, as greedy decoding sees them (docs/specs/dp_tabulation.md §5.6). The valid set depends
    on whether s1 exists (RIGHT vs ROOT) and b0 exists (SHIFT, LEFT), so the shift table needs s1:
    the context chart (docs/specs/dp_tabulation.md §5.4 row 2, O(n^4)); left gets its s1 axis (none
    vs a word)."""
    SHIFT, LEFT, RIGHT, ROOT = 0, 1, 2, 3
    N1 = n + 1
    get, mass, with_b0 = _valid_mass_access(ms, n)
    sh_m, le_m = with_b0(SHIFT), with_b0(LEFT)
    Z_root = _lse(np.stack([sh_m, le_m, get(mass, ROOT)], -1))    # s0 alone on the stack
    Z_right = _lse(np.stack([sh_m, le_m, get(mass, RIGHT)], -1))  # s1 a word
    Z_empty = sh_m                                                   # empty stack: SHIFT only
    shift = np.empty((N1, N1, N1))
    shift[:] = (get(ms, SHIFT) - Z_right)[None]
    shift[n] = get(ms, SHIFT) - Z_root
    shift[n, n] = get(ms, SHIFT)[n] - Z_empty[n]
    left = np.empty((N1, N1, N1))
    left[:] = (get(ms, LEFT) - Z_right)[None]
    left[n] = get(ms, LEFT) - Z_root
    with np.errstate(invalid="ignore"):
        out = [shift, left, get(ms, RIGHT) - Z_right, get(ms, ROOT) - Z_root]
    return [np.where(np.isnan(t), -np.inf, t) for t in out]


def _valid_normalised_eager(ms, n):
    """arc_eager tables of log p(move | state), softmax over the state's *valid* classes
    (docs/specs/dp_tabulation.md §5.6; arc_eager.pyx): with s0 the only word, {SHIFT, RIGHT, LEFT,
    ROOT}; with a word s1 below it, {SHIFT, RIGHT, LEFT if s0 is an L top, REDUCE};
    SHIFT/RIGHT/LEFT need b0; an empty stack allows SHIFT only. The set depends on s1 (and on the
    flag of s0), so SHIFT and RIGHT need the context chart (tables [f, s1, s0, b0], O(n^4))."""
    SHIFT, LEFT, RIGHT, ROOT, REDUCE = 0, 1, 2, 3, 9
    N1 = n + 1
    get, mass, with_b0 = _valid_mass_access(ms, n)
    sh_m, ra_m, le_m = with_b0(SHIFT), with_b0(RIGHT), with_b0(LEFT)
    Z_alone = _lse(np.stack([sh_m, ra_m, le_m, get(mass, ROOT)], -1))      # s0 alone, L top
    Z_word = [_lse(np.stack([sh_m, ra_m, le_m, get(mass, REDUCE)], -1)),   # s1 a word, L top
              _lse(np.stack([sh_m, ra_m, get(mass, REDUCE)], -1))]         # s1 a word, R top
    Z_empty = sh_m                                                           # no stack word

    def push(m):                      # [f, s1, s0, b0]
        t = np.empty((2, N1, N1, N1))
        for f in (0, 1):
            t[f] = (get(ms, m) - Z_word[f])[None]
            t[f, n] = get(ms, m) - Z_alone          # an R top is never alone: unread for f = 1
        t[0, n, n] = get(ms, m)[n] - Z_empty[n]
        return t

    left = np.empty((N1, N1, N1))
    left[:] = (get(ms, LEFT) - Z_word[0])[None]
    left[n] = get(ms, LEFT) - Z_alone
    reduce = np.stack([get(ms, REDUCE) - Z_word[0], get(ms, REDUCE) - Z_word[1]])[:, None]
    reduce = np.broadcast_to(reduce, (2, N1, N1, N1))            # [f, s1, s0, b0]
    with np.errstate(invalid="ignore"):
        out = [push(SHIFT), push(RIGHT), left, reduce, get(ms, ROOT) - Z_alone]
    return [np.where(np.isnan(t), -np.inf, t) for t in out]


def _tables(system, ms, n):
    """Chart tables (docs/tabulation.md) from (s0, b0) move scores; absent moves -inf.
    Returns (tables, kernel keywords)."""
    N1 = n + 1
    neg2 = np.full((N1, N1), -np.inf)
    SHIFT, LEFT, RIGHT, ROOT, REDUCE = 0, 1, 2, 3, 9
    g = lambda m: ms.get(m, neg2)
    if "mass" in ms:
        if system == "arc_hybrid":
            return _valid_normalised_hybrid(ms, n), {}      # 3-D shift: the context chart
        if system == "arc_eager":
            return _valid_normalised_eager(ms, n), {"context": True}
        raise ValueError("normalize='valid' is implemented for arc_hybrid and arc_eager")
    # (s0, b0) tables everywhere: the kernels read a missing s1 / flag axis with stride 0
    if system in ("arc_hybrid", "arc_standard"):
        return [g(SHIFT), g(LEFT), g(RIGHT), g(ROOT)], {}
    if system == "arc_eager":
        return [g(SHIFT), g(RIGHT), g(LEFT), g(REDUCE), g(ROOT)], {}
    raise ValueError(f"exact decoding supports arc_hybrid, arc_eager and arc_standard, "
                     f"not {system!r}")


def _kernels(system):
    tab = load_compiled("tabulation")
    return {"arc_hybrid": (tab.hybrid_viterbi, tab.hybrid_inside_outside),
            "arc_eager": (tab.eager_viterbi, tab.eager_inside_outside),
            "arc_standard": (tab.standard_viterbi, tab.standard_inside_outside)}[system]


def exact_sequence(parser, doc, normalize=True, S=None, presets=None):
    """(best score, [(move id, class index), ...]) of the best computation for `doc` that
    respects its preset sentence boundaries (`presets`: preset_boundaries(doc), read from
    the Doc if not given)."""
    system = parser.cfg.get("transition_system", "arc_hybrid")
    n = len(doc)
    ms, best_class = move_window_scores(parser, doc, "max", normalize, S)
    _mask_presets(ms, system, preset_boundaries(doc) if presets is None else presets, n)
    viterbi, _ = _kernels(system)
    tables, kw = _tables(system, ms, n)
    best, moves = viterbi(*tables, **kw)
    if moves is None:
        raise ValueError("no complete computation has a finite score")
    # replay to read each step's window (s0, b0) for its best label
    state = parser.moves.init_batch([doc])[0]
    seq = []
    for m in moves:
        if int(m) not in parser.moves._sim_moves(state):
            raise ValueError(
                "the exact sequence is invalid in this Doc (were its preset sentence "
                "boundaries read after parsing? see docs/tabulation.md)")
        s0 = state.S(0) if state.stack_depth() > 0 else -1
        b0 = state.B(0) if state.buffer_length() > 0 else -1
        clas = int(best_class[int(m)][s0 if s0 >= 0 else n, b0 if b0 >= 0 else n])
        seq.append((int(m), clas))
        parser.moves._sim_apply(state, clas)
    return best, seq


SUPPORTED_SYSTEMS = ("arc_hybrid", "arc_eager", "arc_standard")


def exact_states(parser, docs: List[Doc], normalize: bool = True, scores=None, presets=None):
    """Final parser states of the exact best computations (what Parser.predict returns).
    scores: window_class_scores_batch(parser, docs) if already computed; presets: each
    doc's preset_boundaries (read from the docs if not given)."""
    if scores is None:
        scores = window_class_scores_batch(parser, docs)
    if presets is None:
        presets = [preset_boundaries(doc) for doc in docs]
    states = parser.moves.init_batch(docs)
    for doc, state, S, pre in zip(docs, states, scores, presets):
        if len(doc):
            _, seq = exact_sequence(parser, doc, normalize, S, pre)
            for _, clas in seq:
                parser.moves._sim_apply(state, clas)
    return states


def set_marginals(parser, docs: List[Doc], normalize: bool = True, scores=None,
                  presets=None) -> None:
    """doc._.dynoracle_arc_marginals for each doc: arc marginals of the window model's
    distribution over the computations that respect the preset sentence boundaries (the
    same tables as exact decoding, log semiring). presets: preset_boundaries of each doc
    taken before parsing; None reads them from the docs, so pass them for parsed docs."""
    system = parser.cfg.get("transition_system", "arc_hybrid")
    _, io = _kernels(system)
    if scores is None or any(S is None and len(d) for S, d in zip(scores, docs)):
        scores = window_class_scores_batch(parser, docs)
    if presets is None:
        presets = [preset_boundaries(doc) for doc in docs]
    for doc, S, pre in zip(docs, scores, presets):
        if not len(doc):
            continue
        ms, _ = move_window_scores(parser, doc, "log", normalize, S)
        _mask_presets(ms, system, pre, len(doc))
        tables, kw = _tables(system, ms, len(doc))
        _, marg, _ = io(*tables, marginals=True, **kw)
        doc._.dynoracle_arc_marginals = marg


def exact_parse(parser, docs: List[Doc], marginals: bool = True,
                normalize: bool = True) -> List[Doc]:
    """Parse docs with the exact best computation of the parser's window model and, with
    marginals=True, store arc marginals on each Doc. `normalize`: "all" (= True) scores
    moves by their log-softmax over all classes of the window; "valid" by the log-softmax
    over the state's valid classes, i.e. the greedy model's own probabilities (the sum is
    the log-probability of the computation under the local model, docs/specs/dp_tabulation.md §5.6,
    §7; arc_hybrid and arc_eager, context charts, O(n^4)); "none" (= False) by the raw scores."""
    scores = window_class_scores_batch(parser, docs)
    presets = [preset_boundaries(doc) for doc in docs]           # before the annotation
    parser.set_annotations(docs, exact_states(parser, docs, normalize, scores, presets))
    if marginals and not parser.cfg.get("arc_marginals"):     # else set_annotations did
        set_marginals(parser, docs, normalize, scores, presets)
    return docs


def _head_probs(token, k=3):
    marg = token.doc._.dynoracle_arc_marginals
    if marg is None:
        return None
    row = marg[token.i]
    order = np.argsort(-row, kind="stable")[:k]
    return [(int(h), float(row[h])) for h in order if row[h] > 0]


if not Doc.has_extension("dynoracle_arc_marginals"):
    Doc.set_extension("dynoracle_arc_marginals", default=None)
if not Token.has_extension("dynoracle_head_probs"):
    Token.set_extension("dynoracle_head_probs", getter=_head_probs)


def uncertain_arcs_displacy(span, threshold: float = 0.9, alternatives: bool = True,
                            min_alt: float = 0.1, title: Optional[str] = None) -> dict:
    """displaCy `manual` data for a parsed sentence (Span or Doc) with arc marginals
    (doc._.dynoracle_arc_marginals): the label of every arc whose probability is below
    `threshold` gets it appended ("nsubj 0.62"), and with `alternatives` every other head
    with probability >= min_alt is drawn as an extra arc labelled "?0.31" (a root
    alternative is noted on the word's tag line). Render with
    spacy_dynoracle.render.render_trees([...])."""
    from .render import span_to_displacy

    doc = span.doc if hasattr(span, "doc") else span
    marg = doc._.dynoracle_arc_marginals
    if marg is None:
        raise ValueError("no arc marginals on this Doc: parse with arc_marginals=true "
                         "or exact_decoding.exact_parse(..., marginals=True)")
    start = span.start if hasattr(span, "start") else 0
    end = span.end if hasattr(span, "end") else len(doc)
    data = span_to_displacy(span if hasattr(span, "start") else doc[:], title)
    by_child = {}
    for arc in data["arcs"]:
        child = arc["start"] if arc["dir"] == "left" else arc["end"]
        by_child[child] = arc
    for token in (doc[start:end]):
        c = token.i - start
        p = float(marg[token.i, token.head.i])
        if p < threshold:
            if c in by_child:
                by_child[c]["label"] = f"{by_child[c]['label']} {p:.2f}"
            else:
                data["words"][c]["tag"] = f"{data['words'][c]['tag']} {p:.2f}".strip()
        if not alternatives:
            continue
        for h in np.flatnonzero(marg[token.i] >= min_alt):
            h = int(h)
            if h == token.head.i:
                continue
            q = float(marg[token.i, h])
            if h == token.i:
                data["words"][c]["tag"] = f"{data['words'][c]['tag']} root?{q:.2f}".strip()
            elif start <= h < end:
                a, b = sorted((c, h - start))
                data["arcs"].append({"start": a, "end": b, "label": f"?{q:.2f}",
                                     "dir": "left" if c < h - start else "right"})
    return data
