#!/usr/bin/env bash
# launch_kex_test.sh — the ssh key exchange muster asks for (--ssh-kex, MUSTER_SSH_KEX, config key ssh-kex;
# transport/ssh_kex.h) is the one the nodes' sshd actually negotiates: read from each sshd's own debug log, with
# cold connections (--no-multiplex). By default a classic method (curve25519-sha256), not OpenSSH 9's
# post-quantum default; `default` gives ssh's own choice (sntrup761x25519); a list, the environment and a
# muster.toml are obeyed, the flag beats the environment, a user's --ssh-option KexAlgorithms= beats them all;
# and a node whose sshd accepts only the post-quantum method is still reached (muster retries it with ssh's own
# choice: without that retry the launch fails).
# Exit 0 pass, 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # before `set -e`: see launch_ddp_test.sh
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=3 PQ=sntrup761x25519-sha512@openssh.com
readonly PQ_ANY='sntrup761x25519-sha512*'  # OpenSSH 9.2 logs the name without @openssh.com
launch_setup "$NODES"
STATE=$(dirname "$(dirname "$("$TESTBED" ssh-config)")")

sshd_log() { echo "$STATE/nodes/node$1/run/testbed/sshd.log"; }

# restart_sshd K [EXTRA-CONFIG-LINE]: node K's sshd logs at DEBUG1 (the negotiated kex), plus a line of config.
# sshd re-executes itself on SIGHUP with the new config; wait until it answers again.
restart_sshd() {
  local k=$1 config=$STATE/nodes/node$1/run/testbed/sshd_config i
  grep -q '^LogLevel DEBUG1$' "$config" || echo 'LogLevel DEBUG1' >>"$config"
  [[ -z ${2:-} ]] || echo "$2" >>"$config"
  "$TESTBED" exec "node$k" sh -c 'kill -HUP "$(cat /run/sshd.pid)"'
  for ((i = 0; i < 100; i++)); do
    sleep_s 0.05
    "${NODE_SSH[@]}" -o ConnectTimeout=2 "node$k" true 2>/dev/null && return 0
    [[ -n ${2:-} ]] && "${NODE_SSH[@]}" -o ConnectTimeout=2 -o KexAlgorithms=$PQ "node$k" true 2>/dev/null && return 0
  done
  fail "node$k's sshd did not come back after SIGHUP"
}

# negotiated K: the kex algorithm of the last connection in node K's sshd log.
negotiated() {
  grep -o 'kex: algorithm: [^ ]*' "$(sshd_log "$1")" | tail -n 1 | cut -d' ' -f3
}

# run NAME EXPECT1 EXPECT3 [ENV=V...] -- ARGS...: one cold launch of `true` on node[1-3]; the kex each node's sshd
# negotiated must match EXPECT1 (nodes 1 and 2) and EXPECT3 (node 3), glob patterns.
run() {
  local name=$1 want1=$2 want3=$3 envs=() k out got want
  shift 3
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  for ((k = 1; k <= NODES; k++)); do : >"$(sshd_log "$k")"; done
  out=$(env "${envs[@]}" XDG_CACHE_HOME="$MUX_HOME" "$MUSTER" launch -q "${MUSTER_SSH[@]}" --no-multiplex \
    --chdir / --run-dir "$SCRATCH/runs/$name" -w "node[1-$NODES]" "$@" -- true 2>&1) ||
    fail "$name: the launch failed: $out"
  for ((k = 1; k <= NODES; k++)); do
    got=$(negotiated "$k") want=$want1
    ((k < 3)) || want=$want3
    # shellcheck disable=SC2053  # $want is a glob pattern
    [[ $got == $want ]] || fail "$name: node$k negotiated '$got', expected '$want'"
  done
  step "$name: node1-2 $want1, node3 $want3"
}

step "sshd of every node at LogLevel DEBUG1"
for ((k = 1; k <= NODES; k++)); do restart_sshd "$k"; done

run default-is-fast curve25519-sha256 curve25519-sha256 --
run flag-default "$PQ_ANY" "$PQ_ANY" -- --ssh-kex default
run env-list ecdh-sha2-nistp256 ecdh-sha2-nistp256 MUSTER_SSH_KEX=ecdh-sha2-nistp256,curve25519-sha256 --
run flag-beats-env curve25519-sha256 curve25519-sha256 MUSTER_SSH_KEX=ecdh-sha2-nistp256 -- --ssh-kex fast
run ssh-option-wins diffie-hellman-group14-sha256 diffie-hellman-group14-sha256 -- --ssh-kex ecdh-sha2-nistp256 \
  --ssh-option KexAlgorithms=diffie-hellman-group14-sha256

step "a muster.toml with ssh-kex = \"default\""
mkdir -p "$SCRATCH/project"
echo 'ssh-kex = "default"' >"$SCRATCH/project/muster.toml"
(cd "$SCRATCH/project" && run config-file "$PQ_ANY" "$PQ_ANY" --)

step "node3's sshd accepts only $PQ"
restart_sshd 3 "KexAlgorithms $PQ"
out=$("${NODE_SSH[@]}" -o LogLevel=INFO -o KexAlgorithms=curve25519-sha256 node3 true 2>&1) &&
  fail "node3 still accepts curve25519-sha256"
assert_contains "$out" "no matching key exchange method" "plain ssh with curve25519 to node3"
run pq-only-node curve25519-sha256 "$PQ_ANY" --

step "an invalid choice is a usage error naming the value"
rc=0
out=$(XDG_CACHE_HOME=$MUX_HOME "$MUSTER" launch "${MUSTER_SSH[@]}" --ssh-kex 'x y' -w node1 -- true 2>&1) || rc=$?
assert_eq 2 "$rc" "exit code of --ssh-kex 'x y'"
assert_contains "$out" "'x y' is not"
step "pass"
