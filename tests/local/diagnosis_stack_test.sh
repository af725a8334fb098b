#!/usr/bin/env bash
# diagnosis_stack_test.sh — `muster stack` on running jobs, and what the stack hook leaves to programs a worker runs
# (local transport):
#   1. `muster stack RUN-DIR` (a run directory, not a job id) of a worker with a second Python thread: every
#      thread's stack is shown, the hook's own thread is not, and the stacks are saved in the run directory.
#   2. a Python worker holding the GIL in C (ctypes.PyDLL keeps it through libc's sleep) cannot run its hook: the
#      agent falls back to a native stack (eu-stack or gdb; the kernel's view without them).
#   3. the hook blocks its signal in the worker, but not in programs the worker runs: subprocess, os.posix_spawn,
#      fork + exec, os.system and os.popen children start with the signal unblocked (SigBlk in /proc/self/status).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
export XDG_STATE_HOME=$WORK/state  # the job registry: this test's jobs only

# started JOB: the job's rank 0 printed "ready" (its hook is installed and it is where the test wants it).
started() { grep -q ready "muster-runs/$1/rank-0.log" 2>/dev/null; }

two_threads() {
  job threads
  start_bg threads.out launch -q --job-id "$JOB" --hang-timeout 0 -- /usr/bin/python3 -c '
import threading, time
def side_thread_loop():
    while True:
        time.sleep(0.1)
def main_thread_wait():
    print("ready", flush=True)
    time.sleep(60)
threading.Thread(target=side_thread_loop, daemon=True).start()
main_thread_wait()'
  wait_until 15 started "$JOB" || fail "the two-thread worker did not start: $(cat threads.out)"
  local out
  out=$("$MUSTER" stack "muster-runs/$JOB" --full 2>&1) || fail "muster stack RUN-DIR: $out"
  assert_contains "$out" "stacks of job $JOB" "muster stack RUN-DIR names the job"
  assert_contains "$out" "main_thread_wait" "the main thread's stack"
  assert_contains "$out" "side_thread_loop" "the second thread's stack"
  assert_not_contains "$out" "muster_stack_dump_thread" "the hook's own thread"
  [[ $(grep -c "^Thread 0x\|^Current thread 0x" <<<"$out") -ge 2 ]] || fail "fewer than two threads shown: $out"
  grep -q side_thread_loop "muster-runs/$JOB/stacks-1.txt" || fail "the run directory's stacks-1.txt lacks a thread"
  kill -INT "$BG_PID"
  wait_bg "$BG_PID" 15
}

gil_held_in_c() {
  job gil
  start_bg gil.out launch -q --job-id "$JOB" --hang-timeout 0 -- /usr/bin/python3 -c '
import ctypes
print("ready", flush=True)
ctypes.PyDLL(None).sleep(60)  # PyDLL: the GIL stays held for the whole call'
  wait_until 15 started "$JOB" || fail "the GIL worker did not start: $(cat gil.out)"
  sleep 0.2  # from print() into the C call
  local out
  out=$("$MUSTER" stack "$JOB" --full 2>&1) || fail "muster stack of a worker holding the GIL: $out"
  assert_not_contains "$out" "<module>" "a Python stack from a process whose hook cannot run"
  if command -v eu-stack >/dev/null || command -v gdb >/dev/null; then
    assert_contains "$out" "[native]" "the native fallback"
    assert_contains "$out" "nanosleep" "libc's sleep in the native frames"
  else
    assert_contains "$out" "[kernel]" "the kernel's view without a debugger"
  fi
  kill -INT "$BG_PID"
  wait_bg "$BG_PID" 15
}

programs_get_a_clean_mask() {
  job mask
  local out
  out=$("$MUSTER" launch -q --job-id "$JOB" -- /usr/bin/python3 -c '
import os, subprocess
bit = 1 << (int(os.environ["MUSTER_STACKS_SIGNAL"]) - 1)
def blocked(status):
    return "blocked" if int(status.split("SigBlk:")[1].split()[0], 16) & bit else "clear"
def pipe_of(spawn):
    r, w = os.pipe()
    pid = spawn(w)
    os.close(w)
    text = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        text += chunk
    os.close(r)
    os.waitpid(pid, 0)
    return text.decode()
def fork_exec(w):
    pid = os.fork()
    if pid == 0:
        os.dup2(w, 1)
        os.execvp("cat", ["cat", "/proc/self/status"])
    return pid
cat = ["cat", "/proc/self/status"]
print("worker=" + blocked(open("/proc/self/status").read()))
print("subprocess=" + blocked(subprocess.run(cat, capture_output=True, text=True).stdout))
print("preexec=" + blocked(subprocess.run(cat, capture_output=True, text=True, preexec_fn=lambda: None).stdout))
print("posix_spawn=" + blocked(pipe_of(lambda w: os.posix_spawn("/bin/cat", cat, os.environ,
                                                                file_actions=[(os.POSIX_SPAWN_DUP2, w, 1)]))))
print("fork_exec=" + blocked(pipe_of(fork_exec)))
print("popen=" + blocked(os.popen("cat /proc/self/status").read()))
os.system("grep SigBlk /proc/self/status > system.out")
print("system=" + blocked(open("system.out").read()))
print("worker_after=" + blocked(open("/proc/self/status").read()))
' 2>&1) || fail "the mask job failed: $out"
  local want
  for want in worker=blocked subprocess=clear preexec=clear posix_spawn=clear fork_exec=clear popen=clear \
    system=clear worker_after=blocked; do
    assert_contains "$out" "$want" "the stack signal's mask"
  done
}

two_threads
gil_held_in_c
programs_get_a_clean_mask
