#!/usr/bin/env bash
# launch_master_test.sh — with its ssh masters open, muster opens each node's session on the master itself (the mux
# protocol over the control socket, transport/ssh_master.h) and starts no ssh client at all: a launch with no ssh
# on PATH still runs on every node, with byte-exact output. A master killed with SIGKILL (its socket left behind)
# is replaced by a new one; a master whose server refuses another session (sshd MaxSessions 1, one session busy)
# makes muster start a connection of its own for that node; a head killed while its jobs run on master sessions
# leaves no job process (the closed control connection ends each session).
# Exit 0 pass, 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # before `set -e`: see launch_ddp_test.sh
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=3
launch_setup "$NODES"
STATE=$(dirname "$(dirname "$("$TESTBED" ssh-config)")")
SOCKETS=$MUX_HOME/muster/ssh

# hostnames RUN: rank k's log must be exactly "node<k+1>\n".
check_hostnames() {
  local run=$1 k
  for ((k = 0; k < NODES; k++)); do
    assert_eq "node$((k + 1))" "$(cat "$run/rank-$k.log")" "$run/rank-$k.log"
  done
}

sshd_up() { "${NODE_SSH[@]}" -o ConnectTimeout=2 "$1" true 2>/dev/null; }
dead() { ! kill -0 "$1" 2>/dev/null; }
jobs_started() { (($(count_job_processes "$1") >= NODES)); }
agent_on() { grep -q . <<<"$(agent_pids_on "$1")"; }
masters() { find "$SOCKETS" -maxdepth 1 -type s 2>/dev/null | sort; }
master_pid() { ssh -F /dev/null -o ControlPath="$1" -O check muster-test 2>&1 | sed -n 's/.*pid=\([0-9]*\).*/\1/p'; }

step "first launch: one ssh client per node, each becomes a master"
muster_launch -q --chdir / --run-dir "$SCRATCH/first" -w "node[1-$NODES]" -- hostname >/dev/null ||
  fail "first launch failed"
check_hostnames "$SCRATCH/first"
mapfile -t SOCKS < <(masters)
assert_eq "$NODES" "${#SOCKS[@]}" "master sockets in $SOCKETS"

step "with the masters open, no ssh client is needed: PATH holds no ssh"
mkdir -p "$SCRATCH/empty-bin"
out=$(PATH=$SCRATCH/empty-bin muster_launch -q --chdir / --run-dir "$SCRATCH/no-ssh" -w "node[1-$NODES]" -- hostname 2>&1) ||
  fail "launch over the masters without ssh on PATH failed: $out"
check_hostnames "$SCRATCH/no-ssh"
# The same, with a command line whose output is long and binary: sessions carry every byte.
out=$(PATH=$SCRATCH/empty-bin muster_launch -q --chdir / --run-dir "$SCRATCH/bytes" -w "node[1-$NODES]" \
  -- sh -c 'head -c 3000000 /dev/zero | tr "\0" "x"; printf "\001\377\n"' 2>&1) || fail "byte test failed: $out"
expected=$( { head -c 3000000 /dev/zero | tr '\0' x; printf '\001\377\n'; } | md5sum)
for ((k = 0; k < NODES; k++)); do
  assert_eq "$expected" "$(md5sum <"$SCRATCH/bytes/rank-$k.log")" "rank $k's log over a master session"
done
step "over the masters: output byte-exact on every node"

step "a master killed with SIGKILL leaves its socket; the next launch makes a new master"
pid=$(master_pid "${SOCKS[1]}")
[[ $pid =~ ^[0-9]+$ ]] || fail "no pid for the master at ${SOCKS[1]}"
kill -KILL "$pid"
wait_until 5 dead "$pid" || fail "master $pid did not die"
[[ -S ${SOCKS[1]} ]] || fail "the killed master's socket is gone; the test needs it stale"
out=$(muster_launch -q --chdir / --run-dir "$SCRATCH/stale" -w "node[1-$NODES]" -- hostname 2>&1) ||
  fail "launch after a master was killed failed: $out"
check_hostnames "$SCRATCH/stale"
new_pid=$(master_pid "${SOCKS[1]}")
[[ $new_pid =~ ^[0-9]+$ && $new_pid != "$pid" ]] || fail "no new master at ${SOCKS[1]} (pid '$new_pid', old $pid)"

step "a head killed with SIGKILL while its ranks run on master sessions leaves nothing"
start_muster "$SCRATCH/killed.out" --chdir / --run-dir "$SCRATCH/killed" --job-id master-kill \
  -w "node[1-$NODES]" -- sleep 60
wait_until 10 jobs_started master-kill || fail "the sleeps did not start: $(cat "$SCRATCH/killed.out")"
kill -KILL "$MUSTER_PID"
wait_exit "$MUSTER_PID" 5
assert_no_job_processes master-kill 3
step "no job process $GONE_MS ms after the head's SIGKILL"

step "node1's sshd allows one session per connection: a second launch gets a connection of its own"
for sock in "${SOCKS[@]}"; do ssh -F /dev/null -o ControlPath="$sock" -O exit muster-test >/dev/null 2>&1 || true; done
config=$STATE/nodes/node1/run/testbed/sshd_config
sed -i 's/^MaxSessions .*/MaxSessions 1/' "$config"  # sshd keeps the first value of an option
grep -qx 'MaxSessions 1' "$config" || fail "could not set MaxSessions 1 in $config"
"$TESTBED" exec node1 sh -c 'kill -HUP "$(cat /run/sshd.pid)"'
wait_until 5 sshd_up node1 || fail "node1's sshd did not come back"
start_muster "$SCRATCH/busy.out" --chdir / --run-dir "$SCRATCH/busy" -w node1 -- sleep 4
wait_until 10 agent_on node1 || fail "the first launch did not start"
out=$(PATH=$SCRATCH/empty-bin muster_launch -q --chdir / --run-dir "$SCRATCH/full-no-ssh" -w node1 -- hostname 2>&1) &&
  fail "a second session on a MaxSessions 1 master worked without ssh: the test proves nothing"
assert_contains "$out" "refused the session" "the refusal named in the error"
out=$(muster_launch -q --chdir / --run-dir "$SCRATCH/full" -w node1 -- hostname 2>&1) ||
  fail "second launch while node1's master is full failed: $out"
assert_eq node1 "$(cat "$SCRATCH/full/rank-0.log")" "the second launch's output"
wait_exit "$MUSTER_PID" 15
assert_eq 0 "$EXIT_RC" "the first (busy) launch: $(cat "$SCRATCH/busy.out")"
step "pass"
