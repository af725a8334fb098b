#!/usr/bin/env bash
# shellcheck disable=SC2016,SC1003  # worker scripts and literal arguments are single-quoted on purpose
# launch: the command's arguments reach every worker byte for byte — no shell re-parsing, no expansion, no
# re-encoding — and survive the manifest. Each worker writes its argv NUL-separated; the rank logs must
# equal the expected bytes exactly.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# write_expected FILE ARG...: ARGs as the worker writes them (each followed by NUL).
write_expected() {
  local file=$1
  shift
  printf '%s\0' "$@" >"$file"
}

# check_args WHAT ARG...: two workers run `printf '%s\0' ARG...`; both rank logs must be those bytes.
check_args() {
  local what=$1 rank
  shift
  job args
  write_expected expected "$@"
  "$MUSTER" launch -q --job-id "$JOB" --nproc-per-node 2 -- printf '%s\0' "$@" >out 2>&1 ||
    fail "$what: launch exited $?: $(tr '\0' ' ' <out)"
  for rank in 0 1; do
    assert_file_bytes expected "muster-runs/$JOB/rank-$rank.log" "$what: argv of rank $rank"
  done
  python3 -m json.tool "muster-runs/$JOB/manifest.json" >/dev/null || fail "$what: manifest.json is not JSON"
}

nl=$'\n'
check_args "shell metacharacters" \
  'two words' "it's" 'say "hi"' '$HOME' '${PATH}' '$(id)' '`id`' 'a;b' '*' '?' '~' 'x|y' 'a&&b' '<in' '>out' '#'
check_args "newline, tab, backslashes" "line1${nl}line2" $'tab\there' 'back\slash' 'two\\' '\n' '\' "trailing${nl}"
check_args "empty strings" '' 'between' '' ''
check_args "UTF-8" 'ünï' 'коммит' '日本語' '🚀'
check_args "look like options and templates" -- --foo -q --nproc-per-node=9 '{rank}' '{node_rank}' '{{x}}' '%s'
check_args "leading and trailing spaces" ' lead' 'trail ' '   '

# python3 as the worker: it reads its argv the way a training script does.
job python
write_expected expected 'a b' "it's" '' 'ünï' "x${nl}y" 'c:\dir'
"$MUSTER" launch -q --job-id "$JOB" -- python3 -c \
  'import sys; sys.stdout.buffer.write(b"".join(a.encode("utf-8", "surrogateescape") + b"\0" for a in sys.argv[1:]))' \
  'a b' "it's" '' 'ünï' "x${nl}y" 'c:\dir' >out 2>&1 || fail "python worker: launch exited $?: $(tr '\0' ' ' <out)"
assert_file_bytes expected "muster-runs/$JOB/rank-0.log" "argv of a python3 worker"

# Bytes that are not UTF-8 are still just bytes on Linux: a Latin-1 file name must reach the worker.
check_args "invalid UTF-8" $'caf\xe9' $'\xff\xfe' $'ok\x80'
