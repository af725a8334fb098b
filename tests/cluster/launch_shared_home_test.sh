#!/usr/bin/env bash
# launch_shared_home_test.sh — nodes that share one home directory (an NFS home: `testbed up 4 --shared-home`)
# bootstrap muster into the one ~/.cache/muster at the same time, cold or warm (docs/agent-protocol.md section 1):
#   1. three cold launches on 4 nodes (empty cache each time): 3 of 3 succeed (they failed 2 of 3 with
#      "Text file busy" when every node uploaded to the same temporary name and ran it while another wrote it);
#   2. three launches to the 4 nodes at once, cold: all succeed;
#   3. the cache is private: ~/.cache/muster and <build-id>/ 0700, the binary 0700, no temporary file left;
#   4. a corrupted cached binary is replaced (one launch, 4 nodes at once) by the head's, byte for byte;
#   5. a hostile cached binary (would vouch for itself, leaves a mark when run) is replaced and never run;
#   6. a cache directory made group-writable, a binary made other-writable, and a build directory owned by
#      another user are each refused with a message naming the path, the problem and the fix.
# Exit 0 pass, 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=4
readonly CACHE=/root/.cache/muster  # the testbed's ssh user is root; its home is the shared one
HEAD_SHA=$(sha256sum <"$MUSTER" | cut -d' ' -f1)
BUILD_ID=

on() { "$TESTBED" exec node1 sh -c "$1"; }

# launch_ok NAME: one launch of `true` on every node; sets LAUNCH_OUT.
launch_ok() {
  local out=$SCRATCH/$1.out rc=0
  muster_launch --run-dir "$SCRATCH/$1" -w "node[1-$NODES]" --connect-timeout 15 -- true >"$out" 2>&1 || rc=$?
  LAUNCH_OUT=$(cat -v "$out")
  return "$rc"
}

# launch_refused NAME NEEDLE...: the launch must fail, its output containing every NEEDLE.
launch_refused() {
  local name=$1 needle
  shift
  if launch_ok "$name"; then fail "$name: the launch succeeded; expected a refusal"; fi
  for needle in "$@"; do assert_contains "$LAUNCH_OUT" "$needle" "$name: the launch's message"; done
}

cold() { on "rm -rf '$CACHE'"; }

shared_home_is_shared() {
  step "testbed: $NODES nodes sharing one home"
  launch_setup "$NODES" --shared-home
  "$TESTBED" exec node3 sh -c 'echo shared > /root/.shared-probe'
  assert_eq shared "$("$TESTBED" exec node1 cat /root/.shared-probe)" "a file written in node3's home, read on node1"
}

cold_launches() {
  local round
  for round in 1 2 3; do
    cold
    launch_ok "cold-$round" || fail "cold launch $round of 3 on $NODES nodes sharing a home: $LAUNCH_OUT"
  done
  step "3 of 3 cold launches on $NODES nodes sharing ~/.cache/muster succeeded"
  BUILD_ID=$(on "ls '$CACHE'" | grep -E '^[0-9a-f]{16}$' | head -n 1)
  [[ -n $BUILD_ID ]] || fail "no <build-id> directory in $CACHE: $(on "ls -la '$CACHE'")"
}

concurrent_launches() {
  local k pids=() rc
  cold
  for k in 1 2 3; do
    muster_launch --run-dir "$SCRATCH/concurrent-$k" -w "node[1-$NODES]" --connect-timeout 15 -- true \
      >"$SCRATCH/concurrent-$k.out" 2>&1 &
    pids+=($!)
  done
  for k in 1 2 3; do
    rc=0
    wait "${pids[k - 1]}" || rc=$?
    ((rc == 0)) || fail "concurrent cold launch $k of 3 exited $rc: $(cat -v "$SCRATCH/concurrent-$k.out")"
  done
  step "3 launches to $NODES nodes at once, cold: all succeeded"
}

cache_is_private() {
  assert_eq "700 700 700" "$(on "stat -c %a '$CACHE' '$CACHE/$BUILD_ID' '$CACHE/$BUILD_ID/muster'" | paste -sd' ')" \
    "modes of ~/.cache/muster, <build-id>/ and the binary"
  assert_eq "muster muster.checked" "$(on "ls -A '$CACHE/$BUILD_ID'" | paste -sd' ')" "files in the build directory"
  assert_eq "$HEAD_SHA" "$(on "sha256sum < '$CACHE/$BUILD_ID/muster'" | cut -d' ' -f1)" "the cached binary"
  step "the cache is private (0700) and holds exactly the head's binary"
}

corrupted_binary_is_replaced() {
  local size
  size=$(stat -c %s "$MUSTER")
  on "dd if=/dev/zero of='$CACHE/$BUILD_ID/muster' bs=4096 seek=$((size / 8192)) count=1 conv=notrunc status=none"
  [[ $(on "sha256sum < '$CACHE/$BUILD_ID/muster'" | cut -d' ' -f1) != "$HEAD_SHA" ]] || fail "corrupting did nothing"
  launch_ok corrupted || fail "launch with a corrupted cached binary: $LAUNCH_OUT"
  assert_eq "$HEAD_SHA" "$(on "sha256sum < '$CACHE/$BUILD_ID/muster'" | cut -d' ' -f1)" "the cached binary after the launch"
  step "a corrupted cached binary was replaced by the head's"
}

hostile_binary_is_never_run() {
  on "rm -f /root/hostile-ran; printf '#!/bin/sh\ntouch /root/hostile-ran\nexit 0\n' > '$CACHE/$BUILD_ID/muster.new' &&
      chmod 700 '$CACHE/$BUILD_ID/muster.new' && mv -f '$CACHE/$BUILD_ID/muster.new' '$CACHE/$BUILD_ID/muster'"
  launch_ok hostile || fail "launch with a hostile cached binary: $LAUNCH_OUT"
  if on "test -e /root/hostile-ran"; then fail "the hostile cached binary was run (it left /root/hostile-ran)"; fi
  assert_eq "$HEAD_SHA" "$(on "sha256sum < '$CACHE/$BUILD_ID/muster'" | cut -d' ' -f1)" "the cached binary after the launch"
  step "a hostile cached binary that would vouch for itself was replaced without being run"
}

unsafe_cache_is_refused() {
  on "chmod g+w '$CACHE'"
  launch_refused group-writable "refusing $CACHE: it is writable by its group or others (mode 720)" "chmod go-w"
  on "chmod g-w '$CACHE' && chmod o+w '$CACHE/$BUILD_ID/muster'"
  launch_refused other-writable "refusing $CACHE/$BUILD_ID/muster: it is writable by its group or others (mode 702)"
  on "chmod o-w '$CACHE/$BUILD_ID/muster' && chown nobody '$CACHE/$BUILD_ID'"
  launch_refused foreign-owner "refusing $CACHE/$BUILD_ID: it belongs to uid $(id -u nobody), not to you (uid 0)"
  on "chown root '$CACHE/$BUILD_ID'"
  launch_ok restored || fail "launch after the cache was made private again: $LAUNCH_OUT"
  step "group-writable, other-writable and foreign-owned cache entries were refused with the fix named"
}

main() {
  shared_home_is_shared
  cold_launches
  concurrent_launches
  cache_is_private
  corrupted_binary_is_replaced
  hostile_binary_is_never_run
  unsafe_cache_is_refused
  step "PASS"
}

main
