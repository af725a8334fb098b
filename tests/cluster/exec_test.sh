#!/usr/bin/env bash
# shellcheck disable=SC2016  # the node commands are single-quoted on purpose: they expand on the nodes
# exec_test.sh — `muster exec` on the testbed (6 nodes), against ClusterShell's clush on the same commands:
#   1. outputs that differ on some nodes are grouped exactly as `clush -S -b` groups them (byte for byte when every
#      node exits 0; the same groups when exit codes differ too), and the exit status is the worst node's, as
#      clush -S's;
#   2. a hanging node is stopped at --timeout and named as timed out (exit 124), nothing of it left on the node;
#   3. Ctrl-C (SIGINT to muster; then typed in a terminal, as the command starts over new ssh connections) stops
#      the command on every node: exit 130 within a few seconds, no process of the command and no muster agent
#      left on any node;
#   4. a node that is down (`testbed kill-node`) is named as not reached, the other nodes' outputs are there,
#      exit 255 (ssh's), within --connect-timeout plus a margin.
# Needs root (77 without) and clush (Debian's clustershell: scripts/install-deps).
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # before `set -e`: see launch_ddp_test.sh
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=6
command -v clush >/dev/null || fail "clush is not installed (apt-get install clustershell: scripts/install-deps)"

MARK=exec-test-$$  # in the environment of every command this test runs on the nodes
muster_exec() { XDG_CACHE_HOME=$MUX_HOME "$MUSTER" exec "${MUSTER_SSH[@]}" --env "EXEC_TEST=$MARK" "$@"; }
clush_b() {
  local ssh=()
  ((${#MUSTER_SSH[@]} == 0)) || ssh=(-o "-F ${MUSTER_SSH[1]}")
  clush "${ssh[@]}" -S -b "$@"  # -S: the largest exit code, as muster
}

# Processes on NODE whose environment holds EXEC_TEST=$MARK ("pid cmdline").
marked_on() {
  "$TESTBED" exec "$1" sh -c '
    for f in $(grep -lzxF "EXEC_TEST=$1" /proc/[0-9]*/environ 2>/dev/null); do
      pid=${f#/proc/}; pid=${pid%/environ}
      cmd=$(tr "\0\n" "  " <"/proc/$pid/cmdline" 2>/dev/null) && [ -n "$cmd" ] && echo "$pid $cmd"
    done; true' scan "$MARK" 2>/dev/null || true
}
all_marked() { local k; for ((k = 1; k <= NODES; k++)); do marked_on "node$k" | sed "s/^/node$k: /"; done; }
none_marked() { [[ -z $(all_marked) ]]; }

# The gathered blocks of clush -b / muster exec -b output, one "nodeset<TAB>content" line each, sorted.
blocks() {
  python3 -c '
import sys
text = open(sys.argv[1]).read().split("\n")
blocks, i = [], 0
while i < len(text):
    if text[i] == "-" * 15 and i + 2 < len(text) and text[i + 2] == "-" * 15:
        head, body, i = text[i + 1], [], i + 3
        while i < len(text) and not (text[i] == "-" * 15 and i + 2 < len(text) and text[i + 2] == "-" * 15):
            body.append(text[i]); i += 1
        blocks.append(head + "\t" + "\\n".join(body).rstrip("\\n"))
    else:
        i += 1
print("\n".join(sorted(blocks)))' "$1"
}

compare_with_clush() {
  local name=$1 cmd=$2 m_rc=0 c_rc=0
  muster_exec -b -w "node[1-$NODES]" "$cmd" >"$SCRATCH/$name.muster" 2>"$SCRATCH/$name.muster.err" || m_rc=$?
  clush_b -w "node[1-$NODES]" "$cmd" >"$SCRATCH/$name.clush" 2>"$SCRATCH/$name.clush.err" || c_rc=$?
  [[ -s $SCRATCH/$name.clush ]] || fail "$name: clush printed nothing (exit $c_rc): $(cat "$SCRATCH/$name.clush.err")"
  assert_eq "$c_rc" "$m_rc" "$name: exit status (clush's: the worst node's)"
  LAST_RC=$m_rc
  assert_eq "$(blocks "$SCRATCH/$name.clush")" "$(blocks "$SCRATCH/$name.muster")" \
    "$name: groups (clush -b: $(cat "$SCRATCH/$name.clush"))"
}

main() {
  launch_setup "$NODES"
  step "a first run uploads the binary"
  muster_exec -w "node[1-$NODES]" true >"$SCRATCH/first.out" 2>&1 || fail "first exec: $(cat "$SCRATCH/first.out")"

  step "1. grouping as clush -b"
  local cmd='case $(hostname) in node2|node5) echo special; uname -s;; node3) echo three;; *) echo common; echo line2;; esac'
  compare_with_clush same-status "$cmd"
  cmp -s "$SCRATCH/same-status.clush" "$SCRATCH/same-status.muster" ||
    fail "1. not byte for byte clush -b's output:"$'\n'"$(diff "$SCRATCH/same-status.clush" "$SCRATCH/same-status.muster")"
  compare_with_clush exit-codes 'case $(hostname) in node2) echo a; exit 3;; node4) echo a; exit 1;; node6) exit 2;; *) echo a;; esac'
  assert_eq 3 "$LAST_RC" "1. the worst exit status"
  assert_contains "$(cat "$SCRATCH/exit-codes.muster.err")" "node2: exit code 3" "1. failures listed"
  assert_contains "$(cat "$SCRATCH/exit-codes.muster.err")" "node6: exit code 2" "1. failures listed"

  step "2. a hanging node is named as timed out"
  local rc=0 start
  start=$(now_us)
  muster_exec --timeout 2 -w "node[1-$NODES]" 'if [ $(hostname) = node4 ]; then exec sleep 300; fi; echo done' \
    >"$SCRATCH/hang.out" 2>"$SCRATCH/hang.err" || rc=$?
  assert_eq 124 "$rc" "2. exit status (output: $(cat "$SCRATCH/hang.out" "$SCRATCH/hang.err"))"
  assert_contains "$(cat "$SCRATCH/hang.err")" "muster exec: node4: timed out after 2 s (stopped)" "2. the hanging node"
  assert_eq 5 "$(grep -c ': done$' "$SCRATCH/hang.out")" "2. the other nodes' lines"
  (($(ms_between "$start" "$(now_us)") < 10000)) || fail "2. took $(ms_between "$start" "$(now_us)") ms"
  wait_until 3 none_marked || fail "2. left on the nodes: $(all_marked)"

  step "3. Ctrl-C stops the command everywhere"
  XDG_CACHE_HOME=$MUX_HOME "$MUSTER" exec "${MUSTER_SSH[@]}" --env "EXEC_TEST=$MARK" -w "node[1-$NODES]" \
    'echo up; exec sleep 300' >"$SCRATCH/ctrlc.out" 2>&1 &
  MUSTER_PID=$!
  all_up() { (($(all_marked | grep -c 'sleep 300') == NODES)); }
  wait_until 20 all_up || fail "3. the commands did not start: $(cat "$SCRATCH/ctrlc.out")"
  start=$(now_us)
  kill -INT "$MUSTER_PID"
  wait_exit "$MUSTER_PID" 10
  assert_eq 130 "$EXIT_RC" "3. exit status after Ctrl-C (output: $(cat "$SCRATCH/ctrlc.out"))"
  (($(ms_between "$start" "$EXIT_US") < 5000)) || fail "3. took $(ms_between "$start" "$EXIT_US") ms to stop"
  wait_until 2 none_marked || fail "3. left on the nodes: $(all_marked)"
  assert_no_agents 3
  step "3. stopped in $(fmt_ms "$(ms_between "$start" "$EXIT_US")") s, nothing left"

  step "3b. Ctrl-C typed in a terminal while muster opens new ssh connections (every master closed first)"
  local sock
  for sock in "$MUX_HOME"/muster/ssh/*; do
    [[ -S $sock ]] && timeout 5 ssh -F /dev/null -o ControlPath="$sock" -O exit x >/dev/null 2>&1
  done
  rc=0
  python3 "$CLUSTER_TEST_DIR/../local/on_pty.py" "$SCRATCH/pty.out" 60 --ctrl-c-after ": up" -- \
    env XDG_CACHE_HOME="$MUX_HOME" "$MUSTER" exec "${MUSTER_SSH[@]}" --env "EXEC_TEST=$MARK" -w "node[1-$NODES]" \
    'echo up; exec sleep 300' || rc=$?
  assert_eq 130 "$rc" "3b. exit status after Ctrl-C in a terminal (output: $(cat "$SCRATCH/pty.out"))"
  wait_until 3 none_marked || fail "3b. left on the nodes: $(all_marked)"
  assert_no_agents 3
  step "3b. nothing left; muster said: $(grep 'muster exec:' "$SCRATCH/pty.out" | tr -d '\r' | tr '\n' ' ')"

  step "4. a node that is down is named"
  "$TESTBED" kill-node node6
  rc=0
  start=$(now_us)
  muster_exec --connect-timeout 2 -b -w "node[1-$NODES]" 'echo up' >"$SCRATCH/down.out" 2>"$SCRATCH/down.err" || rc=$?
  local took
  took=$(ms_between "$start" "$(now_us)")
  assert_eq 255 "$rc" "4. exit status (output: $(cat "$SCRATCH/down.out" "$SCRATCH/down.err"))"
  assert_contains "$(cat "$SCRATCH/down.err")" "muster exec: node6: not reached:" "4. the down node"
  assert_contains "$(cat "$SCRATCH/down.out")" "node[1-5] (5)" "4. the other nodes' output"
  ((took < 8000)) || fail "4. took $took ms"
  step "4. named after $(fmt_ms "$took") s: $(grep node6 "$SCRATCH/down.err")"
  step "PASS"
}

main
