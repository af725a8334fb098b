#!/usr/bin/env bash
# launch_logs_test.sh — per-rank logs and the manifest of `muster launch` on 2 nodes x 2 workers.
#   1. Every worker writes known bytes to stdout, in several writes with pauses: \r progress updates, CRLF
#      lines, a line split across writes, escapes / tabs / invalid UTF-8, 2000 short lines, one 200 KB line,
#      and a partial last line (no newline). Every rank-N.log must be byte-identical (cmp) to what that rank
#      wrote (the same script run on the head). The terminal shows each rank's partial last line.
#   2. manifest.json (python3 json): nodes node1, node2 with node ranks 0, 1, hostnames, ranks [0,1] / [2,3],
#      world size 4, the command, and each rank's exit code (rank 3 exits 3 after the others exited 0; the
#      job's exit code is 3).
#   3. rank-N.log is written as the output arrives, not only when the job ends: a line a worker printed shows
#      up in its log within 2 s while the worker is still running (tail -f on a log is how users watch a rank,
#      and a head that dies must not lose what it had received).
# Exit 0 pass, 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # before `set -e`: see launch_ddp_test.sh
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=2 PER_NODE=2 WORLD=4 FAILING_RANK=3
# What each rank writes (rank 3 exits 3 a while after everyone else exited 0): the same script on the head makes
# the expected logs.
readonly EMIT=(sh tests/cluster/scripts/emit_known_bytes.sh "$FAILING_RANK")

logs_and_manifest() {
  local run=$SCRATCH/logs out=$SCRATCH/logs.out r expected
  step "2 nodes x 2 workers write known bytes"
  start_muster "$out" --run-dir "$run" -w "node[1-$NODES]" --nproc-per-node "$PER_NODE" -- "${EMIT[@]}"
  wait_exit "$MUSTER_PID" 30
  assert_eq "$FAILING_RANK" "$EXIT_RC" "job exit status (rank $FAILING_RANK exits $FAILING_RANK; output: $(tail -n 20 "$out" | cat -v))"
  for ((r = 0; r < WORLD; r++)); do
    expected=$SCRATCH/expected-$r
    RANK=$r NODE_RANK=$((r / PER_NODE)) "${EMIT[@]}" >"$expected" || true
    [[ -f $run/rank-$r.log ]] || fail "no $run/rank-$r.log"
    cmp "$expected" "$run/rank-$r.log" ||
      fail "rank-$r.log differs from what rank $r wrote ($(wc -c <"$expected") bytes expected, $(wc -c <"$run/rank-$r.log") logged)"
    # The terminal gets the partial last line too (flushed when the rank ends).
    grep -qaF "[node$((r / PER_NODE + 1)):$r] last line without newline $r" "$out" ||
      fail "the terminal does not show rank $r's partial last line:"$'\n'"$(grep -a "node.:$r\]" "$out" | tail -n 5 | cat -v)"
  done
  step "rank-0..3.log are byte-identical to what each rank wrote ($(wc -c <"$SCRATCH/expected-0") bytes each)"
  /usr/bin/python3 - "$run/manifest.json" "$WORLD" "$FAILING_RANK" <<'EOF' || fail "manifest.json check failed"
import json, sys
path, world, failing = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
m = json.load(open(path))
def check(cond, what):
    if not cond:
        sys.exit(f"manifest.json: {what}\n{json.dumps(m, indent=1)[:3000]}")
nodes = m["nodes"]
check([n["host"] for n in nodes] == ["node1", "node2"], f"hosts {[n['host'] for n in nodes]}")
check([n["hostname"] for n in nodes] == ["node1", "node2"], "hostnames reported by the agents")
check([n["node_rank"] for n in nodes] == [0, 1], "node ranks")
check([[x["rank"] for x in n["ranks"]] for n in nodes] == [[0, 1], [2, 3]], "ranks per node")
check([[x["local_rank"] for x in n["ranks"]] for n in nodes] == [[0, 1], [0, 1]], "local ranks per node")
check(m["world_size"] == world, "world_size")
check(m["command"][:2] == ["sh", "tests/cluster/scripts/emit_known_bytes.sh"], f"command {m['command'][:2]}")
check(m["exit_code"] == failing, f"exit_code {m['exit_code']}")
ranks = m["attempts"][-1]["ranks"]
check(sorted(ranks, key=int) == [str(r) for r in range(world)], f"ranks listed {sorted(ranks)}")
for r in range(world):
    code = ranks[str(r)]["code"]
    check(code == (failing if r == failing else 0), f"rank {r} code {code}")
    check(ranks[str(r)]["state"] == "exited", f"rank {r} state {ranks[str(r)]['state']}")
EOF
  step "manifest.json: hosts, node ranks, ranks, exit codes (rank $FAILING_RANK: $FAILING_RANK, others 0)"
}

logs_are_live() {
  local run=$SCRATCH/live out=$SCRATCH/live.out r t0
  step "logs while the job runs: each rank prints one line, then sleeps"
  # shellcheck disable=SC2016
  start_muster "$out" --run-dir "$run" -w "node[1-$NODES]" --nproc-per-node "$PER_NODE" --grace 1 \
    -- sh -c 'echo "rank $RANK is running"; exec sleep 30'
  all_running() { (($(grep -c "is running" "$out") == WORLD)); }
  wait_until 20 all_running || fail "the ranks did not start: $(cat "$out")"
  t0=$(now_us)
  for ((r = 0; r < WORLD; r++)); do
    wait_until 2 grep -q "^rank $r is running$" "$run/rank-$r.log" ||
      fail "rank-$r.log is still $(wc -c <"$run/rank-$r.log" 2>/dev/null || echo 0) bytes 2 s after the terminal showed its line (logs are written only at the end?)"
  done
  step "every rank-N.log shows its line $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s after the terminal did"
  kill -TERM "$MUSTER_PID"
  wait_exit "$MUSTER_PID" 10
}

main() {
  launch_setup "$NODES"
  logs_and_manifest
  logs_are_live
  step "PASS"
}

main
