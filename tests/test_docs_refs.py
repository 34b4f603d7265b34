"""Every citation of a spec section ("docs/specs/attardi.md §2.7", a Markdown link to a spec
followed by "§n", or "[spec] §n" with `[spec]: ../specs/x.md` defined in the same file) names a
file under docs/ that has a heading for that section, and no citation leaves the repository or
omits its file (issue 20). Pure text scanning: no build, no spaCy."""
import re
from pathlib import Path

from package_under_test import checkout_only

# the sources it scans include the checkout's spacy_dynoracle/*.py
pytestmark = checkout_only

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ["spacy_dynoracle/*.py", "cython_src/spacy_dynoracle/*.pyx",
           "cython_src/spacy_dynoracle/*.pxd", "tests/*.py", "benchmarks/*.py",
           "projects/ud/scripts/*.py", "README.md", "docs/*.md", "docs/**/*.md"]
SEARCH_BARE = ["docs/specs", "docs/proofs"]   # where a bare "name.md §n" is looked up

NUM = r"\d+(?:\.\d+)*[a-z]?"
SECTION = r"\s*§(?P<num>%s)(?:\s*[-–/]\s*(?P<end>\d+(?:\.\d+)*))?" % NUM
MORE = re.compile(r"(?:\s*,\s*|\s+and\s+|\s*/\s*)§(?P<num>%s)" % NUM)
PATH_CITE = re.compile(r"(?<![\w/.\-])(?P<path>(?:[\w.\-]+/)*[\w\-]+\.md)`?" + SECTION)
LINK_CITE = re.compile(r"\[[^\]\n]*\]\((?P<path>[^)\s#]+\.md)(?:#[^)\s]*)?\)" + SECTION)
REF_CITE = re.compile(r"\[(?P<label>[^\]\n]+)\](?:\[\])?" + SECTION)
REF_DEF = re.compile(r"^\[(?P<label>[^\]\n]+)\]:\s*(?P<path>\S+)", re.M)
HEADING = re.compile(r"^#{1,6}\s+(?:§\s*)?(?P<num>%s)\.?(?:\s|$)" % NUM, re.M)
BARE_SPEC = re.compile(r"\b[Ss]pec §")
OUTSIDE = re.compile(r"shared/specs|spacy-integration\.md|shared/spacy")


def scanned_files():
    seen = set()
    for pattern in SOURCES:
        for path in sorted(ROOT.glob(pattern)):
            if path.is_file() and path.name != Path(__file__).name and path not in seen:
                seen.add(path)
                yield path


def resolve(target, source):
    """The file a cited path names, or None."""
    candidates = []
    if target.startswith("docs/"):
        candidates.append(ROOT / target)
    elif "/" in target:
        candidates.append((source.parent / target).resolve())
    else:
        candidates += [ROOT / d / target for d in SEARCH_BARE]
        candidates.append(source.parent / target)
    for c in candidates:
        if c.is_file():
            return c
    return None


_sections = {}


def sections(path):
    if path not in _sections:
        text = path.read_text(encoding="utf-8")
        _sections[path] = {m.group("num").rstrip(".") for m in HEADING.finditer(text)}
    return _sections[path]


def citations(path):
    """(line number, cited text, target path string, [section numbers]) of every citation."""
    text = path.read_text(encoding="utf-8")
    refs = {m.group("label").lower(): m.group("path") for m in REF_DEF.finditer(text)}
    found = []
    for regex in (PATH_CITE, LINK_CITE, REF_CITE):
        for m in regex.finditer(text):
            target = m.group("path") if regex is not REF_CITE else refs.get(m.group("label").lower())
            if target is None:      # "[GSS14] §6", "[fix] §1.2": a paper or a tag, not a file
                continue
            nums = [m.group("num")] + ([m.group("end")] if m.group("end") else [])
            pos = m.end()
            while True:
                more = MORE.match(text, pos)
                if not more:
                    break
                nums.append(more.group("num"))
                pos = more.end()
            line = text.count("\n", 0, m.start()) + 1
            found.append((line, text[m.start():pos], target, nums))
    return found


def test_every_cited_section_exists():
    problems, n = [], 0
    for path in scanned_files():
        for line, cited, target, nums in citations(path):
            n += 1
            where = f"{path.relative_to(ROOT)}:{line}: {cited!r}"
            doc = resolve(target, path)
            if doc is None:
                problems.append(f"{where}: no file {target} in the repository")
                continue
            try:
                doc.relative_to(ROOT / "docs")
            except ValueError:
                problems.append(f"{where}: {doc} is not under docs/")
                continue
            for num in nums:
                if num not in sections(doc):
                    problems.append(f"{where}: {doc.relative_to(ROOT)} has no heading §{num}")
    assert n > 150, f"only {n} citations found: is the citation pattern still right?"
    assert not problems, "\n".join(problems)


def test_no_spec_reference_without_its_file():
    bare, outside = [], []
    for path in scanned_files():
        for i, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
            if BARE_SPEC.search(line):
                bare.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
            if OUTSIDE.search(line):
                outside.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not bare, "'spec §' without its file (write docs/specs/<name>.md §n):\n" + "\n".join(bare)
    assert not outside, "references outside the repository:\n" + "\n".join(outside)


def test_specs_index_lists_every_spec():
    index = (ROOT / "docs/specs/README.md").read_text(encoding="utf-8")
    for spec in sorted((ROOT / "docs/specs").glob("*.md")):
        if spec.name != "README.md":
            assert f"({spec.name})" in index, f"{spec.name} is missing from docs/specs/README.md"
