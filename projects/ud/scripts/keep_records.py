"""Keep the record of every finished run in the repository, without its models.

Run folders (training/<protocol>/...) are gitignored: they hold the models, hundreds of MB.
The numbers behind a results file must outlive the machine that trained them (a reset lost
every converged run of 2026-11-27, and with them the per-seed scores those tables were made
of), so this copies what scripts/report.py, ablation.py and the notes read from each
finished run into records/<protocol>/, which is committed:

    run.json, eval_*.json, train_log.jsonl and model-best's config.cfg (about 20 KB a run)

The layout is the run folders' (<treebank>/<pipeline>/<run>-s<seed>/), so every reader of
run folders reads records too: `python scripts/report.py --output records/converged_affix`.

    python scripts/keep_records.py --source training/converged_affix --dest records/converged_affix

A spaCy run counts as finished once run_matrix.py has scored its model-last (the last file it
writes); a peer's run (UDPipe 1, the biaffine parser) once it has its eval_test.json. A record
is rewritten when its run's files changed (a re-evaluation); a run still training is skipped
and named. Nothing is deleted.
"""
import argparse
import filecmp
import json
import shutil
from pathlib import Path

from udproj import LAST_SCORES, PEER_SYSTEMS

FILES = ("run.json", "train_log.jsonl")
MODEL_FILES = ("config.cfg",)     # model-best/config.cfg: the settings of the model that is scored


def finished(folder: Path, info: dict) -> bool:
    if info.get("system") in PEER_SYSTEMS:
        return (folder / "eval_test.json").exists()
    return (folder / LAST_SCORES).exists()


def record_files(folder: Path):
    """(source, name in the record) of every file a run's record keeps."""
    for name in FILES:
        if (folder / name).exists():
            yield folder / name, name
    for path in sorted(folder.glob("eval_*.json")):
        yield path, path.name
    for name in MODEL_FILES:
        if (folder / "model-best" / name).exists():
            yield folder / "model-best" / name, f"model-best.{name}"


def keep(source: Path, dest: Path, dry_run: bool = False) -> dict:
    """Copy the records of the finished runs under source into dest; counts by outcome."""
    counts = {"new": 0, "updated": 0, "same": 0, "unfinished": 0}
    for info_path in sorted(source.glob("*/*/*/run.json")):
        folder = info_path.parent
        info = json.loads(info_path.read_text(encoding="utf-8"))
        if not finished(folder, info):
            counts["unfinished"] += 1
            print(f"unfinished, skipped: {folder}")
            continue
        target = dest / folder.relative_to(source)
        files = list(record_files(folder))
        changed = [name for path, name in files
                   if not (target / name).exists() or not filecmp.cmp(path, target / name, shallow=False)]
        outcome = "same" if not changed else ("updated" if target.exists() else "new")
        counts[outcome] += 1
        if outcome == "same":
            continue
        print(f"{outcome}: {target} ({', '.join(changed)})")
        if dry_run:
            continue
        target.mkdir(parents=True, exist_ok=True)
        for path, name in files:
            shutil.copyfile(path, target / name)
    return counts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", type=Path, required=True, help="a protocol's run folders, e.g. training/converged_affix")
    ap.add_argument("--dest", type=Path, required=True, help="its records, e.g. records/converged_affix")
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args(argv)
    if not args.source.is_dir():
        raise SystemExit(f"--source {args.source}: no such folder")
    counts = keep(args.source, args.dest, args.dry_run)
    print(", ".join(f"{n} {k}" for k, n in counts.items()))


if __name__ == "__main__":
    main()
