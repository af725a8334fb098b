#!/usr/bin/env bash
# shellcheck disable=SC2016  # the node commands are single-quoted on purpose: they expand on the node
# muster exec on virtual nodes (`--transport local` with named hosts: an agent per host on this machine, each
# calling itself by its host's name, MUSTER_NODE in the command's environment):
#   1. -b: identical outputs folded under one node set, largest group first (clush -b's headers); with --live the
#      lines as they come too;
#   2. live: every line behind its node's prefix, stdout and stderr apart;
#   3. the exit status is the worst node's, and the failures are listed, folded, at the end;
#   4. --timeout: a hanging node is stopped and named as timed out (exit 124), nothing of it left;
#   5. --diff and --json;
#   6. Ctrl-C (SIGINT to the head) stops the command on every node: exit 130, nothing left;
#   7. `@group` from muster.toml's [groups] in exec (also as `HOSTS --`) and launch, and a clear error for an
#      unknown group.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MARK=muster-exec-test-$$  # in every command this test starts on the nodes, to find what is left of them
SLEEP=$WORK/$MARK-sleep   # a sleep whose command line holds the mark
ln -s "$(command -v sleep)" "$SLEEP"
exec_local() { "$MUSTER" exec --transport local "$@"; }
leftovers() { pgrep -f "^$SLEEP" || true; }
kill_leftovers() { local p; for p in $(leftovers); do kill -KILL "$p" 2>/dev/null || true; done; }
trap 'kill_leftovers; cleanup_local_test' EXIT

# --- 1. gathered ---------------------------------------------------------------------------------------------------
exec_local -b -w 'vnode[1-6]' 'case $MUSTER_NODE in vnode3|vnode5) echo odd;; *) echo even; echo two;; esac' \
  >out 2>err || fail "-b exited $?: $(cat err)"
expected='---------------
vnode[1-2,4,6] (4)
---------------
even
two
---------------
vnode[3,5] (2)
---------------
odd'
assert_eq "$expected" "$(cat out)" "gathered output"
assert_eq "" "$(cat err)" "stderr of a clean -b run"
# --live: every line as it comes as well, the groups at the end.
exec_local -b --live -w 'vnode[1-2]' 'echo "hi $MUSTER_NODE"' >out 2>err || fail "-b --live exited $?: $(cat err)"
assert_eq "vnode1: hi vnode1
vnode2: hi vnode2" "$(grep ': hi' out | sort)" "-b --live: the live lines"
assert_contains "$(cat out)" "$(printf -- '---------------\nvnode1\n---------------\nhi vnode1')" "-b --live: the groups"

# --- 2. live -------------------------------------------------------------------------------------------------------
exec_local -w 'vnode[1-3]' 'echo "out $MUSTER_NODE"; echo "err $MUSTER_NODE" >&2; printf "no newline"' >out 2>err ||
  fail "live exited $?: $(cat err)"
assert_eq "vnode1: no newline
vnode1: out vnode1
vnode2: no newline
vnode2: out vnode2
vnode3: no newline
vnode3: out vnode3" "$(sort out)" "live stdout"
assert_eq "vnode1: err vnode1
vnode2: err vnode2
vnode3: err vnode3" "$(sort err)" "live stderr"
# Several words are the command's arguments, passed exactly (no shell on the node splits them again).
exec_local -w vnode1 printf '%s|' 'a b' '$HOME' >out 2>&1 || fail "argv exec exited $?: $(cat out)"
assert_eq 'vnode1: a b|$HOME|' "$(cat out)" "arguments kept exact"

# --- 3. the worst exit status ----------------------------------------------------------------------------------------
rc=0
exec_local -w 'vnode[1-5]' 'case $MUSTER_NODE in vnode2|vnode4) exit 3;; vnode5) exit 7;; esac' >out 2>err || rc=$?
assert_eq 7 "$rc" "exit status: the worst node's"
assert_contains "$(cat err)" "muster exec: vnode[2,4] (2): exit code 3" "failures folded"
assert_contains "$(cat err)" "muster exec: vnode5: exit code 7" "failures folded"
rc=0
exec_local -w 'vnode[1-2]' 'kill -9 $$' >out 2>err || rc=$?
assert_eq 137 "$rc" "exit status of a node's command killed by SIGKILL"
assert_contains "$(cat err)" "vnode[1-2] (2): killed by SIGKILL" "a signal named"

# --- 4. --timeout --------------------------------------------------------------------------------------------------
start=$EPOCHREALTIME
rc=0
exec_local --timeout 1 -b -w 'vnode[1-4]' \
  'echo started; if [ $MUSTER_NODE = vnode3 ]; then exec '"$SLEEP"' 60; fi' >out 2>err || rc=$?
assert_faster 8 "$start" "a run with a 1 s --timeout"
assert_eq 124 "$rc" "exit status with a node timed out"
assert_contains "$(cat err)" "muster exec: vnode3: timed out after 1 s (stopped)" "the hanging node named"
assert_contains "$(cat out)" "vnode[1-2,4] (3)" "the nodes that finished, gathered"
sleep 0.5
assert_eq "" "$(leftovers)" "processes left of the timed-out command"

# --- 5. --diff and --json ------------------------------------------------------------------------------------------
exec_local --diff -w 'vnode[1-4]' 'echo torch 2.1; [ $MUSTER_NODE = vnode2 ] && echo cuda 11 || echo cuda 12' \
  >out 2>err || fail "--diff exited $?: $(cat err)"
assert_eq '---------------
vnode[1,3-4] (3)
---------------
torch 2.1
cuda 12
--- vnode[1,3-4] (3)
+++ vnode2
@@ -1,2 +1,2 @@
 torch 2.1
-cuda 12
+cuda 11' "$(cat out)" "--diff"
rc=0
exec_local --json -w 'vnode[1-3]' 'echo hi; [ $MUSTER_NODE != vnode2 ]' >out 2>err || rc=$?
assert_eq 1 "$rc" "--json exit status"
assert_eq "1 3 vnode[1,3] exited 1" "$(python3 -c '
import json, sys
j = json.load(open("out"))
g = j["groups"]
print(j["exit_code"], len(j["nodes"]), g[0]["nodes"], j["nodes"][1]["ending"], j["nodes"][1]["exit_status"])')" \
  "--json fields"

# --- 6. Ctrl-C -----------------------------------------------------------------------------------------------------
start_bg ctrlc.out exec --transport local -w 'vnode[1-4]' "echo up; exec $SLEEP 60"
up() { (($(grep -c ': up$' ctrlc.out) == 4)) && (($(leftovers | wc -l) == 4)); }
wait_until 20 up || fail "the commands did not start: $(cat ctrlc.out)"
start=$EPOCHREALTIME
kill -INT "$BG_PID"
wait_bg "$BG_PID" 10
assert_eq 130 "$BG_RC" "exit status after Ctrl-C"
assert_faster 5 "$start" "stopping after Ctrl-C"
assert_eq "" "$(leftovers)" "processes left after Ctrl-C"
assert_contains "$(cat ctrlc.out)" "vnode[1-4] (4): stopped by muster (interrupted)" "the stopped nodes listed"

# --- 7. node groups ------------------------------------------------------------------------------------------------
cat >muster.toml <<'TOML'
[groups]
odd = "vnode[1,3,5]"
even = ["vnode2", "vnode4"]
all = "@odd,@even"
TOML
exec_local -b -w '@all,-@even' 'echo $MUSTER_NODE' >out 2>err || fail "exec -w @group exited $?: $(cat err)"
assert_eq "$(printf -- '---------------\nvnode1\n---------------\nvnode1\n---------------\nvnode3\n---------------\nvnode3\n---------------\nvnode5\n---------------\nvnode5')" \
  "$(cat out)" "exec on @all,-@even"
exec_local -b @even -- 'echo $MUSTER_NODE' >out 2>err || fail "exec @group -- exited $?: $(cat err)"
assert_contains "$(cat out)" "vnode4" "exec @even -- CMD"
exec_local -b -w '@all' -x '@odd' 'echo x' >out 2>err || fail "exec -x @group exited $?: $(cat err)"
assert_contains "$(cat out)" "vnode[2,4] (2)" "exec -w @all -x @odd"
job groups
"$MUSTER" launch -q --job-id "$JOB" --transport local -w @even -- sh -c 'echo "$MUSTER_NODE $RANK"' >out 2>err ||
  fail "launch -w @group exited $?: $(cat err)"
assert_eq "vnode2 0
vnode4 1" "$(sed 's/^\[[^]]*\] //' out | sort)" "launch on @even"
rc=0
exec_local -w @evn hostname >out 2>&1 || rc=$?
assert_eq 2 "$rc" "exit status for an unknown group"
assert_contains "$(cat out)" "unknown node group @evn, did you mean @even?" "unknown group"
