"""spacy_dynoracle.options: the KEY=VALUE options, config keys and UD folder that
benchmarks/, projects/ud/scripts/ and tests/ share (issue 21)."""
from pathlib import Path

import pytest
from package_under_test import checkout_only

from spacy_dynoracle.options import option_text, option_value, parse_options, parser_option_key, ud_root


def test_values_are_read_as_spacy_reads_its_command_line_overrides():
    from spacy.cli._util import parse_config_overrides

    texts = ["3", "-1", "0.5", "true", "false", "null", "spine", '["a", "b"]', "True", "none"]
    assert [option_value(t) for t in texts] == [3, -1, 0.5, True, False, None, "spine", ["a", "b"],
                                                "True", "none"]
    assert [option_value(t) for t in texts] == [parse_config_overrides(["--x.k", t])["x.k"] for t in texts]


def test_parse_options_and_back_to_text():
    options = parse_options(["degree=3", "projectivize=true", "features=spine", "explore=0.5",
                             "system_options.region_nd_all=false"])
    assert options == {"degree": 3, "projectivize": True, "features": "spine", "explore": 0.5,
                       "system_options.region_nd_all": False}
    # run ids and command lines write them back as they were given
    assert [option_text(v) for v in options.values()] == ["3", "true", "spine", "0.5", "false"]
    assert option_text(None) == "null" and option_text(Path("/a/b")) == "/a/b"
    assert parse_options(None) == {} and parse_options(["k=a=b"]) == {"k": "a=b"}
    for bad in ("degree", "=3"):
        with pytest.raises(ValueError, match=f"option {bad!r} is not KEY=VALUE"):
            parse_options([bad])


def test_a_systems_own_options_go_to_system_options():
    assert parser_option_key("attardi", "degree") == "components.parser.system_options.degree"
    assert parser_option_key("lr_spine", "max_k") == "components.parser.system_options.max_k"
    assert parser_option_key("swap", "exact_live") == "components.parser.system_options.exact_live"
    assert parser_option_key("arc_eager", "projectivize") == "components.parser.projectivize"
    assert parser_option_key("swap", "beam_width") == "components.parser.beam_width"
    assert parser_option_key("arc_hybrid", "system_options.eager_root") == \
        "components.parser.system_options.eager_root"
    # the options every system shares (DynOracleSystem.common_options) are system options too
    assert parser_option_key("swap", "target") == "components.parser.system_options.target"
    assert parser_option_key("arc_eager_nm", "defer") == "components.parser.system_options.defer"
    assert parser_option_key("easy_first", "target") == "components.parser.target"   # not one of its options


@checkout_only  # the default lies beside the source tree, which an installed package is not in
def test_ud_root_defaults_to_shared_beside_the_checkout(monkeypatch):
    monkeypatch.delenv("UD_ROOT", raising=False)
    repo = Path(__file__).resolve().parents[1]
    assert ud_root() == repo.parent / "shared" / "ud"


def test_ud_root(monkeypatch, tmp_path):
    monkeypatch.setenv("UD_ROOT", str(tmp_path / "env"))
    assert ud_root() == tmp_path / "env"
    assert ud_root(tmp_path / "given") == tmp_path / "given"      # --ud-root wins
    monkeypatch.chdir(tmp_path)
    assert ud_root("relative") == tmp_path / "relative"
    monkeypatch.setenv("UD_ROOT", "rel_env")
    assert ud_root() == tmp_path / "rel_env"
