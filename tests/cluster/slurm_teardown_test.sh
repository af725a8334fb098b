#!/usr/bin/env bash
# slurm_teardown_test.sh — gang teardown of `muster launch` inside an sbatch job (3 nodes x 2 workers, the
# slurm transport, sshd stopped): local rank 0 is `sh -c 'sleep 60 & sleep 60 & wait'`, local rank 1 a python
# worker with a multiprocessing child, so every node runs 5 processes of the job.
#   1. kill -9 of rank 3's worker on node2: the Slurm job ends (FAILED) within 5 s of the kill, its exit code is
#      137:0 (128+SIGKILL of the root cause), its output names rank 3 on node2 as the root cause, and 2 s later
#      no process of the job (nor any muster agent) is left on any node.
#   2. `scancel` of a running job: it ends (CANCELLED) within KillWait (5 s) + 3 s, and 2 s later no process of
#      the job (nor any muster agent) is left on any node.
# Exit 0 pass, 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # before `set -e`: see launch_ddp_test.sh
set -euo pipefail
require_root_and_namespaces
# shellcheck source=slurm_lib.sh
source "$(dirname "$0")/slurm_lib.sh"

readonly NODES=3 PER_NODE=2 PROCS_PER_NODE=5
readonly KILL_BOUND_MS=5000 SCANCEL_BOUND_MS=8000
readonly PY_WORKER='
import multiprocessing, time
multiprocessing.set_start_method("fork")
multiprocessing.Process(target=time.sleep, args=(60,)).start()
print("python worker up", flush=True)
time.sleep(60)
'
# shellcheck disable=SC2016  # expanded by the worker's sh
readonly WORKER=(sh -c 'if [ "$LOCAL_RANK" = 0 ]; then sleep 60 & sleep 60 & wait; else
  exec /usr/bin/python3 -c "$1"; fi' worker "$PY_WORKER")

# submit_job NAME: an sbatch job whose script is `muster launch`; returns once every worker process runs.
# Sets JOB (muster's job id), SJOB (Slurm's), OUT (the job's output file).
submit_job() {
  JOB=slurm-$1-$$
  OUT=$SHARED/$1.out
  # A bash script (printf %q quotes for bash; sbatch --wrap would run it with /bin/sh).
  printf '#!/bin/bash\nexec %s\n' "$(printf '%q ' "$MUSTER" launch --job-id "$JOB" --run-dir "$SHARED/$1" \
    --grace 1 -- "${WORKER[@]}")" >"$SHARED/$1.sbatch"
  SJOB=$(on_node1 sbatch --parsable -N "$NODES" --ntasks-per-node="$PER_NODE" --output="$OUT" "$SHARED/$1.sbatch") ||
    fail "$1: sbatch failed"
  local want=$((NODES * PROCS_PER_NODE))
  all_started() { (($(count_job_processes "$JOB") == want)); }
  wait_until 20 all_started ||
    fail "$1: expected $want job processes, have:"$'\n'"$(all_job_processes "$JOB")"$'\n'"$(cat "$OUT" 2>/dev/null)"
}

# worker_pid NODE RANK: pid (on NODE) of the worker process of RANK, the child of the muster agent.
worker_pid() {
  # shellcheck disable=SC2016  # expanded by the node's sh
  "$TESTBED" exec "$1" sh -c '
    for f in $(grep -lzxF "MUSTER_JOB_ID=$1" /proc/[0-9]*/environ 2>/dev/null); do
      pid=${f#/proc/}; pid=${pid%/environ}
      tr "\0" "\n" <"$f" | grep -qxF "RANK=$2" || continue
      ppid=$(awk "{print \$4}" "/proc/$pid/stat")
      case $(readlink "/proc/$ppid/exe") in */.cache/muster/*) echo "$pid" ;; esac
    done' worker-pid "$JOB" "$2"
}

kill_worker() {
  step "1. kill -9 of rank 3's worker on node2, inside sbatch job"
  submit_job kill
  local pid t0 ms exit_code
  pid=$(worker_pid node2 3)
  [[ $pid =~ ^[0-9]+$ ]] || fail "1. no single worker process for rank 3 on node2: '$pid'"
  t0=$(now_us)
  "$TESTBED" exec node2 kill -KILL "$pid"
  wait_job_done "$SJOB" 15 || fail "1. Slurm job $SJOB still $JOB_STATE 15 s after the kill"
  ms=$(ms_between "$t0" "$JOB_DONE_US")
  step "1. Slurm job $SJOB $JOB_STATE $(fmt_ms "$ms") s after the kill"
  ((ms <= KILL_BOUND_MS)) || fail "1. job took $ms ms (> $KILL_BOUND_MS) to end after the kill"
  assert_eq FAILED "$JOB_STATE" "1. state of the Slurm job"
  exit_code=$(job_field "$SJOB" ExitCode)
  assert_eq "137:0" "$exit_code" "1. Slurm's exit code of the job (output: $(tail -n 15 "$OUT"))"
  grep -E '<- root cause' "$OUT" | grep -E 'node2' | grep -qE '(^|[^0-9])3([^0-9]|$)' ||
    fail "1. the job's output names no root cause rank 3 on node2: $(cat "$OUT")"
  assert_no_job_processes "$JOB" 2
  assert_no_agents 1
  step "1. exit code $exit_code, root cause rank 3 on node2; nothing left on any node"
}

cancel_job() {
  step "2. scancel of a running job"
  submit_job cancel
  local t0 ms
  t0=$(now_us)
  on_node1 scancel "$SJOB"
  wait_job_done "$SJOB" 20 || fail "2. Slurm job $SJOB still $JOB_STATE 20 s after scancel"
  ms=$(ms_between "$t0" "$JOB_DONE_US")
  assert_eq CANCELLED "$JOB_STATE" "2. state of the Slurm job"
  step "2. Slurm job $SJOB $JOB_STATE $(fmt_ms "$ms") s after scancel"
  ((ms <= SCANCEL_BOUND_MS)) || fail "2. job took $ms ms (> $SCANCEL_BOUND_MS) to end after scancel"
  assert_no_job_processes "$JOB" 2
  assert_no_agents 1
  step "2. no process of the job on any node $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s after scancel"
}

main() {
  require_slurm
  slurm_setup "$NODES"
  stop_sshds
  kill_worker
  cancel_job
  step "PASS"
}

main
