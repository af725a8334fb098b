#!/usr/bin/env bash
# slurm_launch_test.sh — `muster launch` inside a real Slurm allocation on 3 nodes whose sshds are all stopped:
#   1. `salloc -N 3 --ntasks-per-node=2 muster launch -- worker` (no hosts given): the slurm transport, picked
#      automatically, starts 6 ranks, 2 per node in node order; each sees RANK/WORLD_SIZE, MASTER_ADDR=node1, the
#      job's SLURM_JOB_ID and none of the agent's own step variables (SLURM_PROCID, SLURM_NTASKS); arguments with
#      shell metacharacters arrive unchanged; the agent binary was uploaded to every node through srun (their
#      ~/.cache is private and empty before); manifest.json says transport slurm; exit 0.
#   2. the same with rank 4 exiting 3: salloc (whose command is the head) exits 3, naming rank 4 on node3 as
#      the root cause, and no process of the job is left on any node.
#   3. `--transport slurm` outside an allocation: usage error (exit 2) that names SLURM_JOB_ID.
#   4. spares are the allocation's extra nodes: `salloc -N 3 muster launch --nnodes 2 --max-restarts 1`; in the first
#      attempt node2's agent is killed (its rank kills its parent): node2 is excluded, node3 joins from the spares,
#      the second attempt runs on node1 and node3 and salloc exits 0; nothing left on any node.
# Exit 0 pass, 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # before `set -e`: see launch_ddp_test.sh
set -euo pipefail
require_root_and_namespaces
# shellcheck source=slurm_lib.sh
source "$(dirname "$0")/slurm_lib.sh"

readonly NODES=3 PER_NODE=2 WORLD=6
# shellcheck disable=SC2016  # a literal $HOME, which must reach the worker unexpanded
readonly ARGS=('a b' '$HOME' ';|&' '"q"' "it's")
# shellcheck disable=SC2016  # expanded by the worker's sh
readonly WORKER=(sh -c 'printf "%s|" "$RANK/$WORLD_SIZE" "$(hostname)" "$MASTER_ADDR" "${SLURM_PROCID-unset}" \
  "${SLURM_NTASKS-unset}" "${SLURM_JOB_ID-unset}" "$@"; echo; [ "$RANK" != "${FAIL_RANK:-}" ] || exit 3' worker)

# salloc_launch OUT ARGS...: `muster launch ARGS` as salloc's command on node1; sets RC, SLURM_JOB.
salloc_launch() {
  local out=$1 t0
  shift
  t0=$(now_us)
  RC=0
  on_node1 timeout 60 salloc -N "$NODES" --ntasks-per-node="$PER_NODE" "$MUSTER" launch "$@" >"$out" 2>&1 || RC=$?
  ELAPSED_MS=$(ms_between "$t0" "$(now_us)")
  SLURM_JOB=$(sed -n 's/^salloc: Granted job allocation \([0-9]*\)$/\1/p' "$out")
  [[ -n $SLURM_JOB ]] || fail "no 'Granted job allocation' from salloc: $(cat "$out")"
}

no_cached_agents() {
  local k
  for ((k = 1; k <= NODES; k++)); do
    [[ -z $("$TESTBED" exec "node$k" sh -c 'ls /root/.cache/muster/*/muster 2>/dev/null' || true) ]] ||
      fail "node$k already has a cached muster before the test"
  done
}

launch_in_allocation() {
  local run=$SHARED/run1 out=$SHARED/run1.out r k want line
  step "1. salloc -N $NODES --ntasks-per-node=$PER_NODE muster launch (no hosts), sshd stopped everywhere"
  no_cached_agents
  salloc_launch "$out" --run-dir "$run" -- "${WORKER[@]}" "${ARGS[@]}"
  ((RC == 0)) || fail "1. salloc + muster launch exited $RC: $(cat "$out")"
  step "1. exit 0 after $(fmt_ms "$ELAPSED_MS") s (salloc, 3 srun agents with upload, 6 ranks)"
  for ((r = 0; r < WORLD; r++)); do
    want="$r/$WORLD|node$((r / PER_NODE + 1))|node1|unset|unset|$SLURM_JOB|$(printf '%s|' "${ARGS[@]}")"
    line=$(cat "$run/rank-$r.log" 2>/dev/null || true)
    assert_eq "$want" "$line" "rank-$r.log"
  done
  grep -qE '"transport": *"slurm"' "$run/manifest.json" || fail "1. manifest.json does not say transport slurm"
  for ((k = 1; k <= NODES; k++)); do
    [[ -n $("$TESTBED" exec "node$k" sh -c 'ls /root/.cache/muster/*/muster 2>/dev/null' || true) ]] ||
      fail "1. node$k has no uploaded muster in ~/.cache/muster"
  done
  step "1. ranks 0-$((WORLD - 1)) on their nodes, args unchanged, no step variables, agents uploaded via srun"
}

failing_rank() {
  local run=$SHARED/run2 out=$SHARED/run2.out
  step "2. rank 4 exits 3"
  FAIL_RANK=4 salloc_launch "$out" --job-id "slurm-fail-$$" --run-dir "$run" -- "${WORKER[@]}"
  assert_eq 3 "$RC" "salloc exit status with rank 4 failing (output: $(tail -n 15 "$out"))"
  grep -E '<- root cause' "$out" | grep -q 'node3' || fail "2. no root cause row naming node3: $(cat "$out")"
  assert_no_job_processes "slurm-fail-$$" 2
  step "2. salloc exited 3 after $(fmt_ms "$ELAPSED_MS") s, root cause rank 4 on node3, nothing left"
}

outside_allocation() {
  step "3. --transport slurm outside an allocation"
  local err rc=0
  err=$(env -u SLURM_JOB_ID "$MUSTER" launch --transport slurm -w node1 -- true 2>&1) || rc=$?
  assert_eq 2 "$rc" "exit status of --transport slurm without an allocation"
  assert_contains "$err" "SLURM_JOB_ID" "error of --transport slurm without an allocation"
}

spare_in_allocation() {
  local run=$SHARED/run4 out=$SHARED/run4.out
  step "4. salloc -N $NODES muster launch --nnodes 2 --max-restarts 1: node2's agent killed in attempt 1"
  # shellcheck disable=SC2016  # expanded by the rank's sh
  salloc_launch "$out" --job-id "slurm-spare-$$" --run-dir "$run" --nnodes 2 --max-restarts 1 --grace 1 -- sh -c \
    'if [ "$MUSTER_ATTEMPT" = 1 ]; then echo "attempt 1 rank $RANK on $(hostname)"; exit 0; fi
     if [ "$(hostname)" = node2 ] && [ "$LOCAL_RANK" = 0 ]; then sleep 1; kill -KILL "$PPID"; fi; exec sleep 60'
  assert_eq 0 "$RC" "salloc exit status with a spare taking node2's place (output: $(tail -n 15 "$out"))"
  assert_contains "$(cat "$out")" "node2 lost (" "4. the decision line"
  assert_contains "$(cat "$out")" "excluded; attempt 2 of 2 on node[1,3] (node3 from the spares)" "4. the decision line"
  assert_contains "$(cat "$run/rank-$((PER_NODE))".log)" "attempt 1 rank $PER_NODE on node3" "4. node 1's first rank in attempt 2"
  assert_no_job_processes "slurm-spare-$$" 2
  step "4. salloc exited 0 after $(fmt_ms "$ELAPSED_MS") s: node2 excluded, node3 joined from the allocation"
}

main() {
  require_slurm
  slurm_setup "$NODES"
  stop_sshds
  launch_in_allocation
  failing_rank
  outside_allocation
  spare_in_allocation
  assert_no_agents 2
  step "PASS"
}

main
