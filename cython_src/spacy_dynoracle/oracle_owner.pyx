# cython: language_level=3
"""OracleOwner: frees an oracle's per-Doc C data once, when its Python owner goes
(oracle_owner.pxd)."""


cdef class OracleOwner:
    """Owns one C object an oracle built and frees it with the oracle's own free function
    when the owner is deallocated. A subclass builds its data in __cinit__, hands it to
    own() and keeps a typed pointer to it:

        self.c = <NPOracle*>self.own(np_oracle_new(...), np_oracle_free)
    """

    cdef void* own(self, void* data, free_data_t free_data) except NULL:
        """Take `data`, the result of an oracle's *_new (NULL: it ran out of memory, raised
        as MemoryError), to be freed by `free_data`; returns data. Called once, from the
        subclass's __cinit__."""
        if data == NULL:
            raise MemoryError()
        self.data = data
        self.free_data = free_data
        return data

    def __dealloc__(self):
        if self.data != NULL:
            self.free_data(self.data)
            self.data = NULL
