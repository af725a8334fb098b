#!/usr/bin/env bash
# The agent's guard (`muster agent --guard`, src/agent/guard.h) kills, when its pipe closes, only the process groups
# that are still in its own session: the groups of the agent's workers. A group id it was given whose group has
# since died and been reused by someone else's group (another session) is left alone. Here the guard is fed two
# ids: a group of this session (a background job) and a group in another session (setsid) - what a reused id
# looks like. The first must die, the second must live.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

alive() { [[ -e /proc/$1 ]] && [[ $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) != Z ]]; }

setsid sleep 300 </dev/null >/dev/null 2>&1 &  # not a group leader, so setsid execs sleep: pid = pgid = sid
other=$!
set -m  # job control: the next background job leads its own group, in this session
sleep 300 </dev/null >/dev/null 2>&1 &
mine=$!
set +m
# shellcheck disable=SC2154  # rc is set by the trap itself
trap 'rc=$?; kill -KILL "$other" "$mine" 2>/dev/null || true; (exit "$rc"); cleanup_local_test' EXIT
wait_until 5 test "$(ps -o sid= -p "$other" | tr -d ' ')" = "$other" || fail "the other session's sleep did not start"
[[ $(ps -o pgid= -p "$mine" | tr -d ' ') == "$mine" ]] || fail "the background job does not lead its own group"

printf '%s\n%s\n' "$other" "$mine" | "$MUSTER" agent --guard
wait_until 5 bash -c "! { [[ -e /proc/$mine ]] && [[ \$(awk '{print \$3}' /proc/$mine/stat) != Z ]]; }" ||
  fail "the guard did not kill the group of its own session ($mine)"
sleep 0.3  # both signals were sent before the guard exited; give the other one time to land if it was sent
alive "$other" || fail "the guard killed a group of another session ($other): a reused group id is not the job's"
