#!/usr/bin/env bash
# telemetry_top_test.sh — `muster top` on running jobs, attached and detached (local virtual nodes, Debian's torch,
# DDP over gloo), in a real terminal (tmux: send-keys, capture-pane) and for scripts:
#   1. a detached job of 3 nodes x 2 ranks on "GPU nodes" (MUSTER_NODE_GPUS=1 and an nvidia-smi stand-in that
#      prints a hand-written 8-GPU fixture: no GPU here): `top --once` draws a row per node with steps/s and the
#      GPU columns; `top --json --once` has every node with 8 GPUs and every rank with its steps/s, step times,
#      compute/wait and its GPU (LOCAL_RANK); --metrics-textfile holds Prometheus gauges for every rank, and is gone
#      once the job ends.
#   2. `muster top` in tmux: the table, a node expanded with Enter (its ranks under it), sorted by the gap with s,
#      q quits and gives the terminal back (the alternate screen left, the shell prompt there again).
#   3. an attached launch running in a tmux window: its status line shows steps/s; `muster top` in another window
#      shows its nodes; the job ends on its own, and top with it.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

export XDG_STATE_HOME=$WORK/state
export XDG_CACHE_HOME=$WORK/cache
PY=/usr/bin/python3
"$PY" -c 'import torch' 2>/dev/null || fail "needs Debian's python3-torch (scripts/install-deps)"
command -v tmux >/dev/null || fail "needs tmux"
DDP=$LOCAL_TEST_DIR/../cluster/scripts/ddp_telemetry.py
export PATH=$LOCAL_TEST_DIR/telemetry:$PATH  # the nvidia-smi stand-in, for the agents (local transport)
export MUSTER_NODE_GPUS=1
TMUX_SOCKET=$WORK/tmux.sock
tmux_() { tmux -S "$TMUX_SOCKET" "$@"; }
stop_tmux() { tmux_ kill-server 2>/dev/null || true; }
trap 'rc=$?; stop_tmux; (exit $rc); cleanup_local_test' EXIT

# json_check JOB PYTHON: runs PYTHON with `s` = one `top --json --once` snapshot of JOB; fails on an AssertionError.
json_check() {
  "$MUSTER" top --json --once "$1" >snap.json || fail "top --json --once $1 failed: $(cat snap.json)"
  "$PY" -c "import json; s = json.load(open('snap.json')); $2" || fail "top --json: $2 ($(head -c 600 snap.json))"
}
has_steps() { "$MUSTER" top --json --once "$1" 2>/dev/null | "$PY" -c '
import json, sys
s = json.load(sys.stdin)
assert all(r["steps_per_s"] for n in s["nodes"] for r in n["rank_rows"])
assert len(s["nodes"]) == 3' 2>/dev/null; }

# --- 1. detached -------------------------------------------------------------------------------------------------
job detached
"$MUSTER" launch --detach --job-id "$JOB" --transport local -w 'vnode[1-3]' --nproc-per-node 2 \
  --metrics-textfile "$WORK/job.prom" -- "$PY" "$DDP" --seconds 45 >out 2>&1 || fail "launch --detach: $(cat out)"
DETACHED=$JOB
wait_until 40 has_steps "$JOB" || fail "no steps/s for every rank within 40 s: $("$MUSTER" top --once "$JOB" 2>&1)"
once=$("$MUSTER" top --once "$JOB")
assert_contains "$once" "steps/s" "top --once"
for node in vnode1 vnode2 vnode3; do assert_contains "$once" "+ $node" "top --once: $node's row"; done
assert_contains "$once" "SM MHz" "top --once: the GPU columns"
json_check "$JOB" '
assert s["job_id"] and s["world_size"] == 6 and s["steps_per_s"] > 0
assert [n["node"] for n in s["nodes"]] == ["vnode1", "vnode2", "vnode3"]
for n in s["nodes"]:
    assert len(n["gpus"]) == 8 and n["gpus"][0]["util"] == 98 and n["gpu_util"] >= 96, n["gpus"][0]
    assert n["notes"] == ["net lo"], n["notes"]
    assert len(n["rank_rows"]) == 2
    for r in n["rank_rows"]:
        assert r["source"] == "hook" and r["steps"] > 0 and r["step_p50_ms"] > 0, r
        assert r["compute_ms"] > 0 and r["wait_ms"] is not None and 0 < r["compute_share"] <= 1, r
        assert r["gpu"] == r["rank"] % 2, r  # LOCAL_RANK, no CUDA_VISIBLE_DEVICES
assert s["stragglers"] == []
'
prom_has_ranks() { [[ $(grep -c '^muster_rank_steps_per_second{' "$WORK/job.prom" 2>/dev/null) == 6 ]]; }
wait_until 15 prom_has_ranks || fail "the Prometheus textfile (written every 5 s) has no 6 ranks: $(cat "$WORK/job.prom")"
prom=$(cat "$WORK/job.prom")
for rank in 0 1 2 3 4 5; do
  assert_contains "$prom" "muster_rank_steps_per_second{job=\"$JOB\",node=\"vnode$((rank / 2 + 1))\",rank=\"$rank\"}" "the Prometheus textfile"
done
assert_contains "$prom" "muster_gpu_utilization_ratio{job=\"$JOB\",node=\"vnode1\",gpu=\"7\"} 0.97" "the Prometheus textfile's GPUs"

# --- 2. top in a real terminal --------------------------------------------------------------------------------------
tmux_ new-session -d -s top -x 180 -y 40 "bash --norc --noprofile"
tmux_ send-keys -t top "PS1='PROMPT> '; clear" Enter
tmux_ send-keys -t top "'$MUSTER' top $JOB" Enter
screen() { tmux_ capture-pane -p -t top; }
shows() { [[ $(screen) == *"$1"* ]]; }
wait_until 15 shows "NODE/RANK" || fail "top drew no table: $(screen)"
wait_until 15 shows "+ vnode3" || fail "top has no vnode3 row: $(screen)"
tmux_ send-keys -t top Down Enter  # the cursor to vnode2, expanded
wait_until 10 shows "  rank 3" || fail "Enter on vnode2 did not show its ranks: $(screen)"
s=$(screen)
[[ $s == *"- vnode2"*"  rank 2"*"  rank 3"*"+ vnode3"* ]] || fail "vnode2's ranks are not under it: $s"
tmux_ send-keys -t top s
wait_until 10 shows "vGAP%" || fail "s did not sort by the gap: $(screen)"
tmux_ send-keys -t top q
wait_until 10 shows "PROMPT>" || fail "q did not leave top: $(screen)"
s=$(screen)
[[ $s != *"NODE/RANK"* ]] || fail "the terminal still shows top after q (the alternate screen was not left): $s"
echo "top in tmux: table, Enter expands, s sorts by the gap, q gives the terminal back" >&2

wait_until 90 no_job_processes "$DETACHED" || fail "the detached job did not end"
# The ranks end before the head does (it shuts its links down, then writes the run's files): the head's last act.
prom_gone() { [[ ! -e $WORK/job.prom ]]; }
wait_until 30 prom_gone || fail "the Prometheus textfile is still there 30 s after the job's ranks ended"

# --- 3. an attached launch in a terminal ----------------------------------------------------------------------------
job attached
tmux_ new-window -t top -n launch "'$MUSTER' launch --job-id $JOB --transport local -w 'vnode[1-3]' --nproc-per-node 2 -- $PY $DDP --seconds 30; echo LAUNCH-EXIT-\$?; sleep 60"
launch_screen() { tmux_ capture-pane -p -t top:launch; }
status_shown() { [[ $(launch_screen) == *"muster: "*"steps/s"* ]]; }
wait_until 40 status_shown || fail "the launch's status line shows no steps/s: $(launch_screen)"
tmux_ new-window -t top -n top2 "'$MUSTER' top $JOB; echo TOP-EXIT-\$?; sleep 60"
top_screen() { tmux_ capture-pane -p -t top:top2; }
top_shows() { [[ $(top_screen) == *"+ vnode2"* ]]; }
wait_until 15 top_shows || fail "top on the attached job: $(top_screen)"
launch_done() { [[ $(launch_screen) == *LAUNCH-EXIT-0* ]]; }
wait_until 90 launch_done || fail "the attached launch did not end 0: $(launch_screen)"
top_done() { [[ $(top_screen) == *TOP-EXIT-0* ]]; }
wait_until 15 top_done || fail "top did not end with the job: $(top_screen)"
echo "attached launch: its status line has steps/s; top followed it to its end" >&2
