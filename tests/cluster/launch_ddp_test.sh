#!/usr/bin/env bash
# launch_ddp_test.sh — `muster launch` runs a real DistributedDataParallel job (torch, gloo, CPU) on 4 nodes:
#   1. 4 nodes x 2 workers of examples/ddp_train.py: exit 0; every rank-N.log holds exactly one checksum line
#      for rank N, printed on the node the plan puts it on (ranks 0,1 on node1, 2,3 on node2, ...); ranks 0-7
#      each exactly once; all 8 checksums identical (DDP kept the replicas in sync, so the ranks really
#      talked to each other); the terminal shows each checksum line once, prefixed [nodeK:R].
#   2. --per-node with torchrun (torch.distributed.run) on the same 4 nodes, 2 processes each, MASTER_ADDR /
#      MASTER_PORT / node rank substituted by muster: exit 0 and the same 8 identical checksums.
# Exit 0 pass, 1 fail, 77 skip (no root / namespaces / torch).
# lib.sh before `set -e`: with MUSTER_TESTBED_SSH_INCLUDE=0 it runs `testbed ssh-config`, which fails (but
# still prints the path) while the testbed is down.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=4 PER_NODE=2 WORLD=8
CHECKSUM_RE='rank ([0-9]+)/([0-9]+) on ([^:]+): checksum ([0-9a-f]{16})'

# check_checksum_lines WHAT LINE...: ranks 0..WORLD-1 exactly once each, on the planned node, world size WORLD,
# one checksum for all.
check_checksum_lines() {
  local what=$1 line rank first="" seen=()
  shift
  (($# == WORLD)) || fail "$what: expected $WORLD checksum lines, got $#:"$'\n'"$(printf '  %s\n' "$@")"
  for line in "$@"; do
    [[ $line =~ $CHECKSUM_RE ]] || fail "$what: not a checksum line: $line"
    rank=${BASH_REMATCH[1]}
    assert_eq "$WORLD" "${BASH_REMATCH[2]}" "$what: world size in '$line'"
    ((rank < WORLD)) || fail "$what: rank $rank out of range: $line"
    [[ -z ${seen[rank]:-} ]] || fail "$what: rank $rank printed twice"
    seen[rank]=1
    assert_eq "node$((rank / PER_NODE + 1))" "${BASH_REMATCH[3]}" "$what: host of rank $rank"
    first=${first:-${BASH_REMATCH[4]}}
    assert_eq "$first" "${BASH_REMATCH[4]}" "$what: checksum of rank $rank (rank checksums must all agree)"
  done
  step "$what: ranks 0-$((WORLD - 1)) once each on their planned nodes, checksum $first on all"
}

ddp_per_rank() {
  local run=$SCRATCH/ddp out=$SCRATCH/ddp.out r lines=() found line n
  step "4 nodes x 2 workers: examples/ddp_train.py --steps 10"
  start_muster "$out" --run-dir "$run" -w "node[1-$NODES]" --nproc-per-node "$PER_NODE" \
    -- /usr/bin/python3 examples/ddp_train.py --steps 10
  wait_exit "$MUSTER_PID" 50
  step "muster exited $EXIT_RC after $(fmt_ms "$(ms_between "$MUSTER_START_US" "$EXIT_US")") s"
  ((EXIT_RC == 0)) || fail "DDP job: exit $EXIT_RC, expected 0; output:"$'\n'"$(cat "$out")"
  [[ ! -e $run/rank-$WORLD.log ]] || fail "a rank-$WORLD.log exists in a world of $WORLD"
  for ((r = 0; r < WORLD; r++)); do
    [[ -f $run/rank-$r.log ]] || fail "no $run/rank-$r.log"
    mapfile -t found < <(grep -E "$CHECKSUM_RE" "$run/rank-$r.log" || true)
    ((${#found[@]} == 1)) || fail "rank-$r.log: expected 1 checksum line, got ${#found[@]}: $(cat "$run/rank-$r.log")"
    [[ ${found[0]} =~ $CHECKSUM_RE ]]
    assert_eq "$r" "${BASH_REMATCH[1]}" "rank printed in rank-$r.log"
    lines+=("${found[0]}")
  done
  check_checksum_lines "rank logs" "${lines[@]}"
  # The terminal: each rank's line once, with the default [node:rank] prefix.
  for ((r = 0; r < WORLD; r++)); do
    line=$(grep -F "${lines[r]}" "$out" || true)
    n=$(grep -cF "${lines[r]}" "$out" || true)
    assert_eq 1 "$n" "times rank $r's checksum line is on the terminal"
    assert_eq "[node$((r / PER_NODE + 1)):$r] ${lines[r]}" "$line" "terminal line of rank $r"
  done
}

ddp_per_node_torchrun() {
  local run=$SCRATCH/torchrun out=$SCRATCH/torchrun.out lines k
  step "--per-node: torchrun --nproc_per_node 2 on 4 nodes"
  # Debian's torch 1.13: underscore flag names only (--node_rank, ...), and --redirects/--tee or it crashes
  # at start (pytorch#92319).
  start_muster "$out" --run-dir "$run" -w "node[1-$NODES]" --per-node \
    -- /usr/bin/python3 -m torch.distributed.run --nnodes '{nnodes}' --node_rank '{node_rank}' \
    --nproc_per_node "$PER_NODE" --master_addr '{master_addr}' --master_port '{master_port}' \
    --redirects 1 --tee 1 examples/ddp_train.py --steps 10
  wait_exit "$MUSTER_PID" 50
  step "muster exited $EXIT_RC after $(fmt_ms "$(ms_between "$MUSTER_START_US" "$EXIT_US")") s"
  ((EXIT_RC == 0)) || fail "torchrun job: exit $EXIT_RC, expected 0; output:"$'\n'"$(cat "$out")"
  for ((k = 0; k < NODES; k++)); do [[ -f $run/rank-$k.log ]] || fail "no $run/rank-$k.log (node $k)"; done
  [[ ! -e $run/rank-$NODES.log ]] || fail "--per-node on $NODES nodes wrote rank-$NODES.log"
  mapfile -t lines < <(grep -ohE "$CHECKSUM_RE" "$run"/rank-*.log || true)
  check_checksum_lines "torchrun node logs" "${lines[@]}"
  mapfile -t lines < <(grep -ohE "$CHECKSUM_RE" "$out" || true)
  check_checksum_lines "torchrun terminal output" "${lines[@]}"
}

main() {
  require_torch
  launch_setup "$NODES"
  ddp_per_rank
  ddp_per_node_torchrun
  step "PASS"
}

main
