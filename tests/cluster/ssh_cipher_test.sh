#!/usr/bin/env bash
# ssh_cipher_test.sh — the ssh cipher muster asks for (--ssh-cipher, MUSTER_SSH_CIPHER, config key ssh-cipher;
# transport/ssh_cipher.h) is the one the nodes' sshd actually negotiates, read from each sshd's own debug log, with
# cold connections (a new ssh master per run). By default AES-GCM where this CPU has AES instructions (ssh's own
# choice, chacha20-poly1305, where it has not), also on the nodes' own hops of a relay chain; `default` gives ssh's
# own order (chacha20-poly1305 first); a list, the environment and a muster.toml are obeyed, the flag beats the
# environment; a malformed value is a usage error. (That a user's --ssh-option Ciphers= comes first, so ssh keeps it,
# is a unit test: tests/unit/transport/ssh_command_test.cc.)
# Exit 0 pass, 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=3 CHACHA=chacha20-poly1305@openssh.com
launch_setup "$NODES" --mesh
STATE=$(dirname "$(dirname "$("$TESTBED" ssh-config)")")
if grep -qE '^(flags|Features)[[:space:]]*:.* aes( |$)' /proc/cpuinfo; then AUTO=aes128-gcm@openssh.com; else AUTO=$CHACHA; fi
step "this CPU's choice: $AUTO"

sshd_log() { echo "$STATE/nodes/node$1/run/testbed/sshd.log"; }
restart_sshd() {  # node K's sshd logs at DEBUG1 (the negotiated cipher)
  local k=$1 config=$STATE/nodes/node$1/run/testbed/sshd_config i
  grep -q '^LogLevel DEBUG1$' "$config" || echo 'LogLevel DEBUG1' >>"$config"
  "$TESTBED" exec "node$k" sh -c 'kill -HUP "$(cat /run/sshd.pid)"'
  for ((i = 0; i < 100; i++)); do
    sleep_s 0.05
    "${NODE_SSH[@]}" -o ConnectTimeout=2 "node$k" true 2>/dev/null && return 0
  done
  fail "node$k's sshd did not come back after SIGHUP"
}
# negotiated K: the client-to-server cipher of the last connection in node K's sshd log.
negotiated() { grep -o 'kex: client->server cipher: [^ ]*' "$(sshd_log "$1")" | tail -n 1 | cut -d' ' -f4; }

# run NAME EXPECT FANOUT [ENV=V...] -- ARGS...: a sync of a small tree to node[1-3] with a new ssh master for every
# connection (a fresh cache directory); the cipher each node's sshd negotiated must be EXPECT.
run() {
  local name=$1 want=$2 fanout=$3 envs=() k out got
  shift 3
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  for ((k = 1; k <= NODES; k++)); do
    : >"$(sshd_log "$k")"
    # the nodes' own masters to each other (the chain's hops): gone, so the chain's hops handshake again
    "$TESTBED" exec "node$k" sh -c 'rm -rf /root/.cache/muster/ssh'
  done
  out=$(env "${envs[@]}" XDG_CACHE_HOME="$SCRATCH/cache-$name" "$MUSTER" sync "${MUSTER_SSH[@]}" -q \
    --fanout "$fanout" -w "node[1-$NODES]" "$SRC" --to "/data/$name" "$@" 2>&1) || fail "$name: the sync failed: $out"
  for ((k = 1; k <= NODES; k++)); do
    got=$(negotiated "$k")
    [[ $got == "$want" ]] || fail "$name: node$k negotiated '$got', expected '$want'"
  done
  step "$name ($fanout): every node negotiated $want"
}

SRC=$SCRATCH/src
mkdir -p "$SRC"
echo hello >"$SRC/a"
for ((k = 1; k <= NODES; k++)); do restart_sshd "$k"; done
run default "$AUTO" star --
run default-chain "$AUTO" chain --  # node1 -> node2 -> node3: the agents' own ssh asks the same
run flag-default "$CHACHA" star -- --ssh-cipher default
run env-list aes256-ctr star MUSTER_SSH_CIPHER=aes256-ctr,aes128-ctr --
run flag-beats-env aes192-ctr star MUSTER_SSH_CIPHER=aes256-ctr -- --ssh-cipher aes192-ctr
mkdir -p "$SCRATCH/project"
echo 'ssh-cipher = "default"' >"$SCRATCH/project/muster.toml"
(cd "$SCRATCH/project" && run config-file "$CHACHA" star --)

rc=0
out=$(XDG_CACHE_HOME=$MUX_HOME "$MUSTER" sync "${MUSTER_SSH[@]}" --ssh-cipher 'aes128-ctr -oProxyCommand=x' \
  -w node1 "$SRC" 2>&1) || rc=$?
assert_eq 2 "$rc" "exit code of a malformed --ssh-cipher"
assert_contains "$out" "MUSTER_SSH_CIPHER" "the usage error"
step "a malformed --ssh-cipher is a usage error"
