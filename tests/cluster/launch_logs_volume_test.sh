#!/usr/bin/env bash
# launch_logs_volume_test.sh — rank logs stay byte-exact at full speed. 3 nodes x 2 ranks each write 24 MB as fast
# as they can (numbered lines, long lines, bytes that are not text, lines without an end split over writes) through
# the agent's in-place reads, grown pipes and the head's line path: every rank-N.log must be identical (cmp) to
# what the same generator writes on the head, and the terminal (a file here) must carry every line of every rank
# exactly once, prefixed, in the order the rank wrote them. The same on stderr. Also on master sessions (the
# second and third runs reuse the first's ssh masters).
# Exit 0 pass, 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # before `set -e`: see launch_ddp_test.sh
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=3 PER_NODE=2 WORLD=6 LINES=200000
# Rank $RANK's bytes on stream $1: LINES numbered lines (a few 70 KB long, some with bytes that are not UTF-8 or
# with \r inside), written in pieces of varying size so lines are split across writes and pipe reads.
# shellcheck disable=SC2016
readonly GEN='
import os, sys
rank, stream, lines = int(os.environ["RANK"]), int(sys.argv[1]), int(sys.argv[2])
out = os.fdopen(stream, "wb", buffering=0)
pieces, size, sizes = [], 0, [1, 7, 4096, 65536, 65537, 300000, 1 << 20]
for i in range(lines):
    if i % 50000 == 49999:
        line = b"long " + (b"%d-" % rank) * 20000
    elif i % 1000 == 999:
        line = b"bytes \xff\xfe\x00\x1b[31m \xc3 caf\xe9 \r mid-line cr"
    else:
        line = b"rank %d stream %d line %09d " % (rank, stream, i) + b"x" * 60
    pieces.append(line + b"\n")
    size += len(line) + 1
    if size >= sizes[i % len(sizes)]:
        out.write(b"".join(pieces)); pieces, size = [], 0
out.write(b"".join(pieces) + b"no newline at the end")
'
launch_setup "$NODES"

run() {
  local name=$1 stream=$2 run=$SCRATCH/$1 out=$SCRATCH/$1.out r k node lines t0
  t0=$(now_us)
  muster_launch -q --chdir / --run-dir "$run" -w "node[1-$NODES]" --nproc-per-node "$PER_NODE" \
    -- /usr/bin/python3 -c "$GEN" "$stream" "$LINES" >"$out" 2>"$SCRATCH/$name.err" ||
    fail "$name: the job failed: $(tail -n 5 "$SCRATCH/$name.err")"
  step "$name: $WORLD ranks x $(stat -c %s "$run/rank-0.log") bytes in $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s"
  for ((r = 0; r < WORLD; r++)); do
    if ((stream == 1)); then RANK=$r /usr/bin/python3 -c "$GEN" 1 "$LINES" >"$SCRATCH/expected"
    else RANK=$r /usr/bin/python3 -c "$GEN" 2 "$LINES" 2>"$SCRATCH/expected" >/dev/null; fi
    cmp "$SCRATCH/expected" "$run/rank-$r.log" || fail "$name: rank-$r.log differs from what rank $r wrote"
    k=$((r / PER_NODE + 1))
    node=node$k
    # The terminal: this rank's lines, without their prefix, are the rank's lines (the long ones are shown cut
    # into 64 KiB pieces, and the \r inside a line shows only what follows it, as a terminal would).
    lines=$(grep -a -c "^\[$node:$r\] rank $r stream $stream line " "$out" || true)
    assert_eq $((LINES - LINES / 1000)) "$lines" "$name: numbered lines of rank $r on the terminal"
    grep -a "^\[$node:$r\] rank $r stream $stream line " "$out" | cut -d' ' -f7 >"$SCRATCH/order"
    sort -c -u "$SCRATCH/order" || fail "$name: rank $r's lines are out of order on the terminal"
  done
  step "$name: every rank log byte-exact, every line on the terminal once and in order"
}

run stdout-cold 1
run stdout-master 1
run stderr-master 2
step "pass"
