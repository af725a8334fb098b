#!/usr/bin/env bash
# shellcheck disable=SC2016  # worker scripts are single-quoted on purpose
# launch --max-restarts: restarts that are correct, and a policy that knows when to stop (issue 24).
#   1. the reproduction: an attempt that lives longer than --grace after a restart is not SIGKILLed by the first
#      attempt's teardown deadline (exit 137 after 5 s before; now 0), and the variants: --grace 1, three attempts,
#      a rank that ignores SIGTERM, a leftover `sleep &` of the failed attempt gone before the next one starts;
#   2. the resume contract: TORCHELASTIC_RESTART_COUNT, MUSTER_ATTEMPT and MUSTER_RESTART_REASON in the next attempt;
#      the manifest keeps each attempt, `muster why` lists them;
#   3. the same exception on every rank is not restarted by default (the reason said), but is with --restart-on any;
#      nor is a failure before the first training step (where steps are counted), but one after it is;
#      --no-restart-exit-codes and the thrash guard stop the job;
#   4. spares: three virtual nodes, --nnodes 2, one node's agent killed: it is excluded and the spare joins (exit 0);
#      with --nnodes 3 (no spare) the job stops with a clear reason and leaves nothing behind;
#   5. SIGUSR1 to the head reaches every rank (a rank that checkpoints on it and exits 0).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# --- 1. the reproduction and its variants ----------------------------------------------------------------------
job repro
start=$EPOCHREALTIME
rc=0
"$MUSTER" launch --job-id "$JOB" --transport local --nproc-per-node 2 --max-restarts 1 -- sh -c \
  'if [ "$TORCHELASTIC_RESTART_COUNT" = 1 ]; then sleep 8; exit 0; fi; [ "$RANK" = 0 ] && exit 1; exec sleep 60' \
  >out 2>&1 || rc=$?
[[ $rc == 0 ]] || fail "the issue's reproduction exited $rc (137: the first attempt's kill deadline hit the second): $(tail -n 20 out)"
echo "reproduction: $(elapsed_since "$start") s" >&2
assert_contains "$(cat out)" "attempt 2 of 2 on localhost" "the restart's line"
assert_not_contains "$(cat out)" "SIGKILL" "the output of the restarted job"

job grace1
rc=0
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 --max-restarts 1 --grace 1 -- sh -c \
  'if [ "$TORCHELASTIC_RESTART_COUNT" = 1 ]; then sleep 3; exit 0; fi; [ "$RANK" = 0 ] && exit 1; exec sleep 60' \
  >out 2>&1 || rc=$?
[[ $rc == 0 ]] || fail "--grace 1: exited $rc: $(tail -n 20 out)"

job three
rc=0
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 --max-restarts 2 --grace 1 -- sh -c \
  'if [ "$TORCHELASTIC_RESTART_COUNT" = 2 ]; then sleep 2; exit 0; fi; [ "$RANK" = 1 ] && exit 5; exec sleep 60' \
  >out 2>&1 || rc=$?
[[ $rc == 0 ]] || fail "three attempts: exited $rc: $(tail -n 20 out)"
assert_eq 3 "$(manifest_get "muster-runs/$JOB" 'len(m["attempts"])')" "attempts in the manifest"
assert_eq 5 "$(manifest_get "muster-runs/$JOB" 'm["attempts"][0]["exit_code"]')" "the first attempt's exit code"

# A rank that ignores SIGTERM is killed at the grace; its leftover child (in its process group) too, before the
# next attempt starts: the next attempt finds no process of the old one.
job stubborn
rc=0
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 --max-restarts 1 --grace 1 -- sh -c '
  if [ "$TORCHELASTIC_RESTART_COUNT" = 1 ]; then
    for pid in $(cat leftover.*); do kill -0 "$pid" 2>/dev/null && { echo "OLD ATTEMPT STILL RUNNING: $pid"; exit 9; }; done
    exit 0
  fi
  trap "" TERM
  sleep 300 &
  echo $! > "leftover.$RANK"
  [ "$RANK" = 0 ] && { sleep 0.5; exit 1; }
  while :; do sleep 1; done' >out 2>&1 || rc=$?
[[ $rc == 0 ]] || fail "a rank ignoring SIGTERM: exited $rc: $(tail -n 20 out)"
assert_not_contains "$(cat "muster-runs/$JOB/rank-0.log" "muster-runs/$JOB/rank-1.log")" "OLD ATTEMPT STILL RUNNING" \
  "the second attempt's ranks"
wait_until 5 no_job_processes "$JOB" || fail "processes left: $(describe_job_processes "$JOB")"

# --- 2. the resume contract ------------------------------------------------------------------------------------
job contract
rc=0
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 1 --max-restarts 1 --grace 1 -- sh -c \
  'echo "count=$TORCHELASTIC_RESTART_COUNT attempt=$MUSTER_ATTEMPT reason=$MUSTER_RESTART_REASON"
   [ "$MUSTER_ATTEMPT" = 0 ] && exit 4; exit 0' >out 2>&1 || rc=$?
[[ $rc == 0 ]] || fail "contract job exited $rc: $(tail -n 20 out)"
assert_contains "$(cat "muster-runs/$JOB/rank-0.log")" "count=1 attempt=1 reason=rank 0 on localhost failed (exit 4)" \
  "the second attempt's environment"
why=$("$MUSTER" why "muster-runs/$JOB" 2>&1) || true
assert_contains "$why" "2 attempts:" "muster why"
assert_contains "$why" "attempt 1 on localhost: rank 0 on localhost failed (exit 4); restarting" "muster why"

# --- 3. when not to restart ----------------------------------------------------------------------------------
# Every rank raises the same exception. The ranks wait for each other and ignore SIGTERM first, so muster's
# teardown stops none before it has raised: every rank shows it, and the job is not restarted.
readonly SAME_EXCEPTION='
import os, signal, sys, time
if sys.argv[1] == "all": signal.signal(signal.SIGTERM, signal.SIG_IGN)
open("raised.%s.%s" % (os.environ["MUSTER_ATTEMPT"], os.environ["RANK"]), "w").close()
for _ in range(300):
    if all(os.path.exists("raised.%s.%d" % (os.environ["MUSTER_ATTEMPT"], r)) for r in range(2)):
        break
    time.sleep(0.05)
raise ValueError("bad config: lr must be positive")
'
job same
rc=0
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 --max-restarts 3 -- python3 -c "$SAME_EXCEPTION" all >out 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "the same exception on every rank: exit $rc, expected 1: $(tail -n 20 out)"
assert_contains "$(cat out)" "the same exception on every rank (ValueError: bad config: lr must be positive)" "the reason"
assert_contains "$(cat out)" "--restart-on any" "the way to retry anyway"
assert_eq 1 "$(manifest_get "muster-runs/$JOB" 'len(m["attempts"])')" "attempts of a workload failure"

# The usual case: the first rank to raise is the root cause and the teardown stops the others before theirs (here
# only rank 0 raises). The retry raises the same again: the job stops there, saying so.
job same-again
rc=0
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 --max-restarts 3 --grace 1 -- python3 -c '
import os, time
if os.environ["RANK"] != "0": time.sleep(60)
raise ValueError("bad config: lr must be positive")' >out 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "the same exception twice: exit $rc, expected 1: $(tail -n 20 out)"
assert_contains "$(cat out)" "attempt 2 failed with the same exception as attempt 1 (ValueError: bad config" "the reason"
assert_eq 2 "$(manifest_get "muster-runs/$JOB" 'len(m["attempts"])')" "attempts when a retry failed the same way"

job same-any
rm -f raised.*
rc=0
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 --max-restarts 1 --restart-on any -- python3 -c "$SAME_EXCEPTION" \
  all >out 2>&1 || rc=$?
assert_eq 2 "$(manifest_get "muster-runs/$JOB" 'len(m["attempts"])')" "attempts with --restart-on any"

# A failure before the first training step: rank 1 makes its model and optimizer (the hook then counts its steps)
# and fails while it "loads its data"; no rank has stepped, so no retry can help: one attempt, the reason said. The
# same failure after two steps is retried (attempt 2 ends 0): only a failure before any step is the workload's.
readonly BEFORE_STEP='
import os, sys, time
import torch
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
steps = 0 if sys.argv[1] == "before" else 2
for _ in range(steps):
    optimizer.zero_grad()
    model(torch.ones(2, 4)).sum().backward()
    optimizer.step()
if sys.argv[2:] == ["always"] or os.environ["MUSTER_ATTEMPT"] == "0":
    if os.environ["RANK"] != "1":
        time.sleep(60)
    raise FileNotFoundError("data/train.bin")
'
PY=/usr/bin/python3  # Debian's, with python3-torch (not whichever python3 comes first in PATH)
"$PY" -c 'import torch' 2>/dev/null || fail "needs Debian's python3-torch (scripts/install-deps)"
job before-step
rc=0
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 --max-restarts 3 --grace 1 -- "$PY" -c "$BEFORE_STEP" before \
  >out 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "a failure before the first step: exit $rc, expected 1: $(tail -n 20 out)"
assert_contains "$(cat out)" "(rank 1 on localhost), before any rank's first step: a restart would fail the same way" "the reason"
assert_eq 1 "$(manifest_get "muster-runs/$JOB" 'len(m["attempts"])')" "attempts of a failure before the first step"
# The same with torch >= 2's global step hooks (the stand-in package of tests/local/telemetry: Debian has torch 1.13).
job before-step-torch2
rc=0
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 --max-restarts 3 --grace 1 -- "$PY" -c '
import os, sys, time
sys.path.insert(0, sys.argv[1])
import torch.optim.optimizer as optimizer_module
optimizer = optimizer_module.Optimizer()
if os.environ["RANK"] != "1":
    time.sleep(60)
raise FileNotFoundError("data/train.bin")' "$LOCAL_TEST_DIR/telemetry/fake_torch2" >out 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "a failure before the first step (torch 2's hooks): exit $rc, expected 1: $(tail -n 20 out)"
assert_contains "$(cat out)" "before any rank's first step: a restart would fail the same way" "the reason (torch 2)"
job after-step
rc=0
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 --max-restarts 3 --grace 1 -- "$PY" -c "$BEFORE_STEP" after \
  >out 2>&1 || rc=$?
[[ $rc == 0 ]] || fail "a failure after two steps is retried: exit $rc: $(tail -n 20 out)"
assert_eq 2 "$(manifest_get "muster-runs/$JOB" 'len(m["attempts"])')" "attempts of a failure after the first step"
# Where nothing counts steps (MUSTER_STEP_TIMING=0: no hook) the same failure is not known to be the workload's:
# retried, then stopped because attempt 2 failed as attempt 1 did.
job before-uncounted
rc=0
MUSTER_STEP_TIMING=0 "$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 --max-restarts 3 --grace 1 \
  --env MUSTER_STEP_TIMING -- "$PY" -c "$BEFORE_STEP" before always >out 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "uncounted steps: exit $rc, expected 1: $(tail -n 20 out)"
assert_eq 2 "$(manifest_get "muster-runs/$JOB" 'len(m["attempts"])')" "attempts when steps are not counted"
assert_contains "$(cat out)" "attempt 2 failed with the same exception as attempt 1 (FileNotFoundError" "the reason"

job codes
rc=0
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 1 --max-restarts 3 --no-restart-exit-codes 3,42 -- sh -c 'exit 42' \
  >out 2>&1 || rc=$?
[[ $rc == 42 ]] || fail "--no-restart-exit-codes: exit $rc, expected 42"
assert_contains "$(cat out)" "exit code 42 is in --no-restart-exit-codes" "the reason"

job thrash
rc=0
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 1 --max-restarts 10 --thrash-guard 3/10 --grace 1 -- sh -c 'exit 7' \
  >out 2>&1 || rc=$?
[[ $rc == 7 ]] || fail "thrash guard: exit $rc, expected 7"
assert_contains "$(cat out)" "3 failures within 600 s: the job is thrashing" "the thrash guard's reason"
assert_eq 3 "$(manifest_get "muster-runs/$JOB" 'len(m["attempts"])')" "attempts before the thrash guard stopped it"

# --- 4. spares (virtual nodes: an agent per node on this machine) -------------------------------------------------
# kill_agent FILE: SIGKILL the agent of the worker whose pid is in FILE (its workers die with it: PDEATHSIG).
kill_agent() {
  local pid
  pid=$(agent_of "$(cat "$1")") || fail "no agent above the worker of $1"
  kill -KILL "$pid"
}
job spares
"$MUSTER" launch --job-id "$JOB" -w 'vnode[1-3]' --transport local --nnodes 2 --max-restarts 2 --grace 1 -- sh -c \
  'if [ "$MUSTER_ATTEMPT" = 1 ]; then echo "attempt 1 on $MUSTER_NODE as node $NODE_RANK of $NNODES"; exit 0; fi
   echo $$ > "up.$MUSTER_NODE"; exec sleep 60' >out 2>&1 &
head=$!
BG_PIDS+=("$head")
both_up() { [[ -s $WORK/up.vnode1 && -s $WORK/up.vnode2 ]]; }
wait_until 30 both_up || fail "the first attempt did not start on vnode1 and vnode2: $(cat out)"
[[ ! -e up.vnode3 ]] || fail "the spare vnode3 ran a rank of the first attempt"
kill_agent up.vnode2
wait_bg "$head" 60
assert_eq 0 "$BG_RC" "exit code with a spare taking the lost node's place"
assert_contains "$(cat out)" "vnode2 lost (" "the decision line"
assert_contains "$(cat out)" "): excluded; attempt 2 of 3 on vnode[1,3] (vnode3 from the spares)" "the decision line"
assert_contains "$(cat "muster-runs/$JOB/rank-1.log")" "attempt 1 on vnode3 as node 1 of 2" "rank 1 of the second attempt"
wait_until 5 no_job_processes "$JOB" || fail "processes left: $(describe_job_processes "$JOB")"

job too-few
rm -f up.*
"$MUSTER" launch --job-id "$JOB" -w 'vnode[1-3]' --transport local --nnodes 3 --max-restarts 2 --grace 1 -- sh -c \
  'echo $$ > "up.$MUSTER_NODE.$MUSTER_ATTEMPT"; exec sleep 60' >out 2>&1 &
head=$!
BG_PIDS+=("$head")
all_up() { [[ -s $WORK/up.vnode1.0 && -s $WORK/up.vnode2.0 && -s $WORK/up.vnode3.0 ]]; }
wait_until 30 all_up || fail "the job did not start on three nodes: $(cat out)"
kill_agent up.vnode3.0
wait_bg "$head" 60
[[ $BG_RC != 0 ]] || fail "the job went on with fewer than --nnodes 3 nodes"
assert_contains "$(cat out)" "2 usable nodes left, the job needs 3: vnode3: lost (" "the stop's reason"
wait_until 5 no_job_processes "$JOB" || fail "processes left: $(describe_job_processes "$JOB")"

# --- 5. signals to the head ----------------------------------------------------------------------------------
job usr1
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 -- sh -c \
  'trap "echo checkpoint > ckpt.$RANK; exit 0" USR1; touch "ready.$RANK"; while :; do sleep 0.1; done' >out 2>&1 &
head=$!
BG_PIDS+=("$head")
ready() { [[ -e $WORK/ready.0 && -e $WORK/ready.1 ]]; }
wait_until 30 ready || fail "the ranks did not start"
kill -USR1 "$head"
wait_bg "$head" 30
assert_eq 0 "$BG_RC" "exit code after SIGUSR1 (each rank checkpoints and exits 0)"
assert_eq checkpoint "$(cat ckpt.0)" "rank 0's checkpoint"
assert_eq checkpoint "$(cat ckpt.1)" "rank 1's checkpoint"
assert_contains "$(cat out)" "SIGUSR1: passed to every rank" "the head's notice"
