#!/usr/bin/env bash
# diagnosis_test.sh — hangs and failures on this machine (local transport):
#   1. stall detection: a job silent past --hang-timeout is stopped (exit 124) with every rank's stack; one that
#      prints nothing but touches $MUSTER_PROGRESS_FILE is not; --on-hang dump takes the stacks and lets it run.
#   2. a non-Python worker (sleep) gets a native stack (eu-stack or gdb; the kernel's view without them).
#   3. workers get torchrun's failure settings: TORCH_NCCL_ASYNC_ERROR_HANDLING=1, NCCL_ASYNC_ERROR_HANDLING=1
#      for torch < 2.2 (Debian's 1.13), TORCHELASTIC_ERROR_FILE in a directory that exists, PYTHONFAULTHANDLER=1;
#      muster's hook runs the sitecustomize it shadows (a user's own here), and a user's value wins.
#   4. a user's failure catalogue (--failures) is matched first; a malformed one stops the launch before anything
#      starts, naming file, line and key; `muster why --rematch` applies a new entry to a finished run.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

stalls() {
  job silent
  local out rc=0
  out=$("$MUSTER" launch --job-id "$JOB-b" --hang-timeout 2 -- sh -c 'sleep 30' 2>&1) || rc=$?
  JOB_IDS+=("$JOB-b")
  assert_eq 124 "$rc" "exit code of a stalled job"
  assert_contains "$out" "no rank has made progress for 2 s (--hang-timeout)" "stall notice"
  assert_contains "$out" "rank 0 on localhost: " "the stack summary"
  [[ -s muster-runs/$JOB-b/stacks-1.txt ]] || fail "no stacks-1.txt in the run directory"
  assert_eq 124 "$(manifest_get "muster-runs/$JOB-b" 'm["exit_code"]')" "manifest exit code"
  assert_eq "True" "$(manifest_get "muster-runs/$JOB-b" 'len(m["hangs"]) == 1')" "manifest hangs"

  # A stalled job whose rank ignores SIGTERM is stopped with SIGKILL after --grace; meanwhile the head waits in
  # its loop (a stall deadline that has passed once wakes nothing: it once spun at 100 % of a core here). Its CPU
  # time over the 10 s grace stays far below what a spinning loop takes, even on a loaded machine.
  job grace
  local cpu
  cpu=$( { TIMEFORMAT='%U %S'; time "$MUSTER" launch -q --job-id "$JOB" --hang-timeout 1 --grace 10 -- \
    sh -c 'trap "" TERM; sleep 60' >/dev/null 2>&1; } 2>&1 ) || true
  cpu=$(awk '{printf "%d", ($1 + $2) * 1000}' <<<"$cpu")
  ((cpu < 1500)) || fail "the head used ${cpu} ms of CPU while a stalled job's rank took its 10 s grace"
  echo "  a stalled rank that ignores SIGTERM: killed after --grace; the head used ${cpu} ms of CPU meanwhile" >&2

  job progress
  out=$("$MUSTER" launch -q --job-id "$JOB" --hang-timeout 2 -- \
    sh -c 'for i in 1 2 3 4 5 6 7 8 9 10 11 12; do touch "$MUSTER_PROGRESS_FILE"; sleep 0.5; done' 2>&1) ||
    fail "a job that touches its progress file was stopped: $out"
  assert_not_contains "$out" "made progress" "progress job output"

  job dump
  out=$("$MUSTER" launch -q --job-id "$JOB" --hang-timeout 2 --on-hang dump -- sh -c 'sleep 5; echo done' 2>&1) ||
    fail "--on-hang dump: the job should go on to exit 0: $out"
  assert_contains "$out" "taking every rank's stack" "--on-hang dump notice"
  assert_contains "$out" "done" "--on-hang dump: the job finished"
  [[ -s muster-runs/$JOB/stacks-1.txt ]] || fail "--on-hang dump: no stacks-1.txt"
}

has_job_processes() { [[ -n $(job_processes "$1") ]]; }

native_stack() {
  job native
  start_bg native.out launch -q --job-id "$JOB" --hang-timeout 0 -- sleep 30
  wait_until 10 has_job_processes "$JOB" || fail "the sleep worker did not start"
  local stacks
  stacks=$("$MUSTER" stack "$JOB" --full 2>&1) || fail "muster stack on a sleep worker: $stacks"
  if command -v eu-stack >/dev/null || command -v gdb >/dev/null; then
    assert_contains "$stacks" "[native]" "a native stack of a non-Python worker"
    assert_contains "$stacks" "nanosleep" "the native frames of sleep"
  else
    assert_contains "$stacks" "[kernel]" "the kernel's view without a debugger"
  fi
  kill -INT "$BG_PID"
  wait_bg "$BG_PID" 15
}

torchrun_settings() {
  job env
  mkdir -p usersite
  echo 'import os; os.environ["USER_SITE_RAN"] = "yes"' >usersite/sitecustomize.py
  local out
  out=$("$MUSTER" launch -q --job-id "$JOB" --env PYTHONPATH="$WORK/usersite" -- /usr/bin/python3 -c '
import os, sys
print("tneh=" + os.environ.get("TORCH_NCCL_ASYNC_ERROR_HANDLING", "-"))
print("neh=" + os.environ.get("NCCL_ASYNC_ERROR_HANDLING", "-"))
print("fault=" + os.environ.get("PYTHONFAULTHANDLER", "-"))
f = os.environ.get("TORCHELASTIC_ERROR_FILE", "")
print("errdir=" + str(bool(f) and os.path.isdir(os.path.dirname(f))))
print("user=" + os.environ.get("USER_SITE_RAN", "no"))
print("module=" + sys.modules["sitecustomize"].__file__)
' 2>&1) || fail "env job failed: $out"
  for want in tneh=1 neh=1 fault=1 errdir=True user=yes "module=$WORK/usersite/sitecustomize.py"; do
    assert_contains "$out" "$want" "worker environment"
  done
  job env2
  out=$(TORCH_NCCL_ASYNC_ERROR_HANDLING=3 "$MUSTER" launch -q --job-id "$JOB" -- /usr/bin/python3 -c '
import os; print("tneh=" + os.environ["TORCH_NCCL_ASYNC_ERROR_HANDLING"])' 2>&1) || fail "env2 job failed: $out"
  assert_contains "$out" "tneh=3" "a user's TORCH_NCCL_ASYNC_ERROR_HANDLING wins"
}

user_catalogue() {
  cat >mine.toml <<'TOML'
[[failure]]
id = "mylib-e42"
title = "MyLib lost its licence server"
match.output = 'MYLIB-E([0-9]+): licence'
explain = "rank {rank} on {node} got MyLib error {1}"
fix = "restart the licence server"
TOML
  job mine
  local out rc=0
  out=$("$MUSTER" launch --job-id "$JOB" --failures mine.toml -- sh -c 'echo "MYLIB-E42: licence expired" >&2; exit 3' 2>&1) || rc=$?
  assert_eq 3 "$rc" "exit code of the failing job"
  assert_contains "$out" "what happened: MyLib lost its licence server — rank 0 on localhost" "user entry"
  assert_contains "$out" "rank 0 on localhost got MyLib error 42" "user entry's groups"
  printf '[[failure]]\nid = "bad"\ntitle = "t"\nexplain = "e"\nfix = "f"\nmatch.output = "("\n' >bad.toml
  job bad
  rc=0
  out=$("$MUSTER" launch --job-id "$JOB" --failures bad.toml -- true 2>&1) || rc=$?
  assert_eq 2 "$rc" "exit code with a malformed catalogue"
  assert_contains "$out" "bad.toml:6: failure entry key 'match.output'" "the malformed file's place"
  [[ ! -d muster-runs/$JOB ]] || fail "a malformed catalogue must stop the launch before anything starts"

  job later
  "$MUSTER" launch -q --job-id "$JOB" -- sh -c 'echo "MYLIB-E7: licence gone" >&2; exit 3' >/dev/null 2>&1 || true
  out=$("$MUSTER" why "muster-runs/$JOB")
  assert_not_contains "$out" "MyLib" "why before the entry exists"
  out=$("$MUSTER" why --rematch --failures mine.toml "muster-runs/$JOB")
  assert_contains "$out" "what happened: MyLib lost its licence server" "why --rematch with the new entry"
  assert_contains "$out" "MyLib error 7" "why --rematch fills the entry's groups"
}

stalls
native_stack
torchrun_settings
user_catalogue
