#!/usr/bin/env bash
# groups_test.sh — node groups (`@name` in a hostlist, defined under [groups] in a config file) expand the same
# in exec, launch, doctor and sync on the testbed (3 nodes). The groups come from the user's config.toml
# (XDG_CONFIG_HOME of these commands): pair = node[2-3], with a group that names a group and an exclusion.
# Each command is run on `@both,-@first` (= node2, node3) and must act on exactly node2 and node3: exec and
# launch print each node's hostname, doctor's JSON lists the two nodes, sync's directory arrives on them and not
# on node1. Then -x @group leaves a group out.
# Needs root (77 without).
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # before `set -e`: see launch_ddp_test.sh
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=3 HOSTS='@both,-@first'

muster_cmd() {
  local cmd=$1
  shift
  XDG_CONFIG_HOME=$SCRATCH/config XDG_CACHE_HOME=$MUX_HOME "$MUSTER" "$cmd" "${MUSTER_SSH[@]}" "$@"
}

main() {
  launch_setup "$NODES"
  mkdir -p "$SCRATCH/config/muster"
  cat >"$SCRATCH/config/muster/config.toml" <<'TOML'
[groups]
first = "node1"
rest = ["node2", "node3"]
both = "@first,@rest"
TOML

  step "exec -w $HOSTS"
  muster_cmd exec -w "$HOSTS" hostname >"$SCRATCH/exec.out" 2>&1 || fail "exec: $(cat "$SCRATCH/exec.out")"
  assert_eq "node2: node2
node3: node3" "$(sort "$SCRATCH/exec.out")" "exec on the group"

  step "launch -w $HOSTS"
  muster_cmd launch -q --run-dir "$SCRATCH/run" -w "$HOSTS" -- hostname >"$SCRATCH/launch.out" 2>&1 ||
    fail "launch: $(cat "$SCRATCH/launch.out")"
  assert_eq "node2
node3" "$(sed 's/^\[[^]]*\] //' "$SCRATCH/launch.out" | sort)" "launch on the group"

  step "doctor -w $HOSTS"
  muster_cmd doctor --json --ssh-matrix off --master-port 0 -w "$HOSTS" >"$SCRATCH/doctor.json" 2>"$SCRATCH/doctor.err" ||
    true  # warnings or errors about the testbed are not this test's business
  assert_eq '["node2", "node3"]' "$(python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["nodes"]))' \
    "$SCRATCH/doctor.json" 2>&1)" "doctor's nodes (stderr: $(cat "$SCRATCH/doctor.err"))"

  step "sync -w $HOSTS"
  mkdir -p "$SCRATCH/src"
  echo "groups $$" >"$SCRATCH/src/file"
  muster_cmd sync -q -w "$HOSTS" "$SCRATCH/src" >"$SCRATCH/sync.out" 2>&1 || fail "sync: $(cat "$SCRATCH/sync.out")"
  local k
  for k in 2 3; do
    assert_eq "groups $$" "$("$TESTBED" exec "node$k" cat "$SCRATCH/src/file" 2>&1)" "sync: the file on node$k"
  done
  "$TESTBED" exec node1 test ! -e "$SCRATCH/src" || fail "sync reached node1, which the group leaves out"

  step "exec -w @both -x @rest"
  muster_cmd exec -w @both -x @rest hostname >"$SCRATCH/exclude.out" 2>&1 || fail "exec -x: $(cat "$SCRATCH/exclude.out")"
  assert_eq "node1: node1" "$(cat "$SCRATCH/exclude.out")" "exec -x @group"
  for k in 2 3; do "$TESTBED" exec "node$k" rm -rf "$SCRATCH"; done
  step "PASS"
}

main
