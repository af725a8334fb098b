#!/usr/bin/env bash
# A terminal that stops reading must not stall the workers, and must not cost a byte of the rank logs:
# muster's stdout goes into a pipe nobody reads for a while; two workers each write 20 MB of lines.
# The workers must finish while the reader still sleeps (manifest ended_ms), the logs must be complete,
# and muster must say how many lines it did not show.
set -euo pipefail
muster=$(readlink -f "${MUSTER_BIN:?}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: slow_terminal: $*" >&2; exit 1; }

lines=200000  # 2 x 200,000 lines of 100 bytes = 40 MB, far beyond the pipe and muster's 1 MiB screen queue
stall_s=6
start=$EPOCHREALTIME
"$muster" launch --nproc-per-node 2 --run-dir run --job-id slowterm -- \
  python3 -c "import sys; line = ('x' * 99 + '\n'); sys.stdout.write(line * $lines)" \
  | { sleep "$stall_s"; cat >screen.txt; }
elapsed=$(python3 -c "print($EPOCHREALTIME - $start)")

for rank in 0 1; do
  size=$(stat -c %s "run/rank-$rank.log")
  [[ $size == $((lines * 100)) ]] || fail "rank-$rank.log has $size bytes, expected $((lines * 100))"
done
ended_ms=$(python3 -c "import json; m = json.load(open('run/manifest.json')); \
print(max(r['ended_ms'] for r in m['attempts'][0]['ranks'].values()))")
((ended_ms < (stall_s - 2) * 1000)) || fail "workers ended at ${ended_ms} ms: they waited for the stalled terminal"
grep -q "lines not shown" screen.txt || fail "no 'lines not shown' notice on the screen"
shown=$(grep -c '^\[localhost:[01]\] x' screen.txt || true)
((shown < 2 * lines)) || fail "every line was shown although the terminal stalled"
echo "ok: workers done at ${ended_ms} ms while the terminal stalled ${stall_s} s; logs complete;" \
  "$shown of $((2 * lines)) lines shown; total ${elapsed} s"
