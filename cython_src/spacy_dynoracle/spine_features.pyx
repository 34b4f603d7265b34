# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Feature templates over spaCy's StateC beyond StateC.set_context_tokens (issue 5 item 3,
docs/specs/spacy_integration.md §1.5): the tokens whose vectors the parser's PrecomputableAffine
layer sums. -1 selects the learned padding vector of the slot.

Templates (slot order):
  "base"   spaCy's 8-token template: B0, B1, S0, S1, S2, L(B0), L(S0), R(S0)
           (L/R = the most recently attached left/right dependent)
  "spine"  "base", then the attachment sites of lr_spine's moves beyond it
           (docs/specs/lr_spine_and_arc_standard.md §2.5, §7 (b)): ls(S0)[k] for 3 <= k <= K
           (LEFT_k heads; ls(S0)[2] = L(S0) is in "base"), rs(S1)[k] for 2 <= k <= K
           (RIGHT_k heads), and with S0 alone on the stack rs(root)[k] for 2 <= k <= K,
           the nodes of the finished sentence RIGHT_k attaches to (the last root first).
"""
from spacy.pipeline._parser_internals._state cimport StateC
from spacy.pipeline._parser_internals.stateclass cimport StateClass

TEMPLATES = ("base", "spine")


def n_features(template, int max_k):
    if template == "base":
        return 8
    if template == "spine":
        return 8 + max(0, max_k - 2) + 2 * max(0, max_k - 1)
    raise ValueError(f"unknown feature template {template!r}; choose one of {list(TEMPLATES)}")


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


cdef void fill_state(const StateC* st, int* ids, int template, int K) noexcept nogil:
    cdef int k, r, t
    cdef int s0 = st.S(0)
    cdef int s1 = st.S(1)
    ids[0] = st.B(0)
    ids[1] = st.B(1)
    ids[2] = s0
    ids[3] = s1
    ids[4] = st.S(2)
    ids[5] = st.L(st.B(0), 1) if st.B(0) >= 0 else -1
    ids[6] = st.L(s0, 1) if s0 >= 0 else -1
    ids[7] = st.R(s0, 1) if s0 >= 0 else -1
    if template == 0:
        return
    t = 8
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


def fill_token_ids(states, int[:, ::1] ids, template, int max_k):
    """ids[i] = the template's tokens of states[i] (all states must be non-final)."""
    cdef int code = TEMPLATES.index(template)
    cdef StateClass state
    cdef int i = 0
    if ids.shape[1] != n_features(template, max_k):
        raise ValueError("ids has the wrong number of columns for the template")
    cdef int j, n = ids.shape[1]
    for state in states:
        fill_state(state.c, &ids[i, 0], code, max_k)
        for j in range(n):      # tokens of a batch are concatenated: add the doc's offset
            if ids[i, j] >= 0:
                ids[i, j] += state.c.offset
            else:
                ids[i, j] = -1
        i += 1
