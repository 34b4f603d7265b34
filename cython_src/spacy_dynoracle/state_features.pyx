# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Feature templates over spaCy's StateC beyond StateC.set_context_tokens (issue 5 item 3,
issue 19; docs/specs/spacy_integration.md §1.5 (b)): the tokens whose vectors the parser's
PrecomputableAffine layer sums, and the greedy parsing loop of the models that read them.
-1 selects the learned padding vector of the slot. L(x) / R(x) = x's most recently attached
left / right dependent (StateC.L(x, 1), R(x, 1)), as in spaCy's own templates. K = the
model's `max_k`: the largest k of the system's k-indexed moves (lr_spine's max_k, attardi's
degree).

Templates (slot order):
  "base"     spaCy's 8-token template, StateC.set_context_tokens(ids, 8):
             B0, B1, S0, S1, S2, L(B0), L(S0), R(S0)
  "extra"    spaCy's 13-token template (`extra_state_tokens = true`),
             StateC.set_context_tokens(ids, 13), so that comparisons with it are like with like:
             B0, B1, S0, S1, S2, L(S0), R(S0), L(B0), R(S0,2), L(S1), L(S1,2), R(S1), R(S1,2)
             (spaCy overwrites its slot 6, so L(S0,2) is never read: spacy_integration.md §1.5)
  "spine"    "base", then the attachment sites of lr_spine's moves beyond it
             (docs/specs/lr_spine_and_arc_standard.md §2.5, §7 (b)): ls(S0)[k] for 3 <= k <= K
             (LEFT_k heads; ls(S0)[2] = L(S0) is in "base"), rs(S1)[k] for 2 <= k <= K
             (RIGHT_k heads), and with S0 alone on the stack rs(root)[k] for 2 <= k <= K,
             the nodes of the finished sentence RIGHT_k attaches to (the last root first).
  "attardi"  "base", then what attardi's degree-K arcs touch (docs/specs/attardi.md §1.2:
             la_k adds s0 -> s_k and removes s_k, ra_k adds s_k -> s0 and pops s0, 1 <= k <= K):
             S3 .. S_K (the far end of la_k / ra_k for k >= 3; S1, S2 are in "base"), then
             L(S_k), R(S_k) for 1 <= k <= K (the subtree each candidate s_k brings to the arc,
             as L(S0), R(S0) in "base" do for s0). K = 2: 12 tokens, K = 3: 15.
  "swap"     "base", then what swap's moves read beyond it (docs/specs/swap.md §1.1, §3):
             L(S1), R(S1), the subtree of s1, which LA attaches to s0, RA makes s0's head
             and SW sends back to the buffer (CanLA asks complete(s1), §3); R(B0): after SW,
             b0 is a former s1 with dependents on both sides ("base" has L(B0) only); and
             the first word never shifted, B(|rebuffer|), when words were swapped back in
             front of it (-1 otherwise): SW fills B0, B1 with swapped-back words (§1.3), which
             hides the unread input where the dependents that complete(s0) (CanRA) and
             complete(s1) still wait for lie. 12 tokens.

`greedy_parse` is spaCy's Parser.greedy_parse / _parseC / predict_states
(transition_parser.pyx, ml/parser_model.pyx, spaCy 3.8) with the template's fill in place of
StateC.set_context_tokens (which the C loop hard-codes), nogil where spaCy's is; training
and beam search read the same fill through ParserStepModel.get_token_ids (architectures.py).
"""
from libc.string cimport memcpy, memset
from libcpp.vector cimport vector
from spacy.ml.parser_model cimport (ActivationsC, SizesC, WeightsC, alloc_activations,
                                    free_activations, get_c_sizes, get_c_weights)
from spacy.pipeline._parser_internals._state cimport StateC
from spacy.pipeline._parser_internals.stateclass cimport StateClass
from spacy.pipeline.transition_parser cimport Parser
from thinc.backends.cblas cimport CBlas, saxpy, sgemm
from thinc.backends.linalg cimport Vec, VecVec

from thinc.api import CupyOps, NumpyOps

TEMPLATES = ("base", "spine", "extra", "attardi", "swap")   # position = the template's code

cdef enum:
    BASE = 0
    SPINE = 1
    EXTRA = 2
    ATTARDI = 3
    SWAP = 4

cdef int N_BASE = 8                 # StateC.set_context_tokens(ids, 8)
cdef int N_EXTRA = 13               # StateC.set_context_tokens(ids, 13)


def template_code(template):
    """The position of `template` in TEMPLATES; ValueError naming the valid ones."""
    if template not in TEMPLATES:
        raise ValueError(f"unknown feature template {template!r}; choose one of {list(TEMPLATES)}")
    return TEMPLATES.index(template)


def n_features(template, int max_k):
    """The number of tokens `template` reads (its nF) with K = max_k."""
    cdef int code = template_code(template)
    if max_k < 1:
        raise ValueError(f"max_k must be >= 1, not {max_k}")
    if code == BASE:
        return N_BASE
    if code == EXTRA:
        return N_EXTRA
    if code == SPINE:
        return N_BASE + max(0, max_k - 2) + 2 * max(0, max_k - 1)
    if code == ATTARDI:
        return N_BASE + max(0, max_k - 2) + 2 * max_k
    return N_BASE + 4                                     # SWAP


cdef inline int left_dep(const StateC* st, int x) noexcept nogil:
    return st.L(x, 1) if x >= 0 else -1


cdef inline int right_dep(const StateC* st, int x) noexcept nogil:
    return st.R(x, 1) if x >= 0 else -1


cdef inline int walk(const StateC* st, int x, int k, bint left) noexcept nogil:
    """The k-th node (1-based) of x's left/right spine, or -1."""
    while k > 1 and x >= 0:
        x = st.L(x, 1) if left else st.R(x, 1)
        k -= 1
    return x


cdef inline int last_root(const StateC* st) noexcept nogil:
    if st.stack_depth() == 0:
        return -1
    cdef int w = st._stack[0]
    cdef int y = st.L(w, 1)
    while y >= 0:                   # the leftmost node of the bottom tree
        w = y
        y = st.L(w, 1)
    w -= 1
    if w < 0:
        return -1
    while st._heads[w] != w and st._heads[w] >= 0:
        w = st._heads[w]
    return w if st._heads[w] == w else -1


cdef int fill_beyond_base(const StateC* st, int* ids, int template, int K) noexcept nogil:
    """ids[0..] = the template's tokens after the base 8 (word indices, -1 = none);
    returns how many."""
    cdef int k, r, x
    cdef int t = 0
    cdef int s0 = st.S(0)
    cdef int s1 = st.S(1)
    if template == SPINE:
        for k in range(3, K + 1):
            ids[t] = walk(st, s0, k, True) if s0 >= 0 else -1
            t += 1
        for k in range(2, K + 1):
            ids[t] = walk(st, s1, k, False) if st.stack_depth() >= 2 else -1
            t += 1
        r = last_root(st) if st.stack_depth() == 1 else -1
        for k in range(2, K + 1):
            ids[t] = walk(st, r, k - 1, False) if r >= 0 else -1
            t += 1
    elif template == ATTARDI:
        for k in range(3, K + 1):
            ids[t] = st.S(k)
            t += 1
        for k in range(1, K + 1):
            x = st.S(k)
            ids[t] = left_dep(st, x)
            ids[t + 1] = right_dep(st, x)
            t += 2
    elif template == SWAP:
        ids[0] = left_dep(st, s1)
        ids[1] = right_dep(st, s1)
        ids[2] = right_dep(st, st.B(0))
        ids[3] = st.B(st._rebuffer.size()) if st._rebuffer.size() > 0 else -1
        t = 4
    return t


cdef void fill_state(const StateC* st, int* ids, int template, int K) noexcept nogil:
    """ids[:n_features] = the template's tokens of st, with the doc's offset in the batch
    added (-1 stays -1), as StateC.set_context_tokens gives them."""
    cdef int i, n
    # set_context_tokens only reads the state, but is not declared const
    if template == EXTRA:
        (<StateC*>st).set_context_tokens(ids, N_EXTRA)
        return
    (<StateC*>st).set_context_tokens(ids, N_BASE)
    if template == BASE:
        return
    n = fill_beyond_base(st, &ids[N_BASE], template, K)
    for i in range(N_BASE, N_BASE + n):
        ids[i] = ids[i] + st.offset if ids[i] >= 0 else -1


def fill_token_ids(states, int[:, ::1] ids, template, int max_k):
    """ids[i] = the template's tokens of states[i] (all states must be non-final), with the
    offset of the state's doc in the batch (the tokens of a batch are concatenated)."""
    cdef int code = template_code(template)
    cdef StateClass state
    cdef int i = 0
    if ids.shape[1] != n_features(template, max_k):
        raise ValueError(f"ids has {ids.shape[1]} columns; template {template!r} with "
                         f"max_k={max_k} reads {n_features(template, max_k)} tokens")
    for state in states:
        fill_state(state.c, &ids[i, 0], code, max_k)
        i += 1


# ---- the greedy loop: spaCy 3.8's, reading the template ----------------------------------

cdef void sum_state_features(CBlas cblas, float* output, const float* cached,
                             const int* token_ids, int B, int F, int O) noexcept nogil:
    """spaCy's parser_model.sum_state_features (not exported by its .pxd): output[b] = the
    sum over the F slots of the precomputed vector of the slot's token (the slot's padding
    row for -1)."""
    cdef int idx, b, f
    cdef const float* feature
    cdef const float* padding = cached
    cached += F * O
    cdef int id_stride = F * O
    cdef float one = 1.
    for b in range(B):
        for f in range(F):
            if token_ids[f] < 0:
                feature = &padding[f * O]
            else:
                idx = token_ids[f] * id_stride + f * O
                feature = &cached[idx]
            saxpy(cblas)(O, one, feature, 1, &output[b * O], 1)
        token_ids += F


cdef void predict_template(CBlas cblas, ActivationsC* A, StateC** states, const WeightsC* W,
                           SizesC n, int template, int K) noexcept nogil:
    """spaCy's parser_model.predict_states with fill_state in place of set_context_tokens.
    A was allocated for at least n.states states (the batch only shrinks)."""
    cdef int i, j, index, which
    cdef float min_
    for i in range(n.states):
        fill_state(states[i], &A.token_ids[i * n.feats], template, K)
    memset(A.unmaxed, 0, n.states * n.hiddens * n.pieces * sizeof(float))
    memset(A.hiddens, 0, n.states * n.hiddens * sizeof(float))
    sum_state_features(cblas, A.unmaxed, W.feat_weights, A.token_ids, n.states, n.feats,
                       n.hiddens * n.pieces)
    for i in range(n.states):
        VecVec.add_i(&A.unmaxed[i * n.hiddens * n.pieces], W.feat_bias, 1.,
                     n.hiddens * n.pieces)
        for j in range(n.hiddens):
            index = i * n.hiddens * n.pieces + j * n.pieces
            which = Vec.arg_max(&A.unmaxed[index], n.pieces)
            A.hiddens[i * n.hiddens + j] = A.unmaxed[index + which]
    memset(A.scores, 0, n.states * n.classes * sizeof(float))
    if W.hidden_weights == NULL:
        memcpy(A.scores, A.hiddens, n.states * n.classes * sizeof(float))
    else:
        sgemm(cblas)(False, True, n.states, n.classes, n.hiddens,
                     1.0, <const float*>A.hiddens, n.hiddens,
                     <const float*>W.hidden_weights, n.hiddens,
                     0.0, A.scores, n.classes)
        for i in range(n.states):
            VecVec.add_i(&A.scores[i * n.classes], W.hidden_bias, 1., n.classes)
    # unseen classes get the lowest score of the batch, as in spaCy
    min_ = A.scores[0]
    for i in range(1, n.states * n.classes):
        if A.scores[i] < min_:
            min_ = A.scores[i]
    for i in range(n.states):
        for j in range(n.classes):
            if not W.seen_classes[j]:
                A.scores[i * n.classes + j] = min_


cdef void parse_states(Parser parser, CBlas cblas, StateC** states, WeightsC weights,
                       SizesC sizes, int template, int K) noexcept nogil:
    """spaCy's Parser._parseC with predict_template."""
    cdef int i
    cdef vector[StateC*] unfinished
    cdef ActivationsC activations = alloc_activations(sizes)
    while sizes.states >= 1:
        predict_template(cblas, &activations, states, &weights, sizes, template, K)
        parser.c_transition_batch(states, activations.scores, sizes.classes, sizes.states)
        for i in range(sizes.states):
            if not states[i].is_final():
                unfinished.push_back(states[i])
        for i in range(unfinished.size()):
            states[i] = unfinished[i]
        sizes.states = unfinished.size()
        unfinished.clear()
    free_activations(&activations)


def greedy_parse(Parser parser, batch, step_model, template, int max_k):
    """Parse the StateClass objects of `batch` (parser.moves.init_batch) to the end with
    the model's step model (parser.model.predict(docs)), reading `template`'s tokens."""
    cdef int code = template_code(template)
    cdef int n_feats = n_features(template, max_k)
    if step_model.state2vec.nF != n_feats:
        raise ValueError(f"the model reads {step_model.state2vec.nF} tokens; template "
                         f"{template!r} with max_k={max_k} reads {n_feats}")
    cdef vector[StateC*] states
    cdef StateClass state
    for state in batch:
        if not state.is_final():
            states.push_back(state.c)
    if states.size() == 0:
        return batch
    ops = parser.model.ops
    # spaCy's choice: its C loop runs on the CPU's BLAS even for a GPU model
    cdef CBlas cblas = NumpyOps().cblas() if isinstance(ops, CupyOps) else ops.cblas()
    cdef WeightsC weights = get_c_weights(step_model)
    cdef SizesC sizes = get_c_sizes(step_model, states.size())
    with nogil:
        parse_states(parser, cblas, &states[0], weights, sizes, code, max_k)
    return batch
