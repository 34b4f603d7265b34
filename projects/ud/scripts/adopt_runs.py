"""Carry finished runs into a new output folder when the configs adopt what they tried.

A `run_matrix.py --set KEY=VALUE --variant NAME` run trains the configs with one override. Once
the configs themselves take that value, the same run under the new configs is that run without
the override, and its id loses "+NAME". This copies such runs into the protocol's new folder
under that id, after proving the config each trained with equals the one the current configs
give for the same command without the variant's overrides (every section but [paths] and the
logger's output file, both filled by spaCy). A run whose config differs is named and left.

    python scripts/adopt_runs.py --source training/converged --output training/converged_affix \
        --variant affix [--peers] [--dry-run]

`--peers` copies the peers' runs as they are (UDPipe 1 and spaCy's biaffine parser: neither
reads configs/*_tagger.cfg's tok2vec). Each copy's run.json keeps its command and gains
"adopted_from" (the source folder, the variant, the overrides dropped). Nothing is moved.
"""
import argparse
import json
import shlex
import shutil
from pathlib import Path

from udproj import CONFIGS, LAST_SCORES, PEER_SYSTEMS, run_dir

IGNORED = ("paths",)                       # per-run file paths, not settings


def command_overrides(command: str) -> tuple:
    """run.json's `spacy train CONFIG --output DIR --a.b VALUE ...` -> (config name, {a.b: VALUE})."""
    from spacy.cli._util import parse_config_overrides

    args = shlex.split(command)
    at = next(i for i, a in enumerate(args) if a.endswith(".cfg"))
    config, rest = Path(args[at]).name, args[at + 1:]
    if "--output" in rest:
        i = rest.index("--output")
        del rest[i:i + 2]
    return config, parse_config_overrides(rest)


def filled(config) -> dict:
    """The config as spaCy fills it for training, without the sections that name files."""
    from spacy.util import load_model_from_config

    out = load_model_from_config(config, auto_fill=True, validate=True).config
    out = {k: v for k, v in out.items() if k not in IGNORED}
    out["training"] = {k: v for k, v in out["training"].items() if k != "logger"}
    return out


def config_difference(folder: Path, info: dict) -> list:
    """The keys where the run's saved config differs from the current configs' for the same
    command without its --set overrides (empty = the same run)."""
    from spacy.util import load_config

    name, overrides = command_overrides(info["command"])
    for key in info.get("settings", {}).get("settings", {}):
        overrides.pop(key, None)
    now = filled(load_config(CONFIGS / name, overrides=overrides, interpolate=False))
    then = filled(load_config(folder / "model-best" / "config.cfg", interpolate=False))
    return sorted(flat_diff(then, now))


def flat_diff(a, b, prefix=""):
    if isinstance(a, dict) and isinstance(b, dict):
        for key in a.keys() | b.keys():
            yield from flat_diff(a.get(key), b.get(key), f"{prefix}.{key}" if prefix else key)
    elif a != b:
        yield f"{prefix}: {a!r} -> {b!r}"


def adopt(folder: Path, info: dict, output: Path, run_id: str, dropped: dict, dry_run: bool):
    dest = run_dir(output, info["treebank"], info["pipeline"], run_id, info["seed"])
    if (dest / "run.json").exists():
        print(f"exists: {dest}")
        return
    print(f"adopt: {folder} -> {dest}")
    if dry_run:
        return
    shutil.copytree(folder, dest, symlinks=True)
    info = {**info, "run": run_id,
            "adopted_from": {"folder": str(folder.resolve()), "overrides": dropped}}
    (dest / "run.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", type=Path, required=True)
    ap.add_argument("--output", type=Path, required=True)
    ap.add_argument("--variant", required=True, help="the --variant NAME whose settings the configs adopted")
    ap.add_argument("--peers", action="store_true", help="also copy the UDPipe 1 and biaffine runs")
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args(argv)
    suffix = f"+{args.variant}"
    left = 0
    for path in sorted(args.source.glob("*/*/*/run.json")):
        folder, info = path.parent, json.loads(path.read_text(encoding="utf-8"))
        if info["system"] in PEER_SYSTEMS:
            if args.peers:
                adopt(folder, info, args.output, info["run"], {}, args.dry_run)
            continue
        if not info["run"].endswith(suffix):
            continue
        if not (folder / LAST_SCORES).exists():
            print(f"unfinished (no {LAST_SCORES} yet): {folder}")
            continue
        difference = config_difference(folder, info)
        if difference:
            left += 1
            print(f"left: {folder}: its config differs from the current configs':\n  "
                  + "\n  ".join(difference))
            continue
        adopt(folder, info, args.output, info["run"][:-len(suffix)],
              info["settings"]["settings"], args.dry_run)
    if left:
        raise SystemExit(f"{left} run(s) left: their configs differ from the current ones")


if __name__ == "__main__":
    main()
