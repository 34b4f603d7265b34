# cython: language_level=3, infer_types=True, boundscheck=False, wraparound=False, cdivision=True
# distutils: language = c++
"""Easy-first's scorer, greedy parse loop and training episode (docs/systems/easy_first.md,
part 2), over plain arrays, nogil, no Python object per step.

The model (architectures.EasyFirstModel.v1) scores an adjacent pending pair (lam[i],
lam[i + 1]) from N_SLOTS token slots: the items lam[i - 2] .. lam[i + 3] (GN10's window) and
the leftmost and rightmost children built so far of lam[i] and lam[i + 1]. Its first layer is
linear in the slot vectors, so the model gives, once per batch, Yf[row, slot] = W_slot . x_row
(spaCy's PrecomputableAffine: row 0 is the per-slot padding, row t + 1 token t of the batch);
a pair's hidden layer is then lb + the sum of its slots' rows, a maxout, and the output layer
(uW, ub) gives its 1 + 2L scores: column 0 ROOT (used at pair 0 only), 1 + l RIGHT with label
l, 1 + L + l LEFT with label l (used at pairs >= 1).

A scored pair is an *instance* (its slot rows, hidden layer, scores); the state keeps the
instance of each pair. An action removing lam[r] changes the slots of pairs r - 3 .. r + 1
only (the window of pair j is lam[j - 2 .. j + 3]; the head, now at r - 1 or r, is in pairs
r - 2 .. r), so only those are rescored: n steps score O(n) instances. In training, the
parameters are fixed for the whole batch (as in spaCy's update), so an instance's gradient
is the sum of the gradients of every step that saw it; backward runs once per instance.
"""
from libc.math cimport exp, log, INFINITY
from libc.string cimport memmove
from libcpp.vector cimport vector

from spacy.typedefs cimport attr_t
from spacy.tokens.doc cimport Doc, set_children_from_heads

from .easy_first cimport EasyFirstC, EasyFirstState, EasyFirst, ef_is_valid, ef_apply, ef_action_arc
from .easy_first_oracle cimport EF_RIGHT, EF_LEFT
from .system_base cimport DynGold, GoldC, arc_label_cost

cdef enum:
    N_WINDOW = 6        # lam[i - 2] .. lam[i + 3]
    SLOTS = 10          # the window, then lmost/rmost child of lam[i], of lam[i + 1]

N_SLOTS = SLOTS


cdef struct Weights:
    const float* Yf     # [(rows) * F * O * P], row 0 = padding
    const float* lb     # [O * P]
    const float* uW     # [C * O]
    const float* ub     # [C]
    int O, P, C, L


cdef struct Instances:
    vector[int] rows        # SLOTS per instance: Yf rows of its slots
    vector[float] hidden    # O per instance (after maxout)
    vector[int] piece       # O per instance: the winning piece
    vector[float] scores    # C per instance
    vector[float] d_scores  # C per instance (training: summed over the steps that saw it)
    vector[int] best        # 2 per instance: best RIGHT column, best LEFT column (parsing)


cdef struct Run:            # one state being parsed or trained, and its model-side data
    EasyFirstC* st
    const GoldC* gold       # NULL when parsing
    int row0                # Yf row of the state's word 0
    int* pair_inst          # [n] the instance of each pair of the pending list
    int* lkid               # [n] leftmost / rightmost child built so far (-1 none)
    int* rkid


cdef inline int word_row(const Run* r, int word) noexcept nogil:
    return 0 if word < 0 else r.row0 + word


cdef inline int node_row(const Run* r, int k) noexcept nogil:
    """The Yf row of the pending item lam[k] (padding for the virtual root or outside)."""
    if k < 0 or k >= r.st.size or r.st.lam[k] == 0:
        return 0
    return r.row0 + r.st.lam[k] - 1


cdef int score_pair(const Weights* w, Instances* inst, Run* r, int pair,
                    float* pre) noexcept nogil:
    """Score pair `pair` of the run's state as a new instance; returns its id."""
    cdef int O = w.O, P = w.P, C = w.C, L = w.L
    cdef int k = inst.best.size() // 2
    cdef int s, o, p, c, node, word, base, row
    cdef float v, acc
    inst.rows.resize((k + 1) * SLOTS)
    inst.hidden.resize((k + 1) * O)
    inst.piece.resize((k + 1) * O)
    inst.scores.resize((k + 1) * C)
    inst.d_scores.resize((k + 1) * C, 0.0)
    inst.best.resize((k + 1) * 2)
    cdef int* rows = &inst.rows[k * SLOTS]
    for s in range(N_WINDOW):
        rows[s] = node_row(r, pair - 2 + s)
    for s in range(2):
        node = r.st.lam[pair + s]
        word = node - 1
        rows[N_WINDOW + 2 * s] = word_row(r, r.lkid[word]) if word >= 0 else 0
        rows[N_WINDOW + 2 * s + 1] = word_row(r, r.rkid[word]) if word >= 0 else 0
    for o in range(O * P):
        pre[o] = w.lb[o]
    for s in range(SLOTS):
        base = (rows[s] * SLOTS + s) * O * P
        for o in range(O * P):
            pre[o] += w.Yf[base + o]
    cdef float* hidden = &inst.hidden[k * O]
    cdef int* piece = &inst.piece[k * O]
    for o in range(O):
        hidden[o] = pre[o * P]
        piece[o] = 0
        for p in range(1, P):
            if pre[o * P + p] > hidden[o]:
                hidden[o] = pre[o * P + p]
                piece[o] = p
    cdef float* scores = &inst.scores[k * C]
    for c in range(C):
        acc = w.ub[c]
        for o in range(O):
            acc += w.uW[c * O + o] * hidden[o]
        scores[c] = acc
    for s in range(2):         # the best label of RIGHT (s = 0) and LEFT (s = 1)
        base = 1 + s * L
        inst.best[2 * k + s] = base
        for c in range(base + 1, base + L):
            if scores[c] > scores[inst.best[2 * k + s]]:
                inst.best[2 * k + s] = c
    return k


cdef void apply_and_rescore(const Weights* w, Instances* inst, Run* r, int action,
                            attr_t label, float* pre) noexcept nogil:
    """Apply the action, keep the children the features read, and rescore the pairs whose
    slots changed (pairs r - 3 .. r + 1 of the new list, r the removed item's index)."""
    cdef int head, child, j
    cdef int pair = action // 2
    cdef int removed = pair + 1 if action % 2 == EF_RIGHT else pair
    ef_action_arc(r.st, action, &head, &child)
    if head != child:
        # an item attaches to an adjacent pending item, so a new left child lies left of
        # every earlier one, a new right child right of every earlier one
        if child < head:
            r.lkid[head] = child
        else:
            r.rkid[head] = child
    cdef int n_pairs_before = r.st.size - 1
    ef_apply(r.st, action, label)
    memmove(&r.pair_inst[removed - 1], &r.pair_inst[removed],
            (n_pairs_before - removed) * sizeof(int))
    for j in range(max(0, removed - 3), min(r.st.size - 2, removed + 1) + 1):
        r.pair_inst[j] = score_pair(w, inst, r, j, pre)


cdef int best_parse_action(const Weights* w, const Instances* inst, const Run* r,
                           int* column) noexcept nogil:
    """The best-scoring valid action of the state and its column (each instance's best
    label per direction is kept at scoring time, so this is O(pairs))."""
    cdef int j, d, a, col, k
    cdef int best = -1
    cdef float best_score = -INFINITY
    for j in range(r.st.size - 1):
        k = r.pair_inst[j]
        for d in range(2):
            a = 2 * j + d
            if j == 0:
                if d == EF_LEFT:
                    continue
                col = 0
            else:
                col = inst.best[2 * k + d]
            if not ef_is_valid(r.st, a):
                continue
            if inst.scores[k * w.C + col] > best_score:
                best_score = inst.scores[k * w.C + col]
                best = a
                column[0] = col
    return best


cdef inline attr_t column_label(int col, int L, const attr_t* labels, attr_t root_label) noexcept nogil:
    if col == 0:
        return root_label
    return labels[(col - 1) % L]


cdef int init_run(const Weights* w, Instances* inst, Run* r, float* pre) noexcept nogil:
    cdef int i
    for i in range(r.st.n):
        r.lkid[i] = -1
        r.rkid[i] = -1
    for i in range(r.st.size - 1):
        r.pair_inst[i] = score_pair(w, inst, r, i, pre)
    return 0


cdef Weights make_weights(const float[:, :, :, ::1] Yf, const float[:, ::1] lb,
                          const float[:, ::1] uW, const float[::1] ub, int L) except *:
    cdef Weights w
    if Yf.shape[1] != SLOTS:
        raise ValueError(f"the easy-first model reads {SLOTS} slots, not {Yf.shape[1]}")
    if uW.shape[0] != 1 + 2 * L or L < 1:
        raise ValueError(f"the easy-first model has {uW.shape[0]} outputs; {L} labels need "
                         f"{1 + 2 * L}")
    w.Yf = &Yf[0, 0, 0, 0]
    w.lb = &lb[0, 0]
    w.uW = &uW[0, 0]
    w.ub = &ub[0]
    w.O = Yf.shape[2]
    w.P = Yf.shape[3]
    w.C = uW.shape[0]
    w.L = L
    return w


cdef Run make_run(EasyFirstState state, const GoldC* gold, int row0, int* ints) noexcept:
    cdef Run r
    r.st = &state.c
    r.gold = gold
    r.row0 = row0
    r.pair_inst = ints
    r.lkid = ints + state.c.n
    r.rkid = ints + 2 * state.c.n
    return r


cdef class _Batch:
    """What one call (parse_batch, train_batch) runs over: the model's arrays as Weights,
    one Run per state with its per-word arrays, the scored instances."""
    cdef const float[:, :, :, ::1] Yf       # kept alive for Weights' pointers
    cdef const float[:, ::1] lb
    cdef const float[:, ::1] uW
    cdef const float[::1] ub
    cdef list states, golds
    cdef Weights w
    cdef vector[attr_t] labels
    cdef vector[Run] runs
    cdef vector[int] ints
    cdef vector[float] pre
    cdef Instances inst

    def __init__(self, list states, golds, row0s, const float[:, :, :, ::1] Yf,
                 const float[:, ::1] lb, const float[:, ::1] uW, const float[::1] ub, labels):
        cdef int i, offset = 0
        cdef EasyFirstState state
        cdef DynGold gold
        self.Yf, self.lb, self.uW, self.ub = Yf, lb, uW, ub
        self.states = states
        self.golds = golds
        self.labels = labels
        self.w = make_weights(Yf, lb, uW, ub, len(labels))
        self.pre.resize(self.w.O * self.w.P)
        self.ints.resize(max(1, 3 * sum((<EasyFirstState>st).c.n for st in states)))
        self.runs.resize(len(states))
        for i in range(len(states)):
            state = states[i]
            gold = None if golds is None else golds[i]
            self.runs[i] = make_run(state, <const GoldC*>NULL if gold is None else &gold.c, row0s[i],
                                    &self.ints[offset])
            offset += 3 * state.c.n


def parse_batch(list states, row0s, const float[:, :, :, ::1] Yf, const float[:, ::1] lb,
                const float[:, ::1] uW, const float[::1] ub, labels, attr_t root_label):
    """Parse every EasyFirstState greedily with the model (in place)."""
    cdef _Batch b = _Batch(states, None, row0s, Yf, lb, uW, ub, labels)
    cdef int i, col, a
    with nogil:
        for i in range(<int>b.runs.size()):
            b.inst.rows.clear(); b.inst.hidden.clear(); b.inst.piece.clear()
            b.inst.scores.clear(); b.inst.d_scores.clear(); b.inst.best.clear()
            init_run(&b.w, &b.inst, &b.runs[i], &b.pre[0])
            while b.runs[i].st.size > 1:
                a = best_parse_action(&b.w, &b.inst, &b.runs[i], &col)
                if a < 0:
                    break       # no state is stuck (easy_first.pyx); a guard, not a path
                apply_and_rescore(&b.w, &b.inst, &b.runs[i], a,
                                  column_label(col, b.w.L, b.labels.data(), root_label), &b.pre[0])


def train_batch(EasyFirst moves, list states, list golds, row0s, const unsigned char[:, ::1] follow,
                const float[:, :, :, ::1] Yf, const float[:, ::1] lb, const float[:, ::1] uW,
                const float[::1] ub, labels, attr_t root_label, float explore_margin,
                float[:, :, :, ::1] dYf, float[:, ::1] dlb, float[:, ::1] duW, float[::1] dub):
    """Run every state to the end as training does (spaCy's multi-label log loss over all
    the state's (action, label) classes, the zero-cost ones as gold), accumulate the
    gradients into dYf, dlb, duW, dub, and return (loss, states stepped, steps whose move
    cost > 0). follow[i, t]: 1 = state i takes the best-scoring zero-cost class at step t,
    0 = the model's best class (explore_margin >= 0: only when the best zero-cost class
    scores within explore_margin of it, else the zero-cost one; < 0: always)."""
    cdef int i
    cdef double loss = 0.0
    cdef long n_steps = 0, n_off = 0
    for i, state in enumerate(states):
        if follow.shape[1] < (<EasyFirstState>state).c.n:
            raise ValueError(f"follow has {follow.shape[1]} steps per state, state {i} needs "
                             f"{(<EasyFirstState>state).c.n}")
    cdef _Batch b = _Batch(states, golds, row0s, Yf, lb, uW, ub, labels)
    with nogil:
        for i in range(<int>b.runs.size()):
            init_run(&b.w, &b.inst, &b.runs[i], &b.pre[0])
            while b.runs[i].st.size > 1:
                if train_step(moves, &b.w, &b.inst, &b.runs[i], b.labels.data(), root_label,
                              follow[i, b.runs[i].st.n + 1 - b.runs[i].st.size], explore_margin,
                              &b.pre[0], &loss, &n_off) < 0:
                    break
                n_steps += 1
        backward(&b.w, &b.inst, &dYf[0, 0, 0, 0], &dlb[0, 0], &duW[0, 0], &dub[0])
    return loss, n_steps, n_off


cdef inline float score_at(const Instances* inst, const Run* r, int C, int cls) noexcept nogil:
    """The score of class j * C + column of the state (its pair's instance)."""
    return inst.scores[r.pair_inst[cls // C] * C + cls % C]


cdef int train_step(EasyFirst moves, const Weights* w, Instances* inst, Run* r,
                    const attr_t* labels, attr_t root_label, bint follow, float margin,
                    float* pre, double* loss, long* n_off) except -2 nogil:
    """One step of one state: the loss of its classes into the instances' d_scores, then
    the move (the best-scoring zero-cost class, or the model's best when exploring).
    Returns the action taken, -1 if none is valid."""
    cdef int C = w.C, L = w.L
    cdef int n_pairs = r.st.size - 1
    cdef vector[int] cost = vector[int](2 * n_pairs)
    cdef vector[int] ccost = vector[int](n_pairs * C, -1)   # -1: not a valid class
    cdef int j, d, a, col, k, head, child, lo, hi
    cdef vector[int] valid                  # the valid classes, as j * C + column
    cdef int t
    cdef int min_cost = 1 << 30
    cdef int pred = -1, gold_best = -1      # as j * C + col
    cdef float mx = -INFINITY, s, z = 0.0, zg = 0.0
    cdef attr_t label
    moves.action_costs(r.st, r.gold, cost.data())
    for j in range(n_pairs):
        k = r.pair_inst[j]
        for d in range(2):
            a = 2 * j + d
            if (j == 0 and d == EF_LEFT) or not ef_is_valid(r.st, a):
                continue
            ef_action_arc(r.st, a, &head, &child)
            lo = 0 if j == 0 else 1 + d * L
            hi = 1 if j == 0 else lo + L
            for col in range(lo, hi):
                label = column_label(col, L, labels, root_label)
                ccost[j * C + col] = cost[a] + <int>arc_label_cost(r.gold, head, child, label)
                min_cost = min(min_cost, ccost[j * C + col])
                valid.push_back(j * C + col)
                s = inst.scores[k * C + col]
                if s > mx:
                    mx = s
                    pred = j * C + col
    if pred < 0:
        return -1
    cdef vector[float] exps = vector[float](valid.size())
    for t in range(<int>valid.size()):       # the softmax over the valid classes
        exps[t] = exp(score_at(inst, r, C, valid[t]) - mx)
        z += exps[t]
        if ccost[valid[t]] == min_cost:
            zg += exps[t]
            if gold_best < 0 or score_at(inst, r, C, valid[t]) > score_at(inst, r, C, gold_best):
                gold_best = valid[t]
    for t in range(<int>valid.size()):
        inst.d_scores[r.pair_inst[valid[t] // C] * C + valid[t] % C] += \
            exps[t] / z - (exps[t] / zg if ccost[valid[t]] == min_cost else 0.0)
    loss[0] += log(z) - log(zg)
    cdef int chosen = gold_best
    if not follow and ccost[pred] != min_cost:
        if margin < 0 or score_at(inst, r, C, pred) - score_at(inst, r, C, gold_best) <= margin:
            chosen = pred
    if ccost[chosen] > min_cost:
        n_off[0] += 1
    j = chosen // C
    col = chosen % C
    a = 2 * j + (EF_RIGHT if col <= L else EF_LEFT)
    apply_and_rescore(w, inst, r, a, column_label(col, L, labels, root_label), pre)
    return a


cdef void backward(const Weights* w, const Instances* inst, float* dYf, float* dlb, float* duW,
                   float* dub) noexcept nogil:
    """Backpropagate every instance's summed d_scores: output layer, maxout, and the slot
    rows of Yf (the caller turns dYf into the gradients of W, the padding and tok2vec)."""
    cdef int O = w.O, P = w.P, C = w.C
    cdef int n = inst.best.size() // 2
    cdef int k, c, o, s, nonzero
    cdef float g
    cdef vector[float] d_hidden = vector[float](O)
    for k in range(n):
        nonzero = 0
        for c in range(C):
            if inst.d_scores[k * C + c] != 0.0:
                nonzero = 1
                break
        if not nonzero:
            continue
        for o in range(O):
            d_hidden[o] = 0.0
        for c in range(C):
            g = inst.d_scores[k * C + c]
            if g == 0.0:
                continue
            dub[c] += g
            for o in range(O):
                duW[c * O + o] += g * inst.hidden[k * O + o]
                d_hidden[o] += g * w.uW[c * O + o]
        for o in range(O):
            dlb[o * P + inst.piece[k * O + o]] += d_hidden[o]
        for s in range(SLOTS):
            for o in range(O):
                dYf[((inst.rows[k * SLOTS + s] * SLOTS + s) * O + o) * P + inst.piece[k * O + o]] \
                    += d_hidden[o]


def set_annotations(EasyFirstState state, Doc doc):
    """Write a final state's heads and labels into the Doc (a root points to itself, label
    ROOT; sentence starts follow from the roots: set_children_from_heads)."""
    cdef int i
    if state.c.n != doc.length:
        raise ValueError(f"the state has {state.c.n} words, the Doc {doc.length}")
    for i in range(doc.length):
        if state.c.heads[i] < 0:
            raise ValueError(f"word {i} has no head: the state is not final")
        doc.c[i].head = state.c.heads[i] - i
        doc.c[i].dep = state.c.labels[i]
    set_children_from_heads(doc.c, 0, doc.length)
