"""The README's Simulator example runs and prints what the README says."""
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_simulator_example():
    text = README.read_text()
    block = re.search(r"```python\nfrom spacy_dynoracle.testing import Simulator\n(.*?)```", text, re.S).group(1)
    expected = {}
    lines = []
    for line in block.splitlines():
        code, _, comment = line.partition("#")
        code = code.strip()
        if code.startswith("sim.actions()") or code.startswith("sim.costs(gold)"):
            expected[code] = comment.split(" - ")[0].strip()
        lines.append(code)
    namespace = {}
    exec("from spacy_dynoracle.testing import Simulator\n" + "\n".join(lines), namespace)
    sim = namespace["sim"]
    for code, value in expected.items():
        assert repr(eval(code, namespace)) == value, code
    assert sim.stack() == [0]


def test_readme_starts_with_the_two_commands():
    text = README.read_text()
    first_block = re.search(r"```sh\n(.*?)```", text, re.S).group(1)
    commands = [l.split("#")[0].strip() for l in first_block.splitlines() if l.strip()]
    assert commands == ["bash scripts/quickstart.sh", "python3 -m pytest -q"]
    ci = (README.parent / ".ci" / "run").read_text()
    assert "python3 -m pytest -q\n" in ci


def test_readme_documents_the_release_facts():
    """The supported spaCy range (as declared), --lenient and corpus-scale parsing (issue 20)."""
    import tomllib

    text = README.read_text()
    project = tomllib.loads((README.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (spacy_requirement,) = [r for r in project["dependencies"] if r.startswith("spacy")]
    assert f"`{spacy_requirement}`" in text
    assert "--lenient" in text and "lenient = true" in text
    assert "## Corpus-scale parsing" in text and "(docs/corpus_parsing.md)" in text
    for what in ("n_process=2", "spacy apply", "--n-process", "--batch-size", "parse_with_dask"):
        assert what in text.split("## Corpus-scale parsing")[1], what
