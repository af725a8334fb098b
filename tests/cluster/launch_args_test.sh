#!/usr/bin/env bash
# launch_args_test.sh — the command's arguments reach every worker on every node byte for byte, with no
# shell anywhere on the way re-splitting, expanding or unquoting them: spaces, quotes, $HOME, ;, *, a
# newline, backslashes, non-ASCII and invalid UTF-8, an empty string, $(...) and `...`. 3 nodes x 2 workers;
# each worker writes its argv NUL-separated to stdout, and every rank-N.log must equal (cmp) the bytes the
# head would write for the same argv. Also with --per-node, where only the {placeholders} may change, and
# with arguments that are not valid UTF-8 (the job must run, and manifest.json must still be written).
# Exit 0 pass, 1 fail, 77 skip.
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # before `set -e`: see launch_ddp_test.sh
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=3 PER_NODE=2
readonly PWNED=/tmp/muster-args-test-pwned
# shellcheck disable=SC2016,SC1003  # every $, ` and \ here must arrive literally
readonly ARGS=(
  'two words' '  leading and trailing  ' "it's" 'say "hi"' "\"'mixed'\"" '$HOME' '${HOME}' ';' 'a;b' '&&' '|'
  '*' '?' '[a-z]*' '~' $'line one\nline two' $'tab\there' 'back\slash' '\' '\\' '\n' 'ünïcödé ✓ 日本'
  $'\x01\x7f' '' '$(touch '"$PWNED"')' '`touch '"$PWNED"'`' '>'"$PWNED" '#not a comment' '!' '--' '-n' '{rank}'
  "$(printf '%0300d' 0)"
)
# Not UTF-8 (argv is bytes: a Latin-1 file name, say); checked on its own, last.
readonly NON_UTF8_ARGS=($'\xff\xfe' $'caf\xe9' $'\xc3')
# The worker: argv[1..] NUL-terminated on stdout (dash's printf; no python, no locale).
# shellcheck disable=SC2016
readonly WORKER=(sh -c 'for a; do printf "%s\0" "$a"; done' argv-dump)

# per_rank NAME ARG...: 3 nodes x 2 workers get ARGs; every rank-N.log must be exactly them, NUL-terminated.
per_rank() {
  local name=$1 run=$SCRATCH/$1 r expected=$SCRATCH/$1.expected out=$SCRATCH/$1.out
  shift
  printf '%s\0' "$@" >"$expected"
  start_muster "$out" --run-dir "$run" -w "node[1-$NODES]" --nproc-per-node "$PER_NODE" -- "${WORKER[@]}" "$@"
  wait_exit "$MUSTER_PID" 30
  ((EXIT_RC == 0)) || fail "$name: exit $EXIT_RC, expected 0; output:"$'\n'"$(cat -v "$out")"
  for ((r = 0; r < NODES * PER_NODE; r++)); do
    cmp "$expected" "$run/rank-$r.log" ||
      fail "$name: rank $r's argv differs; expected vs got:"$'\n'"$(od -c "$expected" | head -n 40)"$'\n'"---"$'\n'"$(od -c "$run/rank-$r.log" | head -n 40)"
  done
  /usr/bin/python3 -c 'import json, sys; json.load(open(sys.argv[1], "rb"))' "$run/manifest.json" ||
    fail "$name: $run/manifest.json is not valid JSON"
  step "$name: every rank's argv is byte-exact ($(wc -c <"$expected") bytes)"
}

per_node() {
  local run=$SCRATCH/per-node k expected
  step "--per-node on 3 nodes: the same arguments around {node_rank} and {nnodes}"
  start_muster "$SCRATCH/per-node.out" --run-dir "$run" -w "node[1-$NODES]" --per-node \
    -- "${WORKER[@]}" "${ARGS[@]}" '{node_rank}' 'of {nnodes}'
  wait_exit "$MUSTER_PID" 30
  ((EXIT_RC == 0)) || fail "per-node job: exit $EXIT_RC: $(cat -v "$SCRATCH/per-node.out")"
  for ((k = 0; k < NODES; k++)); do
    expected=$SCRATCH/expected-node$k
    printf '%s\0' "${ARGS[@]}" "$k" "of $NODES" >"$expected"
    cmp "$expected" "$run/rank-$k.log" ||
      fail "node $k's argv differs; expected vs got:"$'\n'"$(od -c "$expected" | tail -n 20)"$'\n'"---"$'\n'"$(od -c "$run/rank-$k.log" | tail -n 20)"
  done
  step "every node process's argv is byte-exact, placeholders substituted"
}

no_shell_ran_them() {
  local k
  for ((k = 1; k <= NODES; k++)); do
    if "$TESTBED" exec "node$k" test -e "$PWNED"; then fail "an argument was run by a shell on node$k ($PWNED exists)"; fi
  done
  [[ ! -e $PWNED ]] || fail "an argument was run by a shell on the head ($PWNED exists)"
}

main() {
  launch_setup "$NODES"
  rm -f "$PWNED"
  step "3 nodes x 2 workers, ${#ARGS[@]} tricky arguments"
  per_rank tricky "${ARGS[@]}"
  per_node
  no_shell_ran_them
  step "3 nodes x 2 workers, arguments that are not UTF-8"
  per_rank non-utf8 "${NON_UTF8_ARGS[@]}" 'plain'
  step "PASS"
}

main
