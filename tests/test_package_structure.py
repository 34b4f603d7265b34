"""The shape of the Python package: its modules import each other without a cycle (issue 21),
and the model architectures that saved configs name are entry points of the package."""
import ast
import tomllib
from importlib import import_module
from pathlib import Path

from package_under_test import PACKAGE

REPO = Path(__file__).parents[1]
INIT = "__init__"


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


def test_architecture_entry_points_name_the_registered_builders():
    from spacy.util import registry

    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    entry_points = project["entry-points"]["spacy_architectures"]
    # saved configs name these (tests/test_saved_pipelines.py): the names must not change
    assert sorted(entry_points) == ["spacy_dynoracle.SpineParserModel.v1",
                                    "spacy_dynoracle.WindowParserModel.v1"]
    for name, target in entry_points.items():
        module, _, attr = target.partition(":")
        builder = getattr(import_module(module), attr)    # importing it registers it
        assert registry.architectures.get(name) is builder
