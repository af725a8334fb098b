#!/usr/bin/env bash
# launch_big_test.sh — a big job within Debian's default open-file limits: with `ulimit -Sn 1024 -Hn 4096` on the
# head, 16 nodes x 64 ranks (1024 ranks, more than the soft limit) succeed and every rank-N.log is complete.
# (It failed with "cannot create log file .../rank-1018.log: Too many open files" when the head held one open
# file per rank.) Every rank prints one line naming itself; each log must hold exactly that line.
# Exit 0 pass, 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=16 PER_NODE=64
readonly RANKS=$((NODES * PER_NODE))

launch_setup "$NODES"
step "testbed up: $NODES nodes; launching $NODES x $PER_NODE ranks under ulimit -Sn 1024 -Hn 4096"
start=$(now_us)
rc=0
# shellcheck disable=SC2016  # expanded by each worker's shell
(ulimit -Sn 1024 && ulimit -Hn 4096 &&
  muster_launch --run-dir "$SCRATCH/big" -w "node[1-$NODES]" --nproc-per-node "$PER_NODE" --connect-timeout 30 \
    -- sh -c 'echo "rank $RANK on $(hostname)"') >"$SCRATCH/big.out" 2>&1 || rc=$?
((rc == 0)) || fail "$NODES x $PER_NODE ranks exited $rc: $(tail -n 20 "$SCRATCH/big.out")"
step "$RANKS ranks ran in $(fmt_ms "$(ms_between "$start" "$(now_us)")") s"
bad=()
for ((rank = 0; rank < RANKS; rank++)); do
  expected="rank $rank on node$((rank / PER_NODE + 1))"
  [[ $(cat "$SCRATCH/big/rank-$rank.log" 2>/dev/null) == "$expected" ]] || bad+=("$rank")
done
((${#bad[@]} == 0)) || fail "${#bad[@]} rank logs are not exactly their rank's line, e.g. rank ${bad[0]}:" \
  "$(cat -v "$SCRATCH/big/rank-${bad[0]}.log" 2>&1 | head -n 3)"
step "all $RANKS rank logs complete"
step "PASS"
