# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# distutils: language = c++
"""The chart core every tabulation shares (docs/tabulation.md): checking and laying out the
score tables, the rule instances the windows functions enumerate, and arc_hybrid's and
arc_standard's window tables. The semirings and the cells a fill pushes into are inline in
tabulation_core.pxd; each system's chart is in tabulation_<system>.pyx."""
import numpy as np


def check_table(x, shape, name):
    """x as a contiguous float64 array of the given shape; a ValueError names the shapes."""
    a = np.ascontiguousarray(x, dtype=np.float64)
    if a.shape != shape:
        raise ValueError(f"{name} has shape {a.shape}, expected {shape}")
    # No NaN scan (it would cost as much as the decode at n = 100): a NaN term fails every
    # `v > -inf` test and is dropped like an invalid move.
    return a


def flagged_table(x, shape, name):
    """Eager tables may omit the leading flag axis: broadcast it (same score for both flags).
    Returns (table, whether the axis was absent)."""
    a = np.asarray(x, dtype=np.float64)
    if a.shape == shape[1:]:
        a = np.broadcast_to(a, shape)
    return check_table(a, shape, name), np.asarray(x).ndim == len(shape) - 1


def s1_table(x, N1, name, full_ndim=3):
    """A reduce-type table with leading axes that may be absent (s1 of left/right, flag
    and s1 of reduce): returns (contiguous array, its ndim); absent axes get stride 0 in
    the kernels, so a window model's (s0, b0) table is read without an N1^3 copy."""
    a = np.asarray(x)
    lo = 2
    if a.ndim < lo or a.ndim > full_ndim:
        raise ValueError(f"{name} must have {lo} to {full_ndim} axes of size {N1}")
    shape = (2,) + (N1,) * 3 if (full_ndim == 4 and a.ndim == 4) else (N1,) * a.ndim
    return check_table(a, shape, name), a.ndim


def root_size(root):
    """n, the sentence length, from the root table [s0, b0] of shape (n+1, n+1)."""
    root = np.asarray(root)
    if root.ndim != 2 or root.shape[0] != root.shape[1] or root.shape[0] < 2:
        raise ValueError(f"root must have shape (n+1, n+1) with n >= 1, not {root.shape}")
    return root.shape[0] - 1


def sum_missing(g, ndim):
    """Gradient of a table given with fewer (leading) axes: sum over the missing ones."""
    return g.sum(axis=tuple(range(g.ndim - ndim))) if g.ndim > ndim else g


def rule_instances(n):
    """All rule instances (i, k, j) of the plain charts in spec positions, 0 <= i < k < j <= n+1."""
    P = n + 1
    i, k, j = np.nonzero(np.triu(np.ones((P + 1, P + 1), dtype=bool), 1)[:, :, None]
                         & np.triu(np.ones((P + 1, P + 1), dtype=bool), 1)[None, :, :])
    return i, k, j


def word_of(x, n):
    """Word index of spec stack positions x (0 = the virtual root -> n = none)."""
    return np.where(x == 0, n, x - 1)


cdef class HybTables:
    """arc_hybrid's (and arc_standard's) tables shift, left, right, root, checked and held
    for the kernels (docs/tabulation.md); a 3-D shift selects the context chart."""

    def __init__(self, shift, left, right, root):
        n = root_size(root)
        N1 = n + 1
        shift = np.asarray(shift)
        ctx = shift.ndim == 3
        lt, lnd = s1_table(left, N1, "left")
        rt, rnd = s1_table(right, N1, "right")
        self.ndims = {"left": lnd, "right": rnd}
        self.keep = [check_table(shift, (N1, N1, N1) if ctx else (N1, N1), "shift"), lt, rt,
                     check_table(root, (N1, N1), "root")]
        self.t.n = n
        self.t.ctx = ctx
        self.t.untie = 0
        self.t.ls1 = N1 * N1 if lnd == 3 else 0
        self.t.rs1 = N1 * N1 if rnd == 3 else 0
        self.t.shift = table_ptr(self.keep[0].reshape(-1))
        self.t.left = table_ptr(self.keep[1].reshape(-1))
        self.t.right = table_ptr(self.keep[2].reshape(-1))
        self.t.root = table_ptr(self.keep[3].reshape(-1))

    def gradients(self, gs, gl, gr, gt):
        """The kernels' flat gradient buffers, shaped like the tables given."""
        N1 = self.t.n + 1
        return {"shift": np.asarray(gs).reshape(self.keep[0].shape),
                "left": sum_missing(np.asarray(gl).reshape(N1, N1, N1), self.ndims["left"]),
                "right": sum_missing(np.asarray(gr).reshape(N1, N1, N1), self.ndims["right"]),
                "root": np.asarray(gt).reshape(N1, N1)}


cdef class ChartArrays:
    """The arrays one fill needs, allocated in one place for every chart: the chart of
    `size` cells, its backpointers (viterbi), the running sums of `row` cells, the context
    charts' right-premise sums, and the 2n decoded moves."""

    def __init__(self, int n, long size, long row, bint viterbi):
        cdef long W = n + 2
        self.chart = np.empty(size, dtype=np.float64)
        self.bp = np.full(size if viterbi else 1, -1, dtype=np.intc)
        self.M = np.empty(row, dtype=np.float64)
        self.S = np.empty(row, dtype=np.float64)
        self.R0 = np.empty(W * W, dtype=np.float64)
        self.R1 = np.empty(W * W, dtype=np.float64)
        self.R0m = np.empty(W * W, dtype=np.intc)
        self.out = np.zeros(2 * n, dtype=np.int8)

    def decoded(self, double best):
        """What the *_viterbi functions return: (best, move ids), or (-inf, None) if no
        complete computation has a finite score."""
        if best == -np.inf:
            return best, None
        return best, np.asarray(self.out)
