"""benchmarks/common.py's callgrind_total: the instruction count train_step --instructions
reads from each callgrind dump."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from common import callgrind_total  # noqa: E402

# the head of a dump as valgrind 3.19's callgrind writes it (`summary:` is 0 in a dump
# taken with instrumentation off; `totals:` is the dump's count)
DUMP = """# callgrind format
version: 1
creator: callgrind-3.19.0
pid: 6176
cmd:  python3 probe.py 200000
part: 2
desc: Trigger: dump swap_dynamic
events: Ir
summary: 0
fl=(1) ???
fn=(1) 0x0000000000401000
1 3
totals: 141251771
"""


def test_reads_totals_not_summary():
    assert callgrind_total(DUMP) == 141251771


def test_picks_the_event_column():
    text = DUMP.replace("events: Ir", "events: Dr Ir").replace("totals: 141251771", "totals: 7 11")
    assert callgrind_total(text) == 11
    assert callgrind_total(text, event="Dr") == 7


def test_omitted_trailing_zero():
    text = DUMP.replace("events: Ir", "events: Ir Dr")
    assert callgrind_total(text, event="Dr") == 0


@pytest.mark.parametrize("drop, message", [("totals:", "no events: or totals:"),
                                           ("events:", "no events: or totals:")])
def test_missing_lines(drop, message):
    text = "\n".join(l for l in DUMP.splitlines() if not l.startswith(drop))
    with pytest.raises(ValueError, match=message):
        callgrind_total(text)


def test_event_not_counted():
    with pytest.raises(ValueError, match="'Dr' not counted"):
        callgrind_total(DUMP, event="Dr")
