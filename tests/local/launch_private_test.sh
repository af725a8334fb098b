#!/usr/bin/env bash
# shellcheck disable=SC2016  # worker scripts are single-quoted on purpose
# launch: what muster writes on disk is private by default, and the manifest holds no credential of the command.
#   1. under umask 022, a new run directory is 0700, every rank-N.log and manifest.json 0600;
#   2. a run directory that exists already keeps its mode (shared on purpose), new files in it are still 0600;
#   2b. `muster submit` (--dry-run: no Slurm needed) makes its run directory 0700 and the script 0600;
#   3. a symbolic link planted as a rank log is not followed (the launch fails, the link's target is untouched);
#   4. manifest.json's command has `--token abc`, `--api-key=xyz` and `HF_TOKEN=...` in a script redacted, and
#      keeps everything else; so do the job's record (job.json) and its copy in the job registry
#      ($XDG_STATE_HOME/muster/jobs/<id>.json), both 0600;
#   5. a failed rank's error file (error-N.json, from TORCHELASTIC_ERROR_FILE) is 0600;
#   6. a detached head's head.log is 0600.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
umask 022
export XDG_STATE_HOME=$WORK/state  # this test's job registry (records are read back below)

mode() { stat -c %a "$1"; }

# --- new run directory -------------------------------------------------------------------------------------------
job modes
"$MUSTER" launch --job-id "$JOB" --nproc-per-node 2 -- sh -c 'echo hi' >out 2>err || fail "launch exited $?: $(cat out err)"
assert_eq 700 "$(mode "muster-runs/$JOB")" "mode of the new run directory"
for file in rank-0.log rank-1.log manifest.json job.json; do
  assert_eq 600 "$(mode "muster-runs/$JOB/$file")" "mode of $file"
done

# --- an existing run directory keeps its mode ----------------------------------------------------------------------
job shared
mkdir -m 0755 shared-run
"$MUSTER" launch --job-id "$JOB" --run-dir shared-run -- true >out 2>err || fail "launch exited $?: $(cat out err)"
assert_eq 755 "$(mode shared-run)" "mode of a run directory the user made"
assert_eq 600 "$(mode shared-run/rank-0.log)" "mode of a rank log in it"

# --- submit's run directory and script -----------------------------------------------------------------------------
"$MUSTER" submit --dry-run --nodes 1 --run-dir submitted -- true >out 2>err || fail "submit --dry-run exited $?: $(cat err)"
assert_eq 700 "$(mode submitted)" "mode of submit's run directory"
assert_eq 600 "$(mode submitted/muster.sbatch)" "mode of the batch script"

# --- a planted symbolic link is not followed -----------------------------------------------------------------------
job planted
mkdir -m 0700 planted-run
echo "precious" >target
ln -s "$WORK/target" planted-run/rank-0.log
rc=0
"$MUSTER" launch --job-id "$JOB" --run-dir planted-run -- sh -c 'echo overwritten' >out 2>err || rc=$?
[[ $rc != 0 ]] || fail "a launch whose rank-0.log is a symbolic link succeeded (the link was followed?)"
assert_contains "$(cat out err)" "rank-0.log" "error about the planted link"
assert_eq "precious" "$(cat target)" "the planted link's target"

# --- the recorded command is redacted ------------------------------------------------------------------------------
job redact
"$MUSTER" launch --job-id "$JOB" -- sh -c 'HF_TOKEN=hf_s3cr3t true --token abc1 --lr 0.1' x --api-key=xyz2 \
  --max-tokens 512 >out 2>err || fail "launch exited $?: $(cat out err)"
command=$(manifest_get "muster-runs/$JOB" '" | ".join(m["command"])')
assert_eq 'sh | -c | HF_TOKEN=*** true --token *** --lr 0.1 | x | --api-key=*** | --max-tokens | 512' "$command" \
  "manifest command"
if grep -qE 'hf_s3cr3t|abc1|xyz2' "muster-runs/$JOB/manifest.json"; then
  fail "a secret of the command line is in manifest.json: $(grep -E 'hf_s3cr3t|abc1|xyz2' "muster-runs/$JOB/manifest.json")"
fi
for record in "muster-runs/$JOB/job.json" "$XDG_STATE_HOME/muster/jobs/$JOB.json"; do
  [[ -f $record ]] || fail "no job record $record"
  assert_eq 600 "$(mode "$record")" "mode of $record"
  assert_eq 700 "$(mode "$(dirname "$record")")" "mode of the directory of $record"
  if grep -qE 'hf_s3cr3t|abc1|xyz2' "$record"; then
    fail "a secret of the command line is in $record: $(grep -E 'hf_s3cr3t|abc1|xyz2' "$record")"
  fi
  assert_contains "$(cat "$record")" "--token ***" "the command in $record"
done

# --- a failed rank's error file ------------------------------------------------------------------------------------
job errorfile
rc=0
"$MUSTER" launch --job-id "$JOB" -- sh -c 'printf "{\"message\": \"boom\"}" >"$TORCHELASTIC_ERROR_FILE"; exit 3' \
  >out 2>err || rc=$?
[[ $rc != 0 ]] || fail "a rank that exits 3 made the launch succeed"
[[ -f "muster-runs/$JOB/error-0.json" ]] || fail "no error-0.json in the run directory: $(ls "muster-runs/$JOB")"
assert_eq 600 "$(mode "muster-runs/$JOB/error-0.json")" "mode of error-0.json"

# --- a detached head's log -----------------------------------------------------------------------------------------
job detached
id=$("$MUSTER" launch --detach --job-id "$JOB" -- sh -c 'echo hi' 2>err) || fail "launch --detach exited $?: $(cat err)"
assert_eq "$JOB" "$id" "what launch --detach prints"
[[ -f "muster-runs/$JOB/head.log" ]] || fail "no head.log in the detached job's run directory"
assert_eq 600 "$(mode "muster-runs/$JOB/head.log")" "mode of head.log"
detached_ended() {
  python3 -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1]))["ended_unix_ms"] else 1)' \
    "muster-runs/$JOB/job.json" 2>/dev/null
}
wait_until 30 detached_ended || fail "the detached job did not end within 30 s: $(cat "muster-runs/$JOB/head.log")"
assert_eq 600 "$(mode "muster-runs/$JOB/head.log")" "mode of head.log after the job"
