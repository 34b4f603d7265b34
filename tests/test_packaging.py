"""Packaging: the declared runtime dependencies are the third-party modules the package
imports, and the sdist carries the Cython sources (.pyx/.pxd) and py.typed (issue 20)."""
import ast
import importlib.metadata
import os
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest
from package_under_test import EXPECTED_SPACY, INSTALLED_PREFIX, PACKAGE, checkout_only

import spacy_dynoracle

REPO = Path(__file__).parents[1]
# pyproject's SPDX `license` -> the first line of the LICENSE text it stands for
LICENSE_TITLES = {"MIT": "MIT License"}
# Cython's own namespaces (cimported from the compiler, not installed packages)
CYTHON_BUILTINS = {"cython", "libc", "libcpp", "posix", "cpython"}


def requirement_names(requirements):
    return {re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0].lower().replace("_", "-") for r in requirements}


def third_party_modules():
    found = set()
    # the package under test: the checkout's, or an installed wheel's (scripts/test_wheel.sh)
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    for path in (REPO / "cython_src").rglob("*.p[yx]*"):
        for line in path.read_text(encoding="utf-8").splitlines():
            match = re.match(r"\s*(?:from\s+([\w.]+)\s+c?import|c?import\s+([\w.]+))", line)
            if match and not (match.group(1) or match.group(2)).startswith("."):  # not relative
                found.add((match.group(1) or match.group(2)).split(".")[0])
    return {m for m in found if m not in sys.stdlib_module_names and m not in CYTHON_BUILTINS
            and m != "spacy_dynoracle"}


def test_runtime_imports_are_declared_and_test_only_packages_are_not():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = requirement_names(project["dependencies"])
    modules = third_party_modules()
    assert {"spacy", "numpy", "typer", "wasabi", "tqdm"} <= modules  # the scan works
    assert modules - declared == set()
    assert "conllu" not in modules and "conllu" not in declared
    assert "conllu" in requirement_names(project["optional-dependencies"]["test"])
    # Dask is optional (the Dask recipe, docs/corpus_parsing.md), and the tests need it
    assert "dask" not in modules and "dask" not in declared
    assert "dask" in requirement_names(project["optional-dependencies"]["distributed"])
    assert "dask" in requirement_names(project["optional-dependencies"]["test"])


def test_the_package_under_test_is_the_installed_one_when_asked():
    """scripts/test_wheel.sh runs the suite against the wheel installed in a fresh venv
    (DYNORACLE_TEST_INSTALLED names it): the package must come from there, compiled."""
    if not INSTALLED_PREFIX:
        pytest.skip("the suite runs against the checkout (scripts/test_wheel.sh sets DYNORACLE_TEST_INSTALLED)")
    assert PACKAGE.is_relative_to(Path(INSTALLED_PREFIX).resolve()), PACKAGE
    assert "site-packages" in PACKAGE.parts
    assert (PACKAGE / "system_base.pxd").is_file() and (PACKAGE / "py.typed").is_file()
    assert len(list(PACKAGE.glob("*.so"))) == len(list((REPO / "cython_src" / "spacy_dynoracle").glob("*.pyx")))
    # the license text is installed with it (.dist-info/licenses/LICENSE, PEP 639)
    dist = importlib.metadata.distribution("spacy-dynoracle")
    assert Path(dist.locate_file("")).resolve().is_relative_to(Path(INSTALLED_PREFIX).resolve())
    assert "LICENSE" in dist.metadata.get_all("License-File")
    (license_file,) = [f for f in dist.files if f.name == "LICENSE"]
    assert Path(dist.locate_file(license_file)).read_text(encoding="utf-8") == \
        (REPO / "LICENSE").read_text(encoding="utf-8")


def test_the_spacy_under_test_is_the_one_asked():
    """scripts/test_wheel.sh runs the installed wheel (built against the newest spaCy of
    SPACY_ABI_RANGE) with the newest and the oldest spaCy of the range; DYNORACLE_TEST_SPACY
    names the one it installed, which the version check must accept."""
    if not EXPECTED_SPACY:
        pytest.skip("the suite runs with the environment's spaCy (scripts/test_wheel.sh sets DYNORACLE_TEST_SPACY)")
    import spacy
    from spacy_dynoracle._build_info import SPACY_VERSION

    assert EXPECTED_SPACY in spacy_dynoracle.SPACY_ABI_RANGE
    assert spacy.__version__ == EXPECTED_SPACY
    assert SPACY_VERSION == spacy_dynoracle.SPACY_ABI_RANGE[1]
    spacy_dynoracle.check_spacy_version()
    assert spacy_dynoracle.load_compiled("arc_eager").__file__.startswith(str(PACKAGE))


def test_the_declared_spacy_range_is_the_abi_range():
    """One range in four places: the run-time check (SPACY_ABI_RANGE), the dependency users
    get, and the spaCy the wheel and scripts/install.sh build against (the newest)."""
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    low, high = spacy_dynoracle.SPACY_ABI_RANGE
    assert [r for r in pyproject["project"]["dependencies"] if r.startswith("spacy")] == [f"spacy>={low},<={high}"]
    assert f"spacy=={high}" in pyproject["build-system"]["requires"]
    assert f'"spacy=={high}"' in (REPO / "scripts" / "install.sh").read_text(encoding="utf-8")


def test_license_text_matches_the_declared_license():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license-files"] == ["LICENSE"]
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.splitlines()[0] == LICENSE_TITLES[project["license"]]
    assert "Permission is hereby granted, free of charge" in text


def test_install_script_installs_the_test_extra():
    """scripts/install.sh (what CI runs) installs every requirement of the test extra."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    script = (REPO / "scripts" / "install.sh").read_text(encoding="utf-8")
    for requirement in project["optional-dependencies"]["test"]:
        assert f'"{requirement}"' in script, requirement


# ------------------------------------------------------- builds from a copy of the checkout


def source_copy(tmp_path) -> Path:
    """The working tree's files (tracked and untracked, not ignored) copied to tmp_path, so
    that building writes nothing (egg-info, _build_info.py) into the repository."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                cwd=REPO, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("needs the git checkout of the repository")
    copy = tmp_path / "src"
    for name in filter(None, listed.decode().split("\0")):
        if (REPO / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            (copy / name).write_bytes((REPO / name).read_bytes())
    return copy


@checkout_only  # builds with the checkout's tools (setuptools, Cython), which the wheel's venv lacks
def test_wheel_carries_the_cython_sources_beside_the_modules(tmp_path):
    """An installed wheel must let other extensions `cimport spacy_dynoracle.system_base`:
    every .pxd (and .pyx) of cython_src/spacy_dynoracle/ goes into the wheel's
    spacy_dynoracle/. Built with one extension only (DYNORACLE_MODULES), so it is cheap."""
    copy = source_copy(tmp_path)
    env = dict(os.environ, DYNORACLE_MODULES="system_base")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path / "wheels"), str(copy)],
                   check=True, capture_output=True, env=env, timeout=1800)
    (wheel,) = (tmp_path / "wheels").glob("*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        zf.extractall(tmp_path / "installed")
    sources = {p.name for p in (REPO / "cython_src" / "spacy_dynoracle").iterdir() if p.suffix in (".pxd", ".pyx")}
    assert {"system_base.pxd", "__init__.pxd", "system_base.pyx"} <= sources
    assert {f"spacy_dynoracle/{name}" for name in sources} - names == set()
    assert "spacy_dynoracle/py.typed" in names
    (license_name,) = [n for n in names if re.fullmatch(r"spacy_dynoracle-[^/]+\.dist-info/licenses/LICENSE", n)]
    with zipfile.ZipFile(wheel) as zf:
        assert zf.read(license_name).decode() == (REPO / "LICENSE").read_text(encoding="utf-8")
    assert [n for n in names if re.fullmatch(r"spacy_dynoracle/system_base\..*\.so", n)]
    assert not [n for n in names if n.endswith(".cpp")]
    # Cython finds the contract in the unpacked wheel (not in the checkout: not on the path).
    (tmp_path / "user.pyx").write_text("from spacy_dynoracle.system_base cimport DynOracleSystem\n"
                                       "cdef class MySystem(DynOracleSystem):\n    pass\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, "-m", "cython", "--cplus", "-3", "-I", str(tmp_path / "installed"),
                          "user.pyx"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "user.cpp").exists()


@checkout_only
def test_sdist_carries_the_sources_and_builds_without_warnings(tmp_path):
    """`python setup.py sdist` ships the Cython sources (.pyx/.pxd, which the wheel is built
    from), py.typed and LICENSE, and no generated file; it prints no warning (the license as
    a TOML table was deprecated by setuptools; a MANIFEST.in pattern that matches nothing
    warns too)."""
    copy = source_copy(tmp_path)
    out = subprocess.run([sys.executable, "setup.py", "-q", "sdist", "--dist-dir", str(tmp_path / "dist")],
                         cwd=copy, capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr
    assert "warning" not in (out.stdout + out.stderr).lower(), out.stdout + out.stderr
    (sdist,) = (tmp_path / "dist").glob("*.tar.gz")
    root = sdist.name[:-len(".tar.gz")]
    with tarfile.open(sdist) as tar:
        names = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
        pkg_info = tar.extractfile(f"{root}/PKG-INFO").read().decode()
        license_text = tar.extractfile(f"{root}/LICENSE").read().decode()
    assert "License-Expression: MIT" in pkg_info.splitlines()
    assert "License-File: LICENSE" in pkg_info.splitlines()
    assert license_text == (REPO / "LICENSE").read_text(encoding="utf-8")
    sources = {str(p.relative_to(REPO)) for p in (REPO / "cython_src").rglob("*") if p.suffix in (".pyx", ".pxd")}
    assert "cython_src/spacy_dynoracle/system_base.pxd" in sources
    assert sources - names == set()
    assert {"spacy_dynoracle/py.typed", "setup.py", "pyproject.toml", "MANIFEST.in", "LICENSE"} <= names
    assert not [n for n in names if n.endswith((".so", ".cpp")) or n.endswith("_build_info.py")]
