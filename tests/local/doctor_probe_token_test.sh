#!/usr/bin/env bash
# doctor's TCP checks accept only their own peers (doctor/probe_token.h): the node side of `doctor --bandwidth`
# (`muster node bw`) and of the master-port check (`muster node cross --master-...`), run here on loopback as two nodes would
# run them, with a stray TCP connection reaching the listener first. The stray connection must not change the
# result: the real sender's link is measured ("bw ok", the receiver "served 1"), and the real connecting node
# "reached" the listener, which counted it and only it ("accepted 1").
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
export MUSTER_PROBE_TOKEN=$token

free_port() { "$MUSTER" node bw --pick-port | awk '{print $2}'; }

# stray PORT: opens fd 3 to 127.0.0.1:PORT once something listens there, and keeps it open (silent).
stray() {
  local i
  for ((i = 0; i < 200; i++)); do
    if exec 3<>"/dev/tcp/127.0.0.1/$1"; then return 0; fi 2>/dev/null
    sleep 0.02
  done
  fail "nothing listened on port $1"
}

# --- bandwidth probe ----------------------------------------------------------------------------------------------
port=$(free_port)
"$MUSTER" node bw --listen "$port" --accept 1 --seconds 0.3 --warmup 0.05 --timeout-ms 8000 >served.out 2>&1 &
receiver=$!
stray "$port"
"$MUSTER" node bw --to "127.0.0.1:$port" --seconds 0.3 --warmup 0.05 --timeout-ms 8000 >sent.out 2>&1 || true
wait "$receiver" || true
exec 3>&-
assert_contains "$(cat sent.out)" "bw ok" "the sender's result with a stray connection on the port"
assert_eq "served 1" "$(cat served.out)" "the receiver's count with a stray connection on the port"

# --- master-port check --------------------------------------------------------------------------------------------
port=$(free_port)
"$MUSTER" node cross --master-listen "$port" --master-expect 1 --seconds 5 >listened.out 2>&1 &
listener=$!
stray "$port"
"$MUSTER" node cross --master-connect "127.0.0.1:$port" --seconds 5 >connected.out 2>&1 || true
wait "$listener" || true
exec 3>&-
assert_eq "master reached" "$(cat connected.out)" "the connecting node's result with a stray connection on the port"
assert_eq "master accepted 1" "$(cat listened.out)" "the listener's count with a stray connection on the port"

# --- another run's token is a stray too ---------------------------------------------------------------------------
port=$(free_port)
"$MUSTER" node cross --master-listen "$port" --master-expect 1 --seconds 3 >listened.out 2>&1 &
listener=$!
stray "$port"
exec 3>&-
MUSTER_PROBE_TOKEN=someone-elses "$MUSTER" node cross --master-connect "127.0.0.1:$port" --seconds 3 >connected.out 2>&1 ||
  true
wait "$listener" || true
assert_contains "$(cat connected.out)" "master unreachable" "a node of another run"
assert_eq "master accepted 0" "$(cat listened.out)" "the listener's count after only strays"
