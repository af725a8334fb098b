# shellcheck shell=bash
# lib.sh — sourced by every tests/cluster/*_test.sh scenario (and benchmarks).
#
# Gives: TESTBED (path of the testbed script), NODE_SSH (ssh argv that reaches node1..nodeN by name),
# require_root_and_namespaces (exit 77 = SKIP, or 1 with MUSTER_REQUIRE_CLUSTER=1), fail/assert_* helpers,
# step (progress line with elapsed time), and a cleanup trap that always ends with `testbed down`
# (except with MUSTER_TEST_KEEP_TESTBED=1 after a failure, to look at the nodes).
# A test exits 0 (pass), 1 (fail) or 77 (skip).

CLUSTER_TEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TESTBED=$CLUSTER_TEST_DIR/testbed
# The checkout (sources, examples, build) is on every node at the same path, like an NFS home, wherever it
# was cloned — also under /tmp or /root, which are node-private.
export MUSTER_TESTBED_SHARE=${MUSTER_TESTBED_SHARE:-$(cd "$CLUSTER_TEST_DIR/../.." && pwd)}
TEST_NAME=$(basename "${0%.sh}")
TEST_START=$EPOCHREALTIME
CLUSTER_SCRIPT_ARGS=("$@")  # sourced without arguments: the script's own (require_root_and_namespaces re-execs it)

# `ssh nodeK` goes through the Include that `testbed up` puts in ~/.ssh/config; with
# MUSTER_TESTBED_SSH_INCLUDE=0 there is none, and tests pass the generated config explicitly.
# shellcheck disable=SC2034  # used by the scripts that source this file
if [[ ${MUSTER_TESTBED_SSH_INCLUDE:-1} == 1 ]]; then
  NODE_SSH=(ssh)
else
  NODE_SSH=(ssh -F "$("$TESTBED" ssh-config 2>/dev/null || true)")
fi

# Skips (exit 77) when this machine cannot run the testbed: not root, namespaces or `ip netns` unusable,
# tools missing. With MUSTER_REQUIRE_CLUSTER=1 (CI) that is a failure (exit 1) instead.
# On success, installs the cleanup trap (hooks, then `testbed down`) for any later exit.
require_root_and_namespaces() {
  local reason
  reason=$(cluster_unavailable_reason)
  if [[ -z $reason ]]; then
    # One testbed at a time on this machine (its node names, the Include in ~/.ssh/config and the CPU are
    # shared): a test from another checkout waits here for the one running. flock -o: the lock is not inherited
    # by the nodes' processes, so nothing a test leaves behind can hold it.
    if [[ -z ${MUSTER_TESTBED_LOCKED:-} ]]; then
      export MUSTER_TESTBED_LOCKED=1
      exec flock -o "${MUSTER_TESTBED_LOCK:-/run/lock/muster-testbed.lock}" "$BASH" "$0" "${CLUSTER_SCRIPT_ARGS[@]}"
    fi
    trap run_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    return 0
  fi
  if [[ ${MUSTER_REQUIRE_CLUSTER:-0} == 1 ]]; then
    echo "FAIL: required cluster testbed unavailable (MUSTER_REQUIRE_CLUSTER=1): $reason" >&2
    exit 1
  fi
  echo "" >&2
  echo "SKIP: $TEST_NAME: $reason" >&2
  echo "" >&2
  exit 77
}

cluster_unavailable_reason() {
  local tool probe=${MUSTER_TESTBED_PREFIX:-mtb}-probe$$
  if (($(id -u) != 0)); then echo "needs root (namespaces, links, mounts)"; return; fi
  for tool in ip tc unshare nsenter setsid setpriv flock findmnt timeout ssh ssh-keygen /usr/sbin/sshd; do
    command -v "$tool" >/dev/null || { echo "missing tool: $tool"; return; }
  done
  if ! unshare --uts --ipc --mount --net --pid --fork --mount-proc true 2>/dev/null; then
    echo "unshare cannot create namespaces here"; return
  fi
  if ! { ip netns add "$probe" && ip netns del "$probe"; } 2>/dev/null; then
    ip netns del "$probe" 2>/dev/null || true
    echo "'ip netns add' does not work here"; return
  fi
}

fail() {
  echo "FAIL: $TEST_NAME: $*" >&2
  show_testbed_state >&2
  exit 1
}

# For a failure report: node states and the last sshd log lines of each node (without the routine ones:
# sessions, and the readiness probes of `testbed up`).
ROUTINE_SSHD_LOG='Accepted publickey|Server listening|kex_exchange_identification|Received disconnect'
ROUTINE_SSHD_LOG+='|Disconnected from|Connection closed by [0-9.]+ port [0-9]+$'
show_testbed_state() {
  "$TESTBED" status 2>&1 | sed 's/^/  /' || true
  local dir log lines
  dir=$(dirname "$(dirname "$("$TESTBED" ssh-config 2>/dev/null || true)")")
  for log in "$dir"/nodes/node*/run/testbed/sshd.log; do
    [[ -s $log ]] || continue
    lines=$(tr -d '\r' <"$log" | grep -Ev "$ROUTINE_SSHD_LOG" | tail -n 5 || true)
    [[ -z $lines ]] || printf '  --- %s (last lines)\n  %s\n' "$log" "${lines//$'\n'/$'\n'  }"
  done
}

# assert_eq EXPECTED ACTUAL [WHAT]
assert_eq() {
  [[ $1 == "$2" ]] || fail "${3:-value}: expected '$1', got '$2'"
}

# assert_contains HAYSTACK NEEDLE [WHAT]
assert_contains() {
  [[ $1 == *"$2"* ]] || fail "${3:-output}: expected to contain '$2', got: $1"
}

# assert_fails WHAT CMD [ARG...]: CMD must exit non-zero.
assert_fails() {
  local what=$1
  shift
  if "$@" >/dev/null 2>&1; then fail "$what: expected failure of: $*"; fi
}

# assert_ok WHAT CMD [ARG...]: CMD must exit 0 (its output is shown on failure).
assert_ok() {
  local what=$1 out
  shift
  out=$("$@" 2>&1) || fail "$what: '$*' failed: $out"
}

step() {
  local now=$EPOCHREALTIME
  local ms=$(((${now/./} - ${TEST_START/./}) / 1000))
  printf '[%s %3d.%03ds] %s\n' "$TEST_NAME" $((ms / 1000)) $((ms % 1000)) "$*" >&2
}

# Cleanup: hooks registered with add_cleanup run (last first) on any exit, then `testbed down`.
CLEANUP_HOOKS=()
add_cleanup() { CLEANUP_HOOKS+=("$1"); }

run_cleanup() {
  local rc=$? i
  trap - EXIT INT TERM
  if ((rc != 0)) && [[ ${MUSTER_TEST_KEEP_TESTBED:-0} == 1 ]]; then
    echo "$TEST_NAME: failed; testbed kept for inspection (MUSTER_TEST_KEEP_TESTBED=1): $TESTBED status" >&2
    exit "$rc"
  fi
  for ((i = ${#CLEANUP_HOOKS[@]} - 1; i >= 0; i--)); do eval "${CLEANUP_HOOKS[i]}" || true; done
  "$TESTBED" down >/dev/null 2>&1 || echo "WARNING: $TEST_NAME: 'testbed down' failed" >&2
  exit "$rc"
}
