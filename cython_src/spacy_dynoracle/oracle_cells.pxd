# A count of an exact oracle's work per state, kept by the systems whose oracle fills a chart
# (arc_standard's DP, arc_eager_nm's best-forest chart): the cells of the last state, of all
# states, and the most in one. A count, not a clock, so that tests can bound it and a guard
# can act on it without training depending on the machine (docs/long_sentences.md). Written
# once here (declarations and inline code, no module of its own) so that the two systems
# record and report it alike.

cdef struct OracleCells:
    long last           # cells the last move_costs computed (0 if it called no oracle)
    long total          # ... summed over the states
    long most           # ... in one state, at most


cdef inline void record_cells(OracleCells* c, long cells) noexcept nogil:
    """One state's oracle call computed `cells` cells."""
    c.last = cells
    c.total += cells
    if cells > c.most:
        c.most = cells


cdef inline dict cell_counts(OracleCells c):
    """The keys the system's oracle_counts adds: "cells" (all states) and "max_cells"."""
    return {"cells": c.total, "max_cells": c.most}
