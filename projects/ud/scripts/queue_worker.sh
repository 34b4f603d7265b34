#!/usr/bin/env bash
# A training worker for the converged protocol: takes the first line of a queue file until the
# queue is empty, so two workers (one per core) share one queue and the queue can be edited
# while they run (lines are taken under flock). Start one per core:
#
#   nohup setsid bash scripts/queue_worker.sh QUEUE_FILE 1 & nohup setsid bash scripts/queue_worker.sh QUEUE_FILE 2 &
#
# A line is what run_matrix.py takes after the protocol's settings, e.g.
#   --treebanks UD_Hungarian-Szeged --run attardi:dynamic --seeds 1
#   @/path/to/worktree --treebanks ...   the same, from another checkout of the repo (its
#                                        projects/ud, its package on PYTHONPATH), so that
#                                        editing this checkout does not change queued runs
#   !python3 scripts/udpipe_peer.py ...  a literal command, run in that checkout's projects/ud
# Later arguments win, so a line may override a setting (--patience 1600 --output ...).
# Each line's start and end (with its exit code) go to QUEUE_FILE.worker<N>.log, its output to
# QUEUE_FILE.worker<N>.out.
set -u
queue=$(realpath "$1")
id=${2:-1}
here=$(cd "$(dirname "$0")/../../.." && pwd)
UD_ROOT=${UD_ROOT:-$(cd "$here/.." && pwd)/shared/ud}
OUTPUT=${OUTPUT:-$here/projects/ud/training/converged_affix}
PROTOCOL=(--pipelines tagger --epochs 150 --patience 600 --eval-frequency 100)   # project.yml converged_*
log=$queue.worker$id.log
while true; do
    line=$(flock "$queue.lock" bash -c 'head -n 1 "$0"; sed -i 1d "$0"' "$queue")
    [ -z "$line" ] && break
    checkout=$here
    if [[ $line == @* ]]; then checkout=${line%% *}; checkout=${checkout#@}; line=${line#* }; fi
    echo "$(date -u +%FT%T) start [$checkout] $line" >> "$log"
    if ! cd "$checkout/projects/ud"; then echo "$(date -u +%FT%T) no projects/ud in $checkout" >> "$log"; continue; fi
    if [[ $line == !* ]]; then
        PYTHONPATH=$checkout bash -c "${line#!}" >> "$queue.worker$id.out" 2>&1
    else
        # shellcheck disable=SC2086  # the line is a list of arguments
        PYTHONPATH=$checkout python3 scripts/run_matrix.py "${PROTOCOL[@]}" --ud-root "$UD_ROOT" \
            --output "$OUTPUT" $line >> "$queue.worker$id.out" 2>&1
    fi
    rc=$?   # before the echo: its $(date) would reset $? to 0, logging every run as a success
    echo "$(date -u +%FT%T) end rc=$rc $line" >> "$log"
done
echo "$(date -u +%FT%T) queue empty" >> "$log"
