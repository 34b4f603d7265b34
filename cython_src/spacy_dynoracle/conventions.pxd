# The numbering conventions every module of the package shares (docs/conventions.md,
# docs/architecture.md): the one move-id enum and the one numbering of the virtual root.
# Declarations only, and nothing of spaCy: the systems (through system_base.pxd), the
# oracles over plain arrays and the tabulation all cimport it.

# Unlabelled move types, shared by all systems so that names are stable (MOVE_NAMES and
# MOVE_CODES in system_base.pyx, whose codes are the class names saved with a pipeline).
# A system uses a subset; the order here is also the class-table order of spaCy's
# initialize_actions, which sorts by move id.
cdef enum:
    SHIFT = 0
    LEFT = 1        # arc from the buffer front / stack top to a stack item, leftwards
    RIGHT = 2
    ROOT = 3        # pop s0 as a sentence root (attach to the virtual root)
    SWAP = 4
    LEFT_2 = 5
    RIGHT_2 = 6
    LEFT_3 = 7
    RIGHT_3 = 8
    REDUCE = 9
    N_MOVES = 10


cdef inline int left_move(int k) noexcept nogil:
    """The move id of LEFT_k (LEFT = LEFT_1), k = 1..3: lr_spine's and attardi's moves."""
    return LEFT if k == 1 else (LEFT_2 if k == 2 else LEFT_3)


cdef inline int right_move(int k) noexcept nogil:
    """The move id of RIGHT_k (RIGHT = RIGHT_1), k = 1..3."""
    return RIGHT if k == 1 else (RIGHT_2 if k == 2 else RIGHT_3)


# The virtual root. A state and a gold tree have no root token: a sentence root points to
# itself (docs/conventions.md). The specs' oracles and charts number the virtual root as
# node 0 and word i as node i + 1 (docs/specs/lr_spine_and_arc_standard.md §7,
# docs/specs/arc_eager_nonproj_oracle.md §2, docs/specs/attardi.md §2.10,
# docs/specs/dp_tabulation.md §1); the helpers below are the one translation.
cdef enum:
    VIRTUAL_ROOT_NODE = 0


cdef inline int word_node(int word) noexcept nogil:
    """The spec node of word `word` (the virtual root is node 0)."""
    return word + 1


cdef inline int spec_head(int head, int word, int unknown) noexcept nogil:
    """The gold head of `word` in spec numbering: the node of `head`, VIRTUAL_ROOT_NODE for a
    sentence root (head == word), `unknown` (the oracle's own marker) for an unknown head
    (head < 0)."""
    if head < 0:
        return unknown
    if head == word:
        return VIRTUAL_ROOT_NODE
    return word_node(head)
