"""The shape of the Python package: its modules import each other without a cycle (issue 21),
the compiled ones included, and the model architectures that saved configs name are entry
points of the package."""
import ast
import re
import tomllib
from importlib import import_module
from pathlib import Path

from package_under_test import PACKAGE

REPO = Path(__file__).parents[1]
INIT = "__init__"
# a package-relative import or cimport in Cython source (not Python syntax, so not ast's):
# `from .x import a`, `from .x cimport (a,`, `from spacy_dynoracle.x cimport a`, `cimport ...`
CYTHON_IMPORT = re.compile(r"^\s*(?:from\s+(\.|spacy_dynoracle\.?)(\w*)\s+c?import\s+(.*)"
                           r"|c?import\s+spacy_dynoracle\.(\w+))", re.M)


def import_graph(package: Path = PACKAGE) -> dict:
    """{module: {modules it imports}} over the package's .py modules ("__init__" for the
    package itself), counting imports anywhere in a module, inside functions too: a cycle
    through a function-level import is still a cycle, only a deferred one."""
    modules = {path.stem for path in package.glob("*.py")}

    def target(dotted: str) -> str:
        head = dotted.split(".")[0] if dotted else ""
        return head if head in modules else INIT

    graph = {}
    for module in modules:
        edges = set()
        for node in ast.walk(ast.parse((package / f"{module}.py").read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level == 0 and node.module and node.module.split(".")[0] == package.name:
                    rest = node.module.partition(".")[2]
                elif node.level == 1:
                    rest = node.module or ""
                else:
                    continue
                if rest:
                    edges.add(target(rest))
                else:       # `from . import a`: module a, or a name defined in __init__
                    edges.update(target(alias.name) for alias in node.names)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == package.name:
                        edges.add(target(alias.name.partition(".")[2]))
        edges.discard(module)
        graph[module] = edges
    return graph


def cython_sources(package: Path = PACKAGE) -> Path:
    """Where the .pyx/.pxd of the compiled modules are: beside them in an installed wheel
    (setup.py's build_py), cython_src/spacy_dynoracle/ in the checkout."""
    return package if any(package.glob("*.pyx")) else REPO / "cython_src" / package.name


def compiled_import_graph(sources: Path, python_modules=()) -> dict:
    """{module: {modules it imports}} over the Cython modules in `sources`: a .pyx's
    Python imports and the cimports of it and of its .pxd. A cimport of a module that has a
    .pyx imports that module when the extension loads (its types and functions); a .pxd
    without a .pyx (conventions, oracle_arrays: declarations and inline code) is a node
    too, as a cimport cycle through it cannot compile. A name that is no module
    (`from spacy_dynoracle import SYSTEMS`) is the package's __init__."""
    paths = sorted(sources.glob("*.pyx")) + sorted(sources.glob("*.pxd"))
    modules = {path.stem for path in paths} | set(python_modules)

    def target(name):
        return name if name in modules else INIT

    graph = {}
    for path in paths:
        edges = graph.setdefault(path.stem, set())
        for match in CYTHON_IMPORT.finditer(path.read_text(encoding="utf-8")):
            package, name, names, absolute = match.groups()
            if absolute or name:
                edges.add(target(absolute or name))
            else:                   # `from . cimport a, b`: modules, or names of __init__
                edges.update(target(n.strip()) for n in names.strip("()").split(",")
                             if n.strip())
        edges.discard(path.stem)
    return graph


def loaded_compiled(package: Path = PACKAGE) -> dict:
    """{module: {compiled modules it loads by name}}: `load_compiled("x")` in a .py module
    (imports that ast does not see as one)."""
    graph = {}
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "load_compiled"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                graph.setdefault(path.stem, set()).add(node.args[0].value)
    return graph


def system_tables(package: Path = PACKAGE) -> set:
    """The compiled modules that __init__.py's system tables (SYSTEMS, LIST_SYSTEMS: name ->
    (module, class)) name, which get_system_class loads."""
    modules = set()
    for node in ast.walk(ast.parse((package / f"{INIT}.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.Dict):
            modules.update(v.elts[0].value for v in node.values
                           if isinstance(v, ast.Tuple) and v.elts
                           and isinstance(v.elts[0], ast.Constant))
    return modules


def package_import_graph(package: Path = PACKAGE, sources: Path = None) -> dict:
    """The whole package's import graph: its .py modules (import_graph), what they load by
    name (loaded_compiled), the compiled modules (compiled_import_graph), and the compiled
    systems get_system_class loads from SYSTEMS / LIST_SYSTEMS (system_tables)."""
    graph = import_graph(package)
    graph[INIT].update(system_tables(package))
    compiled = compiled_import_graph(sources or cython_sources(package), graph)
    for module, edges in list(loaded_compiled(package).items()) + list(compiled.items()):
        graph.setdefault(module, set()).update(edges)
    return graph


def find_cycle(graph: dict):
    """A list of modules forming a cycle (first repeated at the end), or None."""
    state = {}          # module -> "open" while on the DFS path, "done" after
    path = []

    def visit(module):
        state[module] = "open"
        path.append(module)
        for nxt in sorted(graph.get(module, ())):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[module] = "done"
        return None

    for module in sorted(graph):
        if module not in state:
            found = visit(module)
            if found:
                return found
    return None


def test_the_cycle_finder_finds_a_deferred_cycle(tmp_path):
    package = tmp_path / "spacy_dynoracle"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from . import load_compiled\ndef f():\n    from .b import g\n")
    (package / "b.py").write_text("import spacy_dynoracle.c\n")
    (package / "c.py").write_text("from spacy_dynoracle.a import f\n")
    graph = import_graph(package)
    assert graph == {"__init__": set(), "a": {"__init__", "b"}, "b": {"c"}, "c": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    (package / "c.py").write_text("from spacy_dynoracle import load_compiled\n")
    assert find_cycle(import_graph(package)) is None


def test_the_package_has_no_import_cycle():
    graph = import_graph()
    assert {"parser", "exact_decoding", "architectures", "factory"} <= set(graph)
    assert "exact_decoding" in graph["parser"]        # the scan sees relative imports
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph))


def test_the_cycle_finder_sees_cimports_and_compiled_imports(tmp_path):
    package, sources = tmp_path / "spacy_dynoracle", tmp_path / "src"
    package.mkdir()
    sources.mkdir()
    (package / "__init__.py").write_text("")
    (package / "parser.py").write_text("def f():\n    return load_compiled('base')\n")
    (sources / "base.pyx").write_text("from .conventions cimport ROOT\nfrom .sys cimport (\n    S,\n)\n")
    (sources / "conventions.pxd").write_text("cdef enum:\n    ROOT = 3\n")
    (sources / "sys.pxd").write_text("from .base cimport B\n")
    (sources / "sys.pyx").write_text("import spacy_dynoracle.parser\n")
    graph = package_import_graph(package, sources)
    assert graph == {"__init__": set(), "parser": {"base"}, "base": {"conventions", "sys"},
                     "conventions": set(), "sys": {"base", "parser"}}
    assert find_cycle(graph) == ["base", "sys", "base"]
    (sources / "sys.pxd").write_text("cdef class S:\n    pass\n")
    assert find_cycle(package_import_graph(package, sources)) == ["base", "sys", "parser", "base"]
    (sources / "sys.pyx").write_text("from spacy_dynoracle.options import parse\n")
    assert find_cycle(package_import_graph(package, sources)) is None


def test_the_package_has_no_import_cycle_compiled_modules_included():
    graph = package_import_graph()
    # the scan sees the compiled modules' Python imports, their cimports, load_compiled and
    # the system tables
    assert "arc_eager" in graph["arc_hybrid"] and "system_base" in graph["arc_standard"]
    assert {"arc_eager", "swap", "easy_first"} <= graph[INIT]
    assert {"conventions", "oracle_arrays"} <= graph["arc_standard_oracle"]
    assert "state_features" in graph["parser"]
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph))


def test_architecture_entry_points_name_the_registered_builders():
    from spacy.util import registry

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    entry_points = project["entry-points"]["spacy_architectures"]
    # saved configs name these (tests/test_saved_pipelines.py): the names must not change
    assert sorted(entry_points) == ["spacy_dynoracle.AffixMultiHashEmbed.v1",
                                    "spacy_dynoracle.SpineParserModel.v1",
                                    "spacy_dynoracle.WindowParserModel.v1"]
    for name, target in entry_points.items():
        module, _, attr = target.partition(":")
        builder = getattr(import_module(module), attr)    # importing it registers it
        assert registry.architectures.get(name) is builder


def test_oracle_handles_owning_a_heap_object_free_it_through_one_owner():
    """NPOracleTable, EasyFirstGoldTable and NMOracleTable own one heap object each
    (NPOracle, EFGold, NMOracle) and free it through OracleOwner (oracle_owner.pyx), which knows nothing of spaCy; building
    and dropping many of them keeps memory flat (a free that never ran would grow it by
    100 kB or more a table)."""
    from spacy_dynoracle import load_compiled

    owner = load_compiled("oracle_owner").OracleOwner
    tables = {"arc_eager_oracle": load_compiled("arc_eager_oracle").NPOracleTable,
              "easy_first_oracle": load_compiled("easy_first_oracle").EasyFirstGoldTable,
              "arc_eager_nm_oracle": load_compiled("arc_eager_nm_oracle").NMOracleTable}
    graph = package_import_graph()
    assert graph["oracle_owner"] <= {"conventions"}, graph["oracle_owner"]
    for module, table in tables.items():
        assert issubclass(table, owner) and "oracle_owner" in graph[module], module

    def resident_kb():
        return int(Path("/proc/self/statm").read_text().split()[1]) * 4

    n = 20_000      # unknown heads: cheap to build, 100 to 200 kB of arrays a table
    builds = {"arc_eager_oracle": lambda: tables["arc_eager_oracle"]([None] * n).initial_score,
              "easy_first_oracle": lambda: tables["easy_first_oracle"]([-1] * n).formula_exact,
              "arc_eager_nm_oracle": lambda: tables["arc_eager_nm_oracle"]([-1] * n).block_best([])}
    for module, build in builds.items():
        for _ in range(20):      # warm the allocator
            build()
        before = resident_kb()
        for _ in range(300):
            build()
        assert resident_kb() - before < 20_000, module
