#!/usr/bin/env bash
# telemetry_report_test.sh — report.html of a job with a restart and a straggler, opened in a real browser
# (Debian's chromium, headless): 3 virtual nodes x 2 ranks of DDP (Debian's torch, gloo); rank 5 fails on purpose in
# the first attempt (--restart-on any restarts the job); in the second, rank 3's process is put under a cgroup CPU
# limit of its own (a slow machine for that rank alone), so it is named a straggler with its cgroup as the likely
# cause (a 20 s window and a 25 % threshold: this test's 6 ranks share 2 loaded cores, and it must be short). The
# page, rendered by chromium, shows every rank's series (the straggler's marked), each node's, and the job's events
# on the charts and in the table: start, failure, restart, straggler, end; `why` and the manifest name the
# straggler; `muster report` writes the same page again. Needs root for the cgroup (exit 77 without it; a failure
# with MUSTER_REQUIRE_CLUSTER=1). MUSTER_REPORT_SCREENSHOT=FILE also saves a screenshot (docs/images/report.png).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
needs_slow_cpu

export XDG_STATE_HOME=$WORK/state
export XDG_CACHE_HOME=$WORK/cache
PY=/usr/bin/python3
"$PY" -c 'import torch' 2>/dev/null || fail "needs Debian's python3-torch (scripts/install-deps)"
command -v chromium >/dev/null || fail "needs Debian's chromium (scripts/install-deps)"
DDP=$LOCAL_TEST_DIR/../cluster/scripts/ddp_telemetry.py
SLOW_RANK=3

job report
mkdir -p pids
start_bg out launch --job-id "$JOB" --transport local -w 'vnode[1-3]' --nproc-per-node 2 --max-restarts 1 \
  --restart-on any --straggler-window 20 --straggler-threshold 25 -- "$PY" "$DDP" --seconds 60 --pid-dir "$WORK/pids" --fail-rank 5 --fail-after 8
head=$BG_PID
restarted() { grep -q "attempt 2" out; }
wait_until 90 restarted || fail "no restart: $(tail -20 out)"
rm -f pids/*.pid
second_attempt_up() { [[ -s pids/rank-$SLOW_RANK.pid ]]; }
wait_until 60 second_attempt_up || fail "the second attempt's rank $SLOW_RANK wrote no pid"
make_slow_cpu 8
echo "$(cat "pids/rank-$SLOW_RANK.pid")" >"$SLOW_CGROUP/cgroup.procs"
named() { grep -q "straggler: rank $SLOW_RANK on vnode2" out; }
wait_until 60 named || fail "rank $SLOW_RANK was not named within 60 s of its slowdown: $(tail -30 out)"
wait_bg "$head" 120
[[ $BG_RC == 0 ]] || fail "the job exited $BG_RC: $(tail -20 out)"
notice=$(grep "straggler: rank $SLOW_RANK on vnode2" out)
assert_contains "$notice" "its CPU cgroup" "the straggler's likely cause"
echo "launch output: $notice" >&2
run=muster-runs/$JOB
assert_eq "$SLOW_RANK vnode2" "$(manifest_get "$run" "' '.join(str(s[k]) for s in m['telemetry']['stragglers'] for k in ('rank', 'node'))")" \
  "the manifest's stragglers"
why=$("$MUSTER" why "$JOB")
assert_contains "$why" "rank $SLOW_RANK on vnode2 (attempt 2)" "why names the straggler"

# The page as chromium renders it (the DOM after its script ran).
render() {
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$WORK/chromium" \
    --dump-dom "file://$1" 2>/dev/null
}
render "$WORK/$run/report.html" >dom.html || fail "chromium could not render report.html"
"$PY" - dom.html "$SLOW_RANK" <<'PYEOF' || fail "report.html as chromium rendered it (dom.html: $(head -c 300 dom.html))"
import re, sys
dom = open(sys.argv[1]).read()
slow = sys.argv[2]
assert 'data-rendered="yes"' in dom, "the script did not run to its end"
charts = re.findall(r'<svg[^>]*class="chart"[^>]*data-title="([^"]*)"', dom)
for title in ("Step time per rank", "Compute per step per rank", "Waiting per step per rank", "CPU busy", "Memory used"):
    assert title in charts, (title, charts)
ranks = set(re.findall(r'<path[^>]*class="series[^"]*"[^>]*data-rank="(\d+)"', dom))
assert ranks == {str(r) for r in range(6)}, ranks
marked = re.findall(r'<path[^>]*class="series straggler"[^>]*data-rank="(\d+)"', dom)
assert set(marked) == {slow}, marked
drawn = re.findall(r'<path d="M[^"]*L[^"]*"[^>]*data-rank="%s"' % slow, dom)
assert drawn, "the straggler's series has no line"
nodes = set(re.findall(r'<path[^>]*data-node="(vnode\d)"', dom))
assert nodes == {"vnode1", "vnode2", "vnode3"}, nodes
kinds = re.findall(r'<line[^>]*class="event"[^>]*data-kind="([^"]*)"', dom)
for kind in ("start", "failure", "restart", "straggler", "end"):
    assert kind in kinds, (kind, set(kinds))
rows = re.findall(r'<tr class="([^"]*)" data-kind="[^"]*"><td>[^<]*</td><td[^>]*>[^<]*</td><td>([^<]*)</td>', dom)
text = {kind: what for kind, what in rows}
assert "rank 5 on vnode3" in text["failure"], text
assert "attempt 2" in text["restart"], text
order = [kind for kind, _ in rows]
assert order.index("failure") < order.index("restart"), ("the failure comes before the restart it caused", order)
assert "rank %s on vnode2" % slow in text["straggler"] and "cgroup" in text["straggler"], text
assert "http://" not in dom.replace("http://www.w3.org/2000/svg", "") and "https://" not in dom
PYEOF
echo "chromium: 6 rank series (rank $SLOW_RANK marked), 3 nodes, events start/failure/restart/straggler/end" >&2
# muster report: the same page from the run directory alone.
again=$("$MUSTER" report "$JOB" -o "$WORK/again.html")
assert_eq "$WORK/again.html" "$again" "muster report's output"
render "$WORK/again.html" >dom2.html
grep -q 'class="series straggler"' dom2.html || fail "muster report's page has no straggler marked"
if [[ -n ${MUSTER_REPORT_SCREENSHOT:-} ]]; then
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$WORK/chromium" \
    --window-size=1300,2000 --screenshot="$MUSTER_REPORT_SCREENSHOT" "file://$WORK/$run/report.html" 2>/dev/null
fi
