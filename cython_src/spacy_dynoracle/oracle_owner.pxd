# The Python owner of one oracle's per-Doc C data (docs/architecture.md): the object that
# DynGold.attach keeps alive while move_costs reads the data through GoldC.extra, and the
# handle tests and benchmarks call. An oracle whose data is one heap object built by its
# *_new function (arc_eager_oracle's NPOracle, easy_first_oracle's EFGold) derives its
# handle from OracleOwner in its .pxd, so that freeing it is written once. Knows nothing of
# spaCy.

ctypedef void (*free_data_t)(void* data) noexcept nogil


cdef class OracleOwner:
    cdef void* data                 # the owned C data; NULL before own() and once freed
    cdef free_data_t free_data      # the oracle's own free function for it

    cdef void* own(self, void* data, free_data_t free_data) except NULL
