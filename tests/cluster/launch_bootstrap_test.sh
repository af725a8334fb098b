#!/usr/bin/env bash
# launch_bootstrap_test.sh — muster needs no install on the nodes: it uploads itself (docs/agent-protocol.md
# section 1). On 3 fresh nodes (private, empty ~/.cache/muster):
#   1. the first launch uploads: afterwards every node holds exactly ~/.cache/muster/<16-hex build id>/muster,
#      the same id everywhere (the XXH3-64 of build/muster when xxhsum is installed), byte-identical (sha256)
#      to the head's binary, executable, next to it only muster.checked (the record of its last SHA-256 check),
#      and no temporary upload file is left;
#   2. a second launch uploads nothing: the cached file keeps its inode and mtime;
#   3. a cached binary that is corrupt is not used silently: the next launch must still succeed and leave a
#      correct binary behind (re-upload), for (a) a file truncated to 64 KiB (cannot run) and (b) a same-size
#      file with 4 KiB overwritten in the middle (in a debug build that is debug info: it still runs). Both cases are checked; the test fails if either is not repaired.
# Exit 0 pass, 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # before `set -e`: see launch_ddp_test.sh
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=3
NODE_HOME=$(getent passwd root | cut -d: -f6)  # the testbed's ssh user is root
readonly CACHE=$NODE_HOME/.cache/muster
HEAD_SHA=
BUILD_ID=

# on NODE CMD...: a shell command line on NODE.
on() { "$TESTBED" exec "$1" sh -c "$2"; }

launch_ok() {
  local name=$1 out=$SCRATCH/$1.out
  start_muster "$out" --run-dir "$SCRATCH/$name" -w "node[1-$NODES]" --connect-timeout 10 -- true
  wait_exit "$MUSTER_PID" 40
  LAUNCH_MS=$(ms_between "$MUSTER_START_US" "$EXIT_US")
  LAUNCH_OUT=$(cat -v "$out")
  return "$EXIT_RC"
}

fresh_nodes() {
  local k listing
  step "fresh testbed: every node's $CACHE is empty"
  "$TESTBED" down >/dev/null 2>&1 || true
  launch_setup "$NODES"
  for ((k = 1; k <= NODES; k++)); do
    listing=$(on "node$k" "ls -A '$CACHE' 2>/dev/null || true")
    assert_eq "" "$listing" "node$k: ls -A $CACHE before the first launch"
  done
}

first_launch_uploads() {
  local k entries sha
  HEAD_SHA=$(sha256sum <"$MUSTER" | cut -d' ' -f1)
  launch_ok first || fail "first launch: exit $EXIT_RC: $LAUNCH_OUT"
  step "first launch (with upload) took $(fmt_ms "$LAUNCH_MS") s"
  for ((k = 1; k <= NODES; k++)); do
    entries=$(on "node$k" "cd '$CACHE' && find . -mindepth 1 | sort")
    [[ $entries =~ ^\./([0-9a-f]{16})$'\n'\./[0-9a-f]{16}/muster$'\n'\./[0-9a-f]{16}/muster\.checked$ ]] ||
      fail "node$k: expected $CACHE/<16 hex>/muster and muster.checked and nothing else, found:"$'\n'"$entries"
    BUILD_ID=${BUILD_ID:-${BASH_REMATCH[1]}}
    assert_eq "$BUILD_ID" "${BASH_REMATCH[1]}" "node$k: build id directory"
    sha=$(on "node$k" "sha256sum <'$CACHE/$BUILD_ID/muster'" | cut -d' ' -f1)
    assert_eq "$HEAD_SHA" "$sha" "node$k: sha256 of the uploaded binary"
    on "node$k" "test -x '$CACHE/$BUILD_ID/muster'" || fail "node$k: the uploaded binary is not executable"
  done
  if command -v xxhsum >/dev/null; then
    assert_eq "$BUILD_ID" "$(xxhsum -H3 <"$MUSTER" | grep -oE '[0-9a-f]{16}' | head -n 1)" "build id vs XXH3-64 of $MUSTER"
  fi
  step "every node holds $CACHE/$BUILD_ID/muster, identical to $MUSTER (sha256 ${HEAD_SHA:0:16}...)"
}

second_launch_does_not_upload() {
  local k before=() after
  for ((k = 1; k <= NODES; k++)); do before[k]=$(on "node$k" "stat -c '%i %.9Y' '$CACHE/$BUILD_ID/muster'"); done
  launch_ok second || fail "second launch: exit $EXIT_RC: $LAUNCH_OUT"
  for ((k = 1; k <= NODES; k++)); do
    after=$(on "node$k" "stat -c '%i %.9Y' '$CACHE/$BUILD_ID/muster'")
    assert_eq "${before[k]}" "$after" "node$k: inode and mtime of the cached binary after a second launch"
  done
  step "second launch took $(fmt_ms "$LAUNCH_MS") s and uploaded nothing (inode and mtime unchanged)"
}

# corrupt_case NAME SHELL-CMD: corrupts node2's cached binary with SHELL-CMD ($f is its path), launches, and
# records a problem unless the launch succeeded and left a correct binary behind. Restores node2 after.
PROBLEMS=()
corrupt_case() {
  local name=$1 how=$2 f=$CACHE/$BUILD_ID/muster sha rc=0
  on node2 "f='$f'; $how"
  sha=$(on node2 "sha256sum <'$f'" | cut -d' ' -f1)
  [[ $sha != "$HEAD_SHA" ]] || fail "$name: corrupting node2's cached binary did not change it"
  launch_ok "corrupt-$name" || rc=$?
  sha=$(on node2 "sha256sum <'$f' 2>/dev/null" | cut -d' ' -f1)
  step "$name cached binary on node2: launch exit $rc after $(fmt_ms "$LAUNCH_MS") s; node2's copy now" \
    "$([[ $sha == "$HEAD_SHA" ]] && echo correct || echo STILL CORRUPT)"
  if ((rc != 0)); then
    PROBLEMS+=("$name cached binary on node2: the launch failed (exit $rc) instead of re-uploading; output:"$'\n'"$LAUNCH_OUT")
  elif [[ $sha != "$HEAD_SHA" ]]; then
    PROBLEMS+=("$name cached binary on node2: the launch succeeded but the corrupt file is still in place (it was used silently)")
  fi
  on node2 "rm -rf '$CACHE/$BUILD_ID'"  # the next case starts from a fresh upload
  launch_ok "restore-$name" || fail "restoring node2 after $name: exit $EXIT_RC: $LAUNCH_OUT"
}

corrupt_cache() {
  local size
  size=$(stat -c %s "$MUSTER")
  # (a) Truncated to 64 KiB: its code is cut off, it cannot run.
  corrupt_case truncated "truncate -s 65536 \"\$f\""
  # (b) Same size, 4 KiB of zeros in the middle.
  corrupt_case overwritten "dd if=/dev/zero of=\"\$f\" bs=4096 seek=$((size / 8192)) count=1 conv=notrunc status=none"
  if ((${#PROBLEMS[@]})); then fail "a corrupt cached binary is not repaired:"$'\n'"$(printf '%s\n' "${PROBLEMS[@]}")"; fi
}

main() {
  fresh_nodes
  first_launch_uploads
  second_launch_does_not_upload
  corrupt_cache
  step "PASS"
}

main
