#!/usr/bin/env bash
# shellcheck disable=SC2016,SC1003  # worker scripts and literal arguments are single-quoted on purpose
# launch: output. rank-N.log holds exactly the bytes the worker wrote (\r progress updates, CRLF, no final
# newline, stderr too); the terminal shows prefixed lines, --ranks filters the terminal but never the logs,
# --prefix formats the prefix; manifest.json is valid JSON with each rank's exit code.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# --- stdout only: rank logs byte-identical --------------------------------------------------------------------
payload='progress 10%%\rprogress 50%%\rprogress 100%%\nwindows line\r\n\ttabbed \\ line\n\nlast line, no newline'
# shellcheck disable=SC2059  # the payload is a printf format, written by printf(1) in the worker too
printf "$payload" >expected
job bytes
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 -- printf "$payload" >out 2>err ||
  fail "printf job exited $?: $(cat out err)"
for rank in 0 1; do
  assert_file_bytes expected "muster-runs/$JOB/rank-$rank.log" "rank-$rank.log of a stdout-only worker"
done
screen=$(cat out)
for rank in 0 1; do
  assert_contains "$screen" "[localhost:$rank] windows line" "terminal (rank $rank)"
  assert_contains "$screen" "[localhost:$rank] last line, no newline" "terminal (rank $rank, unterminated last line)"
  assert_contains "$screen" "[localhost:$rank] progress 100%" "terminal (rank $rank, final progress update)"
done
# Every worker line on the terminal carries a prefix; muster's own notices start with "muster".
while IFS= read -r line; do
  [[ $line == "[localhost:"[01]"] "* || $line == muster* || -z $line ]] ||
    fail "terminal line without a rank prefix: '$line'
full output:
$screen"
done <<<"$(tr '\r' '\n' <out)"

# --- stdout and stderr: both in the rank log, both on the terminal --------------------------------------------
job streams
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 -- sh -c \
  'echo "to-stdout-$RANK"; echo "to-stderr-$RANK" >&2; printf "tail-stderr-$RANK" >&2' >out 2>err ||
  fail "stdout+stderr job exited $?: $(cat out err)"
for rank in 0 1; do
  log=$(cat "muster-runs/$JOB/rank-$rank.log")
  assert_contains "$log" "to-stdout-$rank" "rank-$rank.log (stdout)"
  assert_contains "$log" "to-stderr-$rank" "rank-$rank.log (stderr)"
  assert_contains "$log" "tail-stderr-$rank" "rank-$rank.log (stderr without newline)"
  assert_eq "$(printf 'to-stdout-%s\nto-stderr-%s\ntail-stderr-%s' "$rank" "$rank" "$rank" | wc -c)" \
    "$(wc -c <"muster-runs/$JOB/rank-$rank.log")" "size of rank-$rank.log (stdout+stderr, nothing else)"
  assert_contains "$(cat out err)" "[localhost:$rank] to-stderr-$rank" "terminal shows rank $rank's stderr"
done

# --- --ranks 1: rank 0 not on the terminal, still in its log -------------------------------------------------
job ranks
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 --ranks 1 -- sh -c 'echo "hello from $RANK"' >out 2>err ||
  fail "--ranks job exited $?: $(cat out err)"
assert_contains "$(cat out)" "[localhost:1] hello from 1" "terminal with --ranks 1"
assert_not_contains "$(cat out err)" "hello from 0" "terminal with --ranks 1"
assert_eq "hello from 0" "$(cat "muster-runs/$JOB/rank-0.log")" "rank-0.log with --ranks 1"

# --- --prefix --------------------------------------------------------------------------------------------------
job prefix
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 --prefix '{rank}> ' -- sh -c 'echo "hi $RANK"' >out 2>err ||
  fail "--prefix job exited $?: $(cat out err)"
assert_eq "0> hi 0
1> hi 1" "$(grep '> hi' out | sort)" "lines with --prefix '{rank}> '"
assert_not_contains "$(cat out)" "[localhost:" "terminal with --prefix"
assert_eq "hi 0" "$(cat "muster-runs/$JOB/rank-0.log")" "rank-0.log with --prefix (logs are unprefixed)"

# --- manifest.json: valid JSON, exit code per rank ------------------------------------------------------------
job manifest
rc=0
# Rank 2 fails only once ranks 0 and 1 have exited (or are zombies): otherwise the gang's fail-fast may
# stop them first and the manifest rightly records their signal.
worker='
if [ "$RANK" != 2 ]; then echo $$ >"$1/pid-$RANK"; exit 0; fi
for rank in 0 1; do
  for _ in $(seq 200); do
    pid=$(cat "$1/pid-$rank" 2>/dev/null) || true
    if [ -n "$pid" ]; then
      state=$(sed "s/.*) //" "/proc/$pid/stat" 2>/dev/null | cut -c1) || true
      case $state in ""|Z) break ;; esac
    fi
    sleep 0.05
  done
done
exit 4'
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 3 -- sh -c "$worker" worker "$WORK" >out 2>err || rc=$?
assert_eq 4 "$rc" "exit code of a job whose rank 2 exits 4"
run=muster-runs/$JOB
python3 -m json.tool "$run/manifest.json" >/dev/null || fail "manifest.json does not parse: $(cat "$run/manifest.json")"
assert_eq "$JOB" "$(manifest_get "$run" 'm["job_id"]')" "manifest job_id"
assert_eq 4 "$(manifest_get "$run" 'm["exit_code"]')" "manifest exit_code"
assert_eq 3 "$(manifest_get "$run" 'm["world_size"]')" "manifest world_size"
assert_eq "0 0 4" "$(manifest_get "$run" '" ".join(str(m["attempts"][-1]["ranks"][r]["code"]) for r in ("0", "1", "2"))')" \
  "manifest per-rank exit codes"
