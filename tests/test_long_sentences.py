"""Issue 23: the oracle's cost stays bounded on long sentences, for every system.

A synthetic 300-word sentence, projective but for a few crossing arcs (as long treebank
sentences are), is walked from the initial state to the end through the costs training
uses (Simulator.training_costs = moves.step_batch's), as an exploring untrained model
walks it: half of the moves are its mistakes, and its mistake is SHIFT when it can
(an untrained model keeps shifting, so the stack grows deep, the hard case of the
tabular oracles; easy-first, which has no SHIFT, takes a random action). Every system and
variant the issue names is walked: arc_standard, arc_hybrid, arc_eager, attardi of degree 2
and 3, swap, lr_spine (on the raw gold, as the Simulator gives it, and on the lifted gold
that training gives it by default, in both cost modes), easy_first, and arc_eager_nm with its
default `spacy` costs and with its exact oracle. Bounds, each of
which fails when the oracle's work stops being bounded:

* every system: CPU seconds per walk (process time, so the load of other jobs does not
  count) under its limit in CPU_LIMITS_S, about 10 times what it takes on the project's
  loaded 2-core machine (so a much slower oracle fails here), and per state
  under STATE_CPU_LIMIT_S, 8 times the slowest state seen (easy_first's); the states of
  the walk at most 2n + 1 for the shift-reduce systems, n for easy-first and 4n for swap
  (whose SWAP moves add states: a swap loop would break it);
* a count of the oracle's own work per state where the oracle counts it (WORK below):
  - arc_standard: the DP cells it visits (last_oracle_cells): at most 4 budgets plus
    O(n^2) per state (the guard), and at most 2e9 over the walk (1.2e9 now). Without the
    guard (budget=0) this walk visits 7.3e9 cells, 33e6 in its worst state;
  - lr_spine: the DP entries one state inserts, at most 5/4 of the guard's budget plus the
    cells in progress; on the lifted gold also their sum over the walk;
  - attardi: the search tables' combinations (oracle_stats()["combos"]), at most the
    guard's per-state budget plus one table per state;
  - easy_first: the DP's cells (oracle_stats()["dp_cells"], the cube of each gold block's
    pending items with the virtual root): at most (n + 1)^3 per state, and over the walk at
    most the sum of (m + 1)^3 over the pending list's lengths m = n..1, i.e. one DP over
    the whole pending list per state and nothing more (easy_first_oracle.pyx);
  - arc_eager_nm's exact oracle (`oracle = "dynamic"`): the chart cells of a state
    (last_oracle_cells), at most its guard's budget (without the guard, budget=0, this
    walk's worst state computes 67,067 cells); its CPU limit is CASE_CPU_LIMITS_S's;
  - arc_eager, arc_hybrid, arc_eager_nm's default `spacy` costs and swap count no oracle
    work: their oracles have no search and no guard, and are polynomial per state by
    construction (the continuation DP O(k m^2), m the words up to the next cut,
    arc_eager_oracle.pyx; swap O(n^2), docs/systems/swap.md; spaCy's costs O(n)), so the
    state and CPU limits bound them.
  The figures of a run are printed (-s) and recorded in docs/systems/*.md.
"""
import random
import time

import pytest
from spacy.pipeline._parser_internals.nonproj import projectivize

from spacy_dynoracle import LIST_SYSTEMS, SYSTEMS
from spacy_dynoracle.testing import Simulator
from synthetic import long_nonprojective_heads

N_WORDS = 300
# CPU seconds per walk: about 10 times the most a case of the system took with
# `python3 -m pytest -q -s tests/test_long_sentences.py` on the project's 2-core machine
# under the load of two training runs (2026-11-27/28: arc_eager 0.33, arc_eager_nm 0.02,
# arc_hybrid 0.38, arc_standard 3.2, attardi 0.11, lr_spine 4.0, swap 0.07 since its O(1)
# validity (0.42 before), easy_first 4.3). A 20 times slower oracle fails arc_eager's,
# arc_hybrid's and swap's (the negative control in docs/long_sentences.md); attardi's and
# arc_eager_nm's walks are too short for a CPU limit to tell, attardi's work is bounded
# by its count below
CPU_LIMITS_S = {"arc_eager": 3.5, "arc_eager_nm": 0.5, "arc_hybrid": 4.0, "arc_standard": 32.0,
                "attardi": 1.0, "lr_spine": 40.0, "swap": 0.8, "easy_first": 45.0}
# cases whose oracle is not the system's default, by case id: arc_eager_nm's exact oracle
# took 1.9-2.2 s (2026-11-29, the same load; 594 of its 994 states guard; without the guard,
# budget = 0: 6.4 s, 67,067 cells in a state: its count below catches that)
CASE_CPU_LIMITS_S = {"arc_eager_nm-oracle=dynamic": 20.0}
STATE_CPU_LIMIT_S = 0.5     # the slowest state: easy_first's, 62 ms (2026-11-28)
LRS_CELL_SLACK = 20_000     # lr_spine: insertions of the two DP cells the guard stops in


def lr_spine_inserts(sim):
    return sim.moves.work.inserts


def attardi_combos(sim):
    return sim.moves.oracle_stats()["combos"]


def easy_first_cells(sim):
    return sim.moves.oracle_stats()["dp_cells"]


# the oracle's work counter per system, read before and after each state's costs
WORK = {"lr_spine": lr_spine_inserts, "attardi": attardi_combos, "easy_first": easy_first_cells}
# systems whose oracle reports its chart cells of the last state (last_oracle_cells)
CELL_COUNTERS = ("arc_standard", "arc_eager_nm")


def walk(system, heads, seed=0, p_mistake=0.5, **options):
    """Walk the sentence with training-path costs; returns (states, CPU seconds, the
    oracle's work per state or None (WORK; arc_standard: its cells), the Simulator, the
    largest CPU seconds of one state)."""
    n = len(heads)
    labels = ["dep"] * n
    sim = Simulator(system, n, labels=["dep"], **options)
    rng = random.Random(seed)
    counter = WORK.get(system)
    work = [] if counter is not None or system in CELL_COUNTERS else None
    states = 0
    max_state_cpu = 0.0
    t0 = time.process_time()
    while not sim.is_final():
        before = counter(sim) if counter is not None else 0
        t1 = time.process_time()
        costs = sim.training_costs(heads, labels)
        max_state_cpu = max(max_state_cpu, time.process_time() - t1)
        states += 1
        if system in CELL_COUNTERS:
            work.append(sim.moves.last_oracle_cells)
        elif counter is not None:
            work.append(counter(sim) - before)
        acts = sorted(costs)
        if rng.random() < p_mistake:
            shifts = [a for a in acts if a.startswith("SHIFT")]
            act = rng.choice(shifts or acts)
        else:
            act = rng.choice([a for a in acts if costs[a] == 0])
        sim.apply(act)
    return states, time.process_time() - t0, work, sim, max_state_cpu


def lifted(heads):
    """The gold training gives a system that lifts non-projective trees (lr_spine's default:
    spaCy's pseudo-projective transformation)."""
    return list(projectivize(heads, ["dep"] * len(heads))[0])


def test_long_nonprojective_sentence_is_nonprojective():
    from bruteforce import is_projective
    heads = long_nonprojective_heads(N_WORDS, seed=0)
    assert len(heads) == N_WORDS and not is_projective(heads)
    assert sum(h == i for i, h in enumerate(heads)) == 1
    assert is_projective(lifted(heads))


# (system, options, lift): every registered system with its defaults; attardi of degree 3;
# lr_spine with exact_costs=True (exact values; its default "beam" gives greedy training the
# zero-cost set only, lr_spine_oracle.pyx) and on the lifted gold, in both modes; easy_first
# (a system with its own state)
CASES = ([(system, {}, False) for system in sorted(SYSTEMS)]
         + [("attardi", {"degree": 3}, False), ("arc_eager_nm", {"oracle": "dynamic"}, False),
            ("lr_spine", {"exact_costs": True}, False),
            ("lr_spine", {}, True), ("lr_spine", {"exact_costs": True}, True)]
         + [(system, {}, False) for system in sorted(LIST_SYSTEMS)])
# lr_spine on the lifted gold: DP insertions over the walk (2026-11-27: exact with
# greedy_bounds 25.1e6, without 28.4e6; exact_costs=False 14.9e6; docs/long_sentences.md has
# the figures of the two-phase oracle, lrcost14)
LRS_LIFTED_INSERTS = 40_000_000


def case_id(system, options, lift):
    return system + "".join(f"-{k}={v}" for k, v in options.items()) + ("-lifted" if lift else "")


@pytest.mark.parametrize("system,options,lift", CASES, ids=[case_id(*case) for case in CASES])
def test_long_sentence_trains_in_bounded_time(system, options, lift):
    heads = long_nonprojective_heads(N_WORDS, seed=0)
    if lift:
        heads = lifted(heads)
    states, cpu, work, sim, state_cpu = walk(system, heads, **options)
    stats = sim.moves.oracle_stats() if hasattr(sim.moves, "oracle_stats") else {}
    print(f"{system} {options}{' lifted' if lift else ''}: {states} states, {cpu:.2f} s CPU "
          f"(at most {state_cpu * 1000:.1f} ms in a state)"
          + (f", oracle work {sum(work):,} (max {max(work):,} per state)" if work else "")
          + (f", {stats}" if stats else ""))
    assert states >= N_WORDS
    # arc_eager_nm: 2n pushes and pops plus 2 moves per unshift, and a word is unshifted at
    # most once plus once per LEFT that makes it reshiftable (docs/systems/arc_eager_nm.md)
    limit = {"swap": 4 * N_WORDS, "arc_eager_nm": 6 * N_WORDS}.get(system, N_WORDS if system in LIST_SYSTEMS else 2 * N_WORDS + 1)
    assert states <= limit, f"{system}: {states} states for {N_WORDS} words"
    cpu_limit = CASE_CPU_LIMITS_S.get(case_id(system, options, lift), CPU_LIMITS_S[system])
    assert cpu < cpu_limit, f"{system}: {cpu:.1f} s CPU for one {N_WORDS}-word sentence"
    assert state_cpu < STATE_CPU_LIMIT_S, f"{system}: {state_cpu:.2f} s CPU in one state"
    if system == "lr_spine":
        # the guard: 5/4 of the budget, plus the cell in progress when each of the two
        # phases ran out (lr_spine_oracle.pyx, "Guard", "Two phases")
        budget = sim.moves.work.budget
        assert budget > 0
        assert max(work) <= budget * 5 // 4 + LRS_CELL_SLACK
        if lift:
            assert sum(work) <= LRS_LIFTED_INSERTS
    elif system == "arc_standard":
        budget = sim.moves.budget
        assert budget > 0
        assert max(work) <= 4 * budget + 4 * (N_WORDS + 2) ** 2
        assert sum(work) <= 2_000_000_000
    elif system == "arc_eager_nm" and options.get("oracle") == "dynamic":
        # the guard: a state's chart cells never pass the budget (arc_eager_nm_oracle.pyx;
        # docs/systems/arc_eager_nm.md, "Long sentences")
        budget = sim.moves.budget
        assert budget > 0
        assert max(work) <= budget
    elif system == "attardi":
        # the guard's budget of combinations per state, which a table in progress may
        # overrun once (attardi_oracle.pyx)
        budget = sim.moves.cfg["budget"]
        assert budget > 0
        assert max(work) <= 2 * budget
    elif system == "easy_first":
        # one O(m^3) DP over the pending list (m items and the virtual root) per state
        assert max(work) <= (N_WORDS + 1) ** 3
        assert sum(work) <= ((N_WORDS + 1) * (N_WORDS + 2) // 2) ** 2


def test_every_system_has_a_cpu_limit():
    assert set(CPU_LIMITS_S) == set(SYSTEMS) | set(LIST_SYSTEMS)
