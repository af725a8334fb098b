#!/usr/bin/env bash
# tests/gpu/run.sh — the checks that need a real NVIDIA GPU (issues 18.4 and 19.6), for a machine lent with one.
# Not part of ctest (nothing here runs without a GPU); see tests/gpu/README.md.
#
# usage: tests/gpu/run.sh MUSTER_BINARY PYTHON [OUT_DIR]
#   MUSTER_BINARY  a built muster (build/muster)
#   PYTHON         an interpreter with torch built for CUDA (a venv's bin/python); accelerate optional
#   OUT_DIR        where every check's output, run directory and the summary go (default: $OUT, else ./gpu-out)
#
# Every check runs on localhost (local transport) under `timeout`, saves its output as OUT_DIR/<check>.log and its
# run directory as OUT_DIR/<check>-run/, and ends as PASS, FAIL or SKIP (with the reason: a missing package or too
# few GPUs is a SKIP, never a PASS). The summary is printed and saved as OUT_DIR/summary.txt; the exit status is 1
# when any check failed, else 0.
#   doctor      muster doctor --import-torch: torch imports with CUDA, the GPUs and the driver are seen
#   nccl        a NCCL all_reduce on every GPU of this machine (one rank per GPU)
#   accelerate  launch --per-node -- accelerate launch (the recipe of docs/recipes.md section 3), NCCL again
#   badif       a real NCCL failure (NCCL_SOCKET_IFNAME names no interface): the report says "NCCL found no usable
#               network interface" and fills in the interface doctor picks
#   exit        (2+ GPUs) a rank exits mid-collective: the report names it as the first failure
#   watchdog    (2+ GPUs) a rank never joins a collective: NCCL's watchdog times out, the report says so, and the
#               flight recorder's dump torch wrote on the node is in <run dir>/flight-recorder
#   stall       --hang-timeout stops a job that stalls after collectives: the stack hook dumped the flight
#               recorder (torch >= 2.2), and the dump is in <run dir>/flight-recorder, readable with pickle
#   telemetry   nvidia-smi's query outputs recorded into OUT_DIR (telemetry-*.csv: the real fixtures that
#               tests/unit/telemetry/fixtures lacks), then a DDP job of one rank per GPU: `muster top --json` shows
#               every GPU's figures and each rank on its own GPU with steps from the hook; report.html is written
#   gpu         records this machine's nvidia-smi outputs and kernel log as a fixture (OUT_DIR/fixture/, the layout
#               of tests/gpu/fixtures) and runs muster doctor --gpu: every GPU seen, its facts gathered
#   fabric      muster doctor --fabric with one rank per GPU (NCCL): the sweep runs and reports a bus bandwidth
set -u -o pipefail

if (($# < 2)); then
  sed -n '2,/^set -u/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//' >&2
  exit 2
fi
MUSTER=$(realpath "$1")
PY=$2
OUT_DIR=${3:-${OUT:-$PWD/gpu-out}}
HERE=$(cd "$(dirname "$0")" && pwd)
JOB_SCRIPT=$HERE/nccl_job.py
mkdir -p "$OUT_DIR"
OUT_DIR=$(realpath "$OUT_DIR")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/muster-gpu.XXXXXX")
export XDG_STATE_HOME=$WORK/state  # muster's job registry and node directories for these checks only
cd "$WORK" || exit 2
trap 'cd / && rm -rf "$WORK"' EXIT

RESULTS=()
# result CHECK PASS|FAIL|SKIP WHY
result() {
  RESULTS+=("$(printf '%-10s %-4s %s' "$1" "$2" "$3")")
  echo "== $1: $2 $3" >&2
}

# run_muster CHECK SECONDS ARG...: muster ARG... under timeout; output in OUT_DIR/CHECK.log; sets RC and LOG.
run_muster() {
  local check=$1 seconds=$2
  shift 2
  LOG=$OUT_DIR/$check.log
  echo "== $check: muster $*" >&2
  RC=0
  timeout -k 10 "$seconds" "$MUSTER" "$@" >"$LOG" 2>&1 || RC=$?
  echo "exit $RC" >>"$LOG"
}

# keep_run CHECK: copies the check's run directory into OUT_DIR (fixtures for the tests that have no GPU).
keep_run() { [[ -d muster-runs/$1 ]] && cp -a "muster-runs/$1" "$OUT_DIR/$1-run"; true; }

# has LOG TEXT...: the log contains every TEXT.
has() {
  local log=$1 text
  shift
  for text in "$@"; do grep -qF -- "$text" "$log" || { MISSING=$text; return 1; }; done
}

py() { "$PY" -c "$1" 2>/dev/null; }

GPUS=$(py 'import torch; print(torch.cuda.device_count())' || echo 0)
TORCH=$(py 'import torch; print(torch.__version__)' || echo none)
HAS_DUMP_API=$(py 'import torch; print(int(hasattr(torch._C._distributed_c10d, "_dump_nccl_trace")))' || echo 0)
{
  echo "muster: $("$MUSTER" version 2>&1 | head -n 1)"
  echo "python: $PY, torch $TORCH, $GPUS GPU(s), flight recorder API: $HAS_DUMP_API"
  nvidia-smi -L 2>&1 || true
  # The agent turns the flight recorder on where /dev/nvidiactl exists (src/agent/worker_setup.h).
  [[ -e /dev/nvidiactl ]] || echo "no /dev/nvidiactl: muster will not turn the flight recorder on (watchdog, stall fail)"
} | tee "$OUT_DIR/machine.txt" >&2

check_doctor() {
  run_muster doctor 180 doctor -w localhost --python "$PY" --import-torch --json
  if ! "$PY" - "$LOG" <<'EOF' >"$OUT_DIR/doctor.check" 2>&1; then
import json, sys
text = open(sys.argv[1]).read()
report = json.loads(text[:text.rindex("}") + 1])
findings = report["findings"]
bad = [f for f in findings if f["check"] in ("gpus", "driver", "versions") and f["severity"] == "error"]
assert not bad, bad
print("doctor: no GPU, driver or version error")
EOF
    result doctor FAIL "doctor's JSON has a GPU/driver/version error or does not parse: $OUT_DIR/doctor.check"
    return
  fi
  run_muster doctor-text 180 doctor -w localhost --python "$PY" --import-torch
  has "$LOG" "$TORCH" || { result doctor FAIL "doctor does not show torch $TORCH: $LOG"; return; }
  result doctor PASS "no GPU/driver/version error, torch $TORCH seen (doctor exit $RC: 0 ok, 1 warnings, 2 errors)"
}

check_nccl() {
  run_muster nccl 300 launch --job-id nccl --nproc-per-node "$GPUS" -- "$PY" "$JOB_SCRIPT" ok
  keep_run nccl
  if ((RC == 0)) && [[ $(grep -c "allreduce ok" "$LOG") == "$GPUS" ]]; then
    result nccl PASS "$GPUS rank(s) all-reduced on NCCL"
  else
    result nccl FAIL "exit $RC, expected $GPUS 'allreduce ok' lines: $LOG"
  fi
}

check_accelerate() {
  local accelerate
  accelerate=$(dirname "$PY")/accelerate
  if ! py 'import accelerate' || [[ ! -x $accelerate ]]; then
    result accelerate SKIP "accelerate is not installed next to $PY"
    return
  fi
  local multi=()
  ((GPUS > 1)) && multi=(--multi_gpu)  # accelerate refuses --multi_gpu with one process
  run_muster accelerate 300 launch --job-id accel --per-node -- "$accelerate" launch "${multi[@]}" \
    --num_processes "$GPUS" --num_machines 1 --machine_rank '{node_rank}' --main_process_ip '{master_addr}' \
    --main_process_port '{master_port}' "$JOB_SCRIPT" ok
  keep_run accel
  if ((RC == 0)) && [[ $(grep -c "allreduce ok" "$LOG") == "$GPUS" ]]; then
    result accelerate PASS "launch --per-node -- accelerate launch: $GPUS process(es) all-reduced"
  else
    result accelerate FAIL "exit $RC, expected $GPUS 'allreduce ok' lines: $LOG"
  fi
}

check_badif() {
  run_muster badif 300 launch --job-id badif --nproc-per-node 1 --env NCCL_SOCKET_IFNAME=muster_noif0 \
    --env NCCL_DEBUG=WARN -- "$PY" "$JOB_SCRIPT" badif
  keep_run badif
  if ((RC != 0)) && has "$LOG" "what happened: NCCL found no usable network interface" "NCCL_SOCKET_IFNAME="; then
    result badif PASS "exit $RC, diagnosed as nccl-interface"
  else
    result badif FAIL "exit $RC; the report lacks '${MISSING:-an exit code}': $LOG"
  fi
}

check_exit() {
  if ((GPUS < 2)); then result exit SKIP "needs 2 GPUs (NCCL refuses two ranks on one GPU)"; return; fi
  run_muster exit 300 launch --job-id exit --nproc-per-node 2 -- "$PY" "$JOB_SCRIPT" exit
  keep_run exit
  if ((RC == 3)) && has "$LOG" "what happened: " "rank 1"; then
    result exit PASS "exit 3, the report names rank 1"
  else
    result exit FAIL "exit $RC (expected rank 1's 3); report: $LOG"
  fi
}

check_watchdog() {
  if ((GPUS < 2)); then result watchdog SKIP "needs 2 GPUs"; return; fi
  run_muster watchdog 400 launch --job-id watchdog --nproc-per-node 2 --hang-timeout 0 -- "$PY" "$JOB_SCRIPT" watchdog
  keep_run watchdog
  if ((RC == 0)) || ! has "$LOG" "what happened: a collective timed out (NCCL watchdog)"; then
    result watchdog FAIL "exit $RC; no watchdog diagnosis: $LOG"
  elif [[ $HAS_DUMP_API == 1 ]] && [[ ! -s muster-runs/watchdog/flight-recorder/nccl_trace_rank_0 ]]; then
    result watchdog FAIL "no flight recorder dump of rank 0 in the run directory: $(ls -la muster-runs/watchdog)"
  else
    result watchdog PASS "diagnosed; dumps: $(cd muster-runs/watchdog/flight-recorder 2>/dev/null && echo *)"
  fi
}

check_stall() {
  if [[ $HAS_DUMP_API != 1 ]]; then result stall SKIP "torch $TORCH has no flight recorder API (needs >= 2.2)"; return; fi
  run_muster stall 300 launch --job-id stall --nproc-per-node "$GPUS" --hang-timeout 30 -- "$PY" "$JOB_SCRIPT" stall
  keep_run stall
  local dump=muster-runs/stall/flight-recorder/nccl_trace_rank_0
  if ((RC != 124)); then
    result stall FAIL "exit $RC, expected 124 (stalled): $LOG"
  elif [[ ! -s $dump ]]; then
    result stall FAIL "no flight recorder dump in the run directory: $(ls -la muster-runs/stall)"
  elif ! "$PY" -c 'import pickle, sys; d = pickle.load(open(sys.argv[1], "rb")); assert d["entries"], d; print(len(d["entries"]), "entries")' \
    "$dump" >>"$LOG" 2>&1; then
    result stall FAIL "the dump does not unpickle to entries: $LOG"
  elif ! has "$LOG" "$dump"; then
    result stall FAIL "the report does not point to $dump: $LOG"
  else
    result stall PASS "stopped (124); $(tail -n 2 "$LOG" | head -n 1) in $dump"
  fi
}

check_telemetry() {
  nvidia-smi --query-gpu=index,uuid,pci.bus_id,utilization.gpu,memory.used,memory.total,power.draw,power.limit,temperature.gpu,clocks.sm,clocks.max.sm,clocks_throttle_reasons.active,ecc.errors.uncorrected.volatile.total \
    --format=csv,noheader,nounits >"$OUT_DIR/telemetry-nvidia-smi-query.csv" 2>&1 || true
  nvidia-smi --query-compute-apps=gpu_uuid,pid,used_memory --format=csv,noheader,nounits \
    >"$OUT_DIR/telemetry-nvidia-smi-compute-apps.csv" 2>&1 || true
  LOG=$OUT_DIR/telemetry.log
  if ! TRAIN_SECONDS=40 timeout -k 10 120 "$MUSTER" launch --detach --job-id telemetry --nproc-per-node "$GPUS" \
    --env TRAIN_SECONDS -- "$PY" "$JOB_SCRIPT" train >"$LOG" 2>&1; then
    result telemetry FAIL "launch --detach failed: $LOG"
    return
  fi
  sleep 25
  "$MUSTER" top --json --once telemetry >"$OUT_DIR/telemetry-top.json" 2>>"$LOG" || true
  local waited=0
  while ((waited < 90)) && "$MUSTER" ps --json 2>/dev/null | "$PY" -c '
import json, sys
sys.exit(0 if any(j["job_id"] == "telemetry" and j["state"] == "running" for j in json.load(sys.stdin)) else 1)'; do
    sleep 2
    waited=$((waited + 2))
  done
  keep_run telemetry
  if ! "$PY" - "$OUT_DIR/telemetry-top.json" "$GPUS" >>"$LOG" 2>&1 <<'PYEOF'; then
import json, sys
s = json.load(open(sys.argv[1]))
gpus = int(sys.argv[2])
node = s["nodes"][0]
assert len(node["gpus"]) >= gpus and all(g["util"] is not None and g["sm_mhz"] for g in node["gpus"]), node["gpus"]
ranks = node["rank_rows"]
assert sorted(r["gpu"] for r in ranks) == list(range(gpus)), ranks
assert all(r["source"] == "hook" and r["steps"] > 0 for r in ranks), ranks
print("telemetry: %d GPU(s) seen, every rank on its own GPU, steps from the hook" % len(node["gpus"]))
PYEOF
    result telemetry FAIL "top --json does not show the GPUs and the ranks on them: $LOG"
  elif [[ ! -s muster-runs/telemetry/report.html ]]; then
    result telemetry FAIL "no report.html in the run directory"
  else
    result telemetry PASS "$(tail -n 1 "$LOG"); nvidia-smi's outputs recorded as telemetry-*.csv"
  fi
}

check_gpu() {
  local fx=$OUT_DIR/fixture q
  mkdir -p "$fx"
  q=index,name,memory.total,uuid,driver_version,pci.bus_id,pcie.link.gen.current,pcie.link.gen.max
  q=$q,pcie.link.width.current,pcie.link.width.max,persistence_mode,mig.mode.current,mig.mode.pending
  q=$q,ecc.errors.uncorrected.volatile.total,ecc.errors.uncorrected.aggregate.total,clocks_event_reasons.active
  q=$q,temperature.gpu,pstate,fabric.state,fabric.status
  nvidia-smi --query-gpu=$q --format=csv,nounits >"$fx/query-gpu.csv" 2>&1 || true
  nvidia-smi --query-compute-apps=gpu_uuid,pid,used_memory,process_name --format=csv,nounits >"$fx/compute-apps.csv" 2>&1 || true
  nvidia-smi --query-remapped-rows=gpu_uuid,remapped_rows.uncorrectable,remapped_rows.pending,remapped_rows.failure \
    --format=csv,nounits >"$fx/remapped-rows.csv" 2>&1 || rm -f "$fx/remapped-rows.csv"
  nvidia-smi nvlink --status >"$fx/nvlink-status.txt" 2>&1 || true
  nvidia-smi nvlink --errorcounters >"$fx/nvlink-errors.txt" 2>&1 || true
  nvidia-smi >"$fx/smi.txt" 2>&1 || true
  { dmesg -r 2>/dev/null || true; } | grep -E 'NVRM|nvidia' >"$fx/kmsg.dmesg" || true
  run_muster gpu 120 doctor -w localhost --python "$PY" --no-ssh-matrix --gpu --json
  if "$PY" - "$LOG" "$GPUS" <<'EOF' >"$OUT_DIR/gpu.check" 2>&1; then
import json, sys
text = open(sys.argv[1]).read()
report = json.loads(text[:text.rindex("}") + 1])
facts = report["gpu"]["nodes"][0]["facts"]
assert len(facts["gpus"]) == int(sys.argv[2]), (len(facts["gpus"]), sys.argv[2])
assert not [f for f in report["findings"] if "could not gather" in f["message"]], report["findings"]
print("doctor --gpu:", len(facts["gpus"]), "GPUs;", [(f["check"], f["severity"]) for f in report["findings"] if f["check"].startswith("gpu")])
EOF
    result gpu PASS "$(tail -n 1 "$OUT_DIR/gpu.check") (exit $RC); fixture recorded in $fx"
  else
    result gpu FAIL "doctor --gpu: $OUT_DIR/gpu.check"
  fi
}

check_fabric() {
  if ((GPUS < 2)); then result fabric SKIP "one GPU: an all_reduce needs two ranks"; return; fi
  run_muster fabric 180 doctor -w localhost --nproc-per-node "$GPUS" --python "$PY" --fabric --json
  if "$PY" - "$LOG" <<'EOF' >"$OUT_DIR/fabric.check" 2>&1; then
import json, sys
text = open(sys.argv[1]).read()
f = json.loads(text[:text.rindex("}") + 1])["fabric"]
assert f["backend"] == "nccl", f["backend"]
print("doctor --fabric: NCCL bus bandwidth %.1f Gbit/s at %d MiB" % (f["ring"][-1]["busbw_gbps"], f["ring"][-1]["bytes"] >> 20))
EOF
    result fabric PASS "$(tail -n 1 "$OUT_DIR/fabric.check") (exit $RC)"
  else
    result fabric FAIL "doctor --fabric: $OUT_DIR/fabric.check"
  fi
}

if ((GPUS < 1)); then
  result all FAIL "$PY sees no CUDA GPU (torch $TORCH)"
else
  check_doctor
  check_nccl
  check_accelerate
  check_badif
  check_exit
  check_watchdog
  check_stall
  check_telemetry
  check_gpu
  check_fabric
fi

printf '%s\n' "${RESULTS[@]}" | tee "$OUT_DIR/summary.txt"
! grep -q '^[a-z-]* *FAIL' "$OUT_DIR/summary.txt"
