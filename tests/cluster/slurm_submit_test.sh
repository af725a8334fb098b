#!/usr/bin/env bash
# slurm_submit_test.sh — `muster submit` on a real Slurm cluster of 4 nodes (sshd stopped everywhere), run on
# node1 as a user would on a login node:
#   1. `muster submit --nodes 4 --nproc-per-node 2 --wait -- python3 examples/ddp_train.py`: one Slurm job
#      (the only one slurmctld knows; the agents are its steps) that COMPLETED with 0:0; muster exits 0 after
#      printing "Submitted batch job N" and the job's output live; the script is kept in the run directory and
#      passes `bash -n`; ranks 0-7 each log one checksum line on their planned node (2 per node, in order),
#      all 8 checksums identical.
#   2. a command that exits 7 on every rank: `muster submit --wait` exits 7.
#   3. Ctrl-C (SIGINT) to `muster submit --wait` while the job runs: the job is cancelled (CANCELLED), muster
#      exits 130 within 10 s, and 2 s later no process of the job (nor any muster agent) is left on any node.
# Exit 0 pass, 1 fail, 77 skip (no root / namespaces / Slurm / torch).
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # before `set -e`: see launch_ddp_test.sh
set -euo pipefail
require_root_and_namespaces
# shellcheck source=slurm_lib.sh
source "$(dirname "$0")/slurm_lib.sh"

readonly NODES=4 PER_NODE=2 WORLD=8
readonly CANCEL_BOUND_MS=10000
CHECKSUM_RE='rank ([0-9]+)/([0-9]+) on ([^:]+): checksum ([0-9a-f]{16})'

# submit_wait OUT ARGS...: `muster submit ARGS` on node1 in the foreground; sets RC, SJOB, ELAPSED_MS.
submit_wait() {
  local out=$1 t0
  shift
  t0=$(now_us)
  RC=0
  on_node1 timeout 120 "$MUSTER" submit "$@" >"$out" 2>"$out.err" || RC=$?
  ELAPSED_MS=$(ms_between "$t0" "$(now_us)")
  SJOB=$(sed -n '1s/^Submitted batch job \([0-9]*\)$/\1/p' "$out")
  [[ -n $SJOB ]] || fail "first line of muster submit is not 'Submitted batch job N': $(head -n 3 "$out") $(cat "$out.err")"
}

ddp_job() {
  local run=$SHARED/ddp out=$SHARED/ddp.out r line first="" jobs
  step "1. muster submit --nodes $NODES --nproc-per-node $PER_NODE --wait -- python3 examples/ddp_train.py"
  submit_wait "$out" --nodes "$NODES" --nproc-per-node "$PER_NODE" --job-name ddp --run-dir "$run" --wait \
    -- /usr/bin/python3 examples/ddp_train.py --steps 10
  ((RC == 0)) || fail "1. muster submit --wait exited $RC: $(cat "$out" "$out.err")"
  step "1. job $SJOB: muster submit --wait exited 0 after $(fmt_ms "$ELAPSED_MS") s"
  assert_eq COMPLETED "$(job_field "$SJOB" JobState)" "1. state of job $SJOB"
  assert_eq "0:0" "$(job_field "$SJOB" ExitCode)" "1. exit code of job $SJOB"
  jobs=$(on_node1 squeue -h -t all -o %i | sort -u | tr '\n' ' ')
  assert_eq "$SJOB " "$jobs" "1. the jobs slurmctld knows (one submit = one job)"
  [[ -f $run/ddp.sbatch ]] || fail "1. no script kept in $run"
  bash -n "$run/ddp.sbatch" || fail "1. $run/ddp.sbatch does not pass bash -n"
  grep -qx '#SBATCH --nodes=4' "$run/ddp.sbatch" || fail "1. no '#SBATCH --nodes=4' in $(cat "$run/ddp.sbatch")"
  for ((r = 0; r < WORLD; r++)); do
    line=$(grep -E "$CHECKSUM_RE" "$run/rank-$r.log" 2>/dev/null || true)
    [[ $line =~ $CHECKSUM_RE ]] || fail "1. rank-$r.log has no checksum line: $(cat "$run/rank-$r.log" 2>&1)"
    assert_eq "$r/$WORLD node$((r / PER_NODE + 1))" "${BASH_REMATCH[1]}/${BASH_REMATCH[2]} ${BASH_REMATCH[3]}" \
      "1. rank, world size and node in rank-$r.log"
    first=${first:-${BASH_REMATCH[4]}}
    assert_eq "$first" "${BASH_REMATCH[4]}" "1. checksum of rank $r (all ranks must agree)"
    # --wait showed the job's output as it came: each rank's line, prefixed, once.
    assert_eq 1 "$(grep -cF "[node$((r / PER_NODE + 1)):$r] $line" "$out" || true)" "1. rank $r's line in muster's output"
  done
  step "1. ranks 0-$((WORLD - 1)) on their nodes, checksum $first on all; one Slurm job, COMPLETED 0:0"
}

failing_job() {
  step "2. every rank exits 7"
  submit_wait "$SHARED/fail.out" --nodes 2 --run-dir "$SHARED/fail" --wait -- sh -c 'exit 7'
  assert_eq 7 "$RC" "2. exit status of muster submit --wait (output: $(cat "$SHARED/fail.out" "$SHARED/fail.out.err"))"
  assert_eq "7:0" "$(job_field "$SJOB" ExitCode)" "2. exit code of job $SJOB"
}

ctrl_c() {
  local job=slurm-cancel-$$ out=$SHARED/cancel.out pidfile=$SHARED/cancel.pid pid t0 ms
  step "3. Ctrl-C to muster submit --wait"
  # shellcheck disable=SC2016  # expanded by node1's sh
  on_node1 sh -c 'echo $$ >"$1"; shift; exec "$@"' submit "$pidfile" "$MUSTER" submit --nodes 2 --nproc-per-node 2 \
    --job-id "$job" --run-dir "$SHARED/cancel" --wait -- sleep 300 >"$out" 2>&1 &
  MUSTER_PID=$!
  all_started() { (($(count_job_processes "$job") == 4)); }
  wait_until 20 all_started || fail "3. the job's 4 workers did not start: $(cat "$out")"
  pid=$(cat "$pidfile")
  t0=$(now_us)
  on_node1 kill -INT "$pid"
  wait_exit "$MUSTER_PID" 20
  ms=$(ms_between "$t0" "$EXIT_US")
  assert_eq 130 "$EXIT_RC" "3. exit status of muster submit --wait after Ctrl-C (output: $(cat "$out"))"
  ((ms <= CANCEL_BOUND_MS)) || fail "3. muster submit took $ms ms (> $CANCEL_BOUND_MS) to exit after Ctrl-C"
  SJOB=$(sed -n 's/^Submitted batch job \([0-9]*\)$/\1/p' "$out")
  assert_eq CANCELLED "$(job_field "$SJOB" JobState)" "3. state of job $SJOB after Ctrl-C"
  assert_no_job_processes "$job" 2
  assert_no_agents 1
  step "3. job $SJOB cancelled, muster exited 130 $(fmt_ms "$ms") s after Ctrl-C; nothing left on any node"
}

main() {
  require_slurm
  require_torch
  slurm_setup "$NODES"
  stop_sshds
  ddp_job
  failing_job
  ctrl_c
  step "PASS"
}

main
