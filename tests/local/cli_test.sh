#!/usr/bin/env bash
# shellcheck disable=SC2016,SC1003  # worker scripts and literal arguments are single-quoted on purpose
# The command line: usage and exit codes (README "Exit codes"), "did you mean" for mistyped subcommands and
# flags, missing arguments, help/version, hostfile errors with file:line:column, and plan's rank layout.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# run_muster ARG...: runs muster with a 10 s bound; sets RC and OUT (stdout and stderr together).
run_muster() {
  RC=0
  OUT=$(timeout 10 "$MUSTER" "$@" 2>&1) || RC=$?
}

# expect RC WHAT: the last run_muster exited RC.
expect() {
  assert_eq "$1" "$RC" "exit code of $2 (output: $OUT)"
}

run_muster
expect 2 "'muster' with no arguments"
assert_contains "$OUT" "usage: muster <command>" "'muster' with no arguments"
assert_contains "$OUT" "launch" "'muster' with no arguments lists launch"

run_muster lanch
expect 2 "'muster lanch'"
assert_contains "$OUT" "did you mean 'launch'" "'muster lanch'"

run_muster plan --nprc-per-node 2
expect 2 "'muster plan --nprc-per-node 2'"
assert_contains "$OUT" "did you mean '--nproc-per-node'" "'muster plan --nprc-per-node 2'"

# Commands that need a subcommand, a kind or a directory say so: usage errors, exit 2.
for cmd in gen setup sync; do
  run_muster "$cmd"
  expect 2 "'muster $cmd'"
done

run_muster help launch
expect 0 "'muster help launch'"
assert_contains "$OUT" "--nproc-per-node" "'muster help launch'"
run_muster launch --help
expect 0 "'muster launch --help'"
assert_contains "$OUT" "--nproc-per-node" "'muster launch --help'"
run_muster help
expect 0 "'muster help'"
run_muster help nosuchcommand
expect 2 "'muster help nosuchcommand'"

run_muster version
expect 0 "'muster version'"
[[ $OUT =~ ^muster\ [0-9]+\.[0-9]+\.[0-9]+ ]] || fail "'muster version' printed '$OUT', expected 'muster X.Y.Z'"

# A malformed hostfile: the message names file:line:column.
printf '# two nodes\nnode1 slots=2\nnode2 slots=x\n' >bad-hostfile
run_muster plan -H bad-hostfile
expect 2 "'muster plan -H bad-hostfile'"
assert_contains "$OUT" "bad-hostfile:3:13:" "'muster plan' with 'slots=x' on line 3"
run_muster plan -H does-not-exist
[[ $RC != 0 ]] || fail "'muster plan -H does-not-exist' exited 0"
assert_contains "$OUT" "does-not-exist" "'muster plan -H does-not-exist'"

run_muster plan -w 'node[1-2'
expect 2 "'muster plan -w node[1-2'"

run_muster plan -w 'node[1-2]' --nproc-per-node 2
expect 0 "'muster plan -w node[1-2] --nproc-per-node 2'"
grep -Eq '^0 +node1 +0-1( |$)' <<<"$OUT" || fail "plan: expected node1 with ranks 0-1, got:
$OUT"
grep -Eq '^1 +node2 +2-3( |$)' <<<"$OUT" || fail "plan: expected node2 with ranks 2-3, got:
$OUT"
assert_contains "$OUT" "world size 4 on 2 nodes" "plan summary"

# launch without a command is a usage error and starts nothing.
run_muster launch
expect 2 "'muster launch' without a command"
assert_contains "$OUT" "no command" "'muster launch' without a command"
run_muster launch --nproc-per-node 2 --
expect 2 "'muster launch --nproc-per-node 2 --'"
[[ ! -e muster-runs ]] || fail "a launch without a command created muster-runs/: $(ls muster-runs)"

# A mistyped launch flag must be a usage error, never the command to run on every node.
job typo
run_muster launch --job-id "$JOB" --nprc-per-node 2 -- true
expect 2 "'muster launch --nprc-per-node 2 -- true'"
assert_contains "$OUT" "did you mean '--nproc-per-node'" "'muster launch --nprc-per-node 2 -- true'"
[[ ! -e muster-runs/$JOB ]] || fail "'muster launch --nprc-per-node 2 -- true' started a job (muster-runs/$JOB exists)"
run_muster launch --job-id "$JOB" --bogus-flag -- true
expect 2 "'muster launch --bogus-flag -- true'"
assert_contains "$OUT" "--bogus-flag" "'muster launch --bogus-flag -- true'"

# The flag suggestion is one clean line, not CLI11's message plus a doubled "muster muster plan:".
run_muster plan --nprc-per-node 2
assert_not_contains "$OUT" "muster muster" "'muster plan --nprc-per-node 2'"

# doctor on this machine alone: a report with a summary, JSON that parses, exit 0 (ok) or 1 (warnings)
run_muster doctor --python /usr/bin/python3
[[ $RC == 0 || $RC == 1 ]] || fail "'muster doctor' on localhost exited $RC: $OUT"
assert_contains "$OUT" "checks passed" "'muster doctor'"
run_muster doctor --python /usr/bin/python3 --json
python3 -c 'import json, sys; d = json.loads(sys.argv[1]); assert d["findings"] and "summary" in d' "$OUT" ||
  fail "'muster doctor --json' is not the documented JSON: $OUT"

