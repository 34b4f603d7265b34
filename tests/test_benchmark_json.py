"""benchmarks/common.write_json, the one writer of every benchmark's --json output."""
import importlib
import json
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from common import write_json  # noqa: E402


def test_write_json_makes_the_folder_and_keeps_paths_as_strings(tmp_path):
    out = tmp_path / "new" / "folder" / "result.json"
    write_json(out, {"model": Path("/x/model-best"), "rows": [{"ratio": 1.5}]})
    text = out.read_text()
    assert text.endswith("}\n") and "\n  " in text        # indented, one final newline
    assert json.loads(text) == {"model": "/x/model-best", "rows": [{"ratio": 1.5}]}


@pytest.mark.parametrize("name", ["compare_oracles", "cut_path", "explore_states", "memory",
                                  "oracle_time", "parse_speed", "train_step"])
def test_each_benchmark_writes_its_json_through_write_json(name):
    """Each benchmark with --json imports the shared writer and no longer writes JSON itself."""
    module = importlib.import_module(name)
    assert module.write_json is write_json
    assert "args.json.write_text" not in (BENCHMARKS / f"{name}.py").read_text()
