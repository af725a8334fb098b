#!/usr/bin/env bash
# diagnosis_flight_recorder_test.sh — PyTorch's NCCL flight recorder dumps reach the run directory, on a node the
# agent takes for a GPU node (MUSTER_NODE_GPUS=1 in its environment: this machine has no GPU, and Debian's torch
# 1.13 has no NCCL; tests/gpu/run.sh does the same with real NCCL):
#   1. a collective's timeout: each rank writes its dump where TORCH_NCCL_DEBUG_INFO_TEMP_FILE says, as NCCL's
#      watchdog does, and fails; the dumps are copied byte for byte into <run dir>/flight-recorder, the report names
#      them there, the manifest records them, and the watchdog entry says NCCL_DEBUG=INFO and where they are.
#   2. a stall (--hang-timeout): when muster takes the stacks, the stack hook asks torch.distributed (a stand-in
#      here with the API's shape, whose dump takes 1.5 s) for the flight recorder; the stacks still come, the job
#      is stopped only once the dump is whole, and it is in the run directory. A rank whose dump fails still
#      gives its stack.
#   3. a dump over 8 MiB stays on its node and the report says where;
#   4. without GPUs, none of the flight recorder's variables is set and no directory appears.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
export XDG_STATE_HOME=$WORK/state  # this test's jobs and node directories only

# What a rank's dump holds here: binary, like torch's pickles.
readonly DUMP_BYTES='
def dump_bytes(rank):
    return b"\x80\x02}q\x00dump of rank " + rank.encode() + bytes(range(256))
'

watchdog_timeout() {
  job watchdog
  local out rc=0 run=muster-runs/$JOB
  out=$(MUSTER_NODE_GPUS=1 "$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 -- /usr/bin/python3 -c "$DUMP_BYTES"'
import os, sys
assert os.environ["TORCH_NCCL_TRACE_BUFFER_SIZE"] == "2000" and os.environ["TORCH_NCCL_DUMP_ON_TIMEOUT"] == "1"
rank = os.environ["RANK"]
with open(os.environ["TORCH_NCCL_DEBUG_INFO_TEMP_FILE"] + rank, "wb") as f:
    f.write(dump_bytes(rank))
# Both watchdogs fire on the same collective: neither rank fails before the other has dumped (on a slow machine
# rank 1 could still be starting Python when rank 0 fails and muster stops it).
import time
open("dumped." + rank, "w").close()
for _ in range(600):
    if os.path.exists("dumped.0") and os.path.exists("dumped.1"):
        break
    time.sleep(0.1)
sys.stderr.write("[Rank %s] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600013 milliseconds before timing out.\n" % rank)
sys.exit(1)
' 2>&1) || rc=$?
  local rank
  for rank in 0 1; do
    python3 -c "$DUMP_BYTES"'
import sys; sys.stdout.buffer.write(dump_bytes(sys.argv[1]))' "$rank" >"dump-$rank"
  done
  assert_eq 1 "$rc" "exit code of the timed-out job"
  assert_contains "$out" "what happened: a collective timed out (NCCL watchdog)" "the diagnosis"
  assert_contains "$out" "NCCL_DEBUG=INFO" "the watchdog entry's fix"
  assert_contains "$out" "$run/flight-recorder (torchfrtrace" "the fix names the dumps' directory"
  assert_contains "$out" "PyTorch's flight recorder dumped the last collectives" "the report's dump section"
  for rank in 0 1; do
    assert_contains "$out" "rank $rank (on localhost): $WORK/$run/flight-recorder/nccl_trace_rank_$rank" "rank $rank's dump"
    assert_file_bytes "dump-$rank" "$run/flight-recorder/nccl_trace_rank_$rank" "rank $rank's dump in the run directory"
  done
  assert_eq "flight-recorder/nccl_trace_rank_1" \
    "$(manifest_get "$run" 'm["attempts"][-1]["notes"]["1"]["flight-recorder-saved"]')" "the manifest's note"
  assert_contains "$(manifest_get "$run" 'm["attempts"][-1]["notes"]["1"]["flight-recorder"]')" \
    "/flight-recorder-1/nccl_trace_rank_1" "where the dump was on its node"
  [[ $(stat -c %a "$run/flight-recorder") == 700 ]] || fail "the dumps' directory is not private"
  local why
  why=$("$MUSTER" why "$run" 2>&1) || fail "muster why failed: $why"
  for rank in 0 1; do
    assert_contains "$why" "rank $rank (on localhost): $WORK/$run/flight-recorder/nccl_trace_rank_$rank" \
      "muster why names rank $rank's dump, as the report did"
  done
}

# A stand-in for torch.distributed running NCCL, with the flight recorder's API (torch >= 2.2), put where the hook
# looks (sys.modules): it never imports torch itself.
readonly FAKE_TORCH='
import os, pickle, sys, time, types
rank = int(os.environ["RANK"])
def dump_nccl_trace():
    if rank == 0:
        raise RuntimeError("no NCCL communicator yet")
    time.sleep(1.5)
    return pickle.dumps({"version": "2.5", "rank": rank, "entries": [{"profiling_name": "nccl:all_reduce", "collective_seq_id": 41}]})
torch = types.ModuleType("torch")
torch._C = types.ModuleType("torch._C")
torch._C._distributed_c10d = types.SimpleNamespace(_dump_nccl_trace=dump_nccl_trace)
dist = types.ModuleType("torch.distributed")
dist.is_available = lambda: True
dist.is_initialized = lambda: True
dist.get_backend = lambda group=None: "nccl"
dist.get_rank = lambda group=None: rank
torch.distributed = dist
sys.modules.update({"torch": torch, "torch._C": torch._C, "torch.distributed": dist})
def wait_in_all_reduce():
    print("in the collective", flush=True)
    time.sleep(120)
wait_in_all_reduce()
'

stall_dump() {
  job stall
  local out rc=0 run=muster-runs/$JOB
  out=$(MUSTER_NODE_GPUS=1 "$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 --hang-timeout 3 -- \
    /usr/bin/python3 -c "$FAKE_TORCH" 2>&1) || rc=$?
  assert_eq 124 "$rc" "exit code of the stalled job"
  assert_not_contains "$(cat "$run/stacks-1.txt")" "muster-flight-recorder" "the hook's marker lines in the stacks"
  assert_contains "$out" "rank 1 (on localhost): $WORK/$run/flight-recorder/nccl_trace_rank_1" "the report names the dump"
  assert_contains "$("$MUSTER" why "$run" 2>&1)" "rank 1 (on localhost): $WORK/$run/flight-recorder/nccl_trace_rank_1" \
    "muster why names the stall's dump"
  assert_eq "{'version': '2.5', 'rank': 1, 'entries': [{'profiling_name': 'nccl:all_reduce', 'collective_seq_id': 41}]}" \
    "$(python3 -c 'import pickle, sys; print(pickle.load(open(sys.argv[1], "rb")))' "$run/flight-recorder/nccl_trace_rank_1")" \
    "rank 1's dump, whole"
  [[ ! -e $run/flight-recorder/nccl_trace_rank_0 ]] || fail "rank 0's dump failed, yet a file is there"
  grep -q "wait_in_all_reduce" "$run/stacks-1.txt" || fail "rank 0's stack (its dump failed) is missing: $(cat "$run/stacks-1.txt")"
  [[ $(grep -c "wait_in_all_reduce" "$run/stacks-1.txt") -ge 2 ]] || fail "not every rank's stack: $(cat "$run/stacks-1.txt")"
}

# A dump over the 8 MiB the agent carries stays on its node: the report names it there, the run directory has none.
too_large() {
  job large
  local out rc=0 run=muster-runs/$JOB
  out=$(MUSTER_NODE_GPUS=1 "$MUSTER" launch --job-id "$JOB" -- /usr/bin/python3 -c '
import os, sys
with open(os.environ["TORCH_NCCL_DEBUG_INFO_TEMP_FILE"] + "0", "wb") as f:
    f.write(b"x" * (9 << 20))
sys.exit(1)' 2>&1) || rc=$?
  assert_eq 1 "$rc" "exit code of the job with a large dump"
  assert_contains "$out" "/flight-recorder-0/nccl_trace_rank_0 on localhost (too large to bring here)" \
    "the report names a dump left on its node"
  [[ ! -e $run/flight-recorder/nccl_trace_rank_0 ]] || fail "a dump over 8 MiB was copied"
}

no_gpus() {
  job cpu
  local out
  out=$(MUSTER_NODE_GPUS=0 "$MUSTER" launch -q --job-id "$JOB" -- /usr/bin/python3 -c '
import os
print("vars=" + ",".join(k for k in ("TORCH_NCCL_TRACE_BUFFER_SIZE", "TORCH_NCCL_DUMP_ON_TIMEOUT",
                                     "TORCH_NCCL_DEBUG_INFO_TEMP_FILE") if k in os.environ))
raise SystemExit(3)' 2>&1) || true
  assert_contains "$out" "vars=" "the worker ran"
  assert_not_contains "$out" "vars=TORCH" "flight recorder variables without GPUs"
  [[ ! -e muster-runs/$JOB/flight-recorder ]] || fail "a flight-recorder directory without GPUs"
}

watchdog_timeout
stall_dump
too_large
no_gpus
