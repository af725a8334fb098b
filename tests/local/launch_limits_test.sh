#!/usr/bin/env bash
# shellcheck disable=SC2016  # worker scripts are single-quoted on purpose
# launch: big jobs within Debian's default open-file limits (soft 1,024, hard 4,096). muster raises its soft
# limit to the hard one (head and agent), the head keeps a bounded number of rank logs open, and a job that still
# does not fit fails before any worker starts, naming the limit (RLIMIT_NOFILE) and how to raise it.
#   1. ulimit -Sn 1024 -Hn 4096: 1 node x 1000 ranks of `true` succeeds, with a rank log per rank;
#   2. the same with every rank printing a line: every log holds exactly its rank's line;
#   3. workers still get the soft limit the user had (1024), not the raised one;
#   4. ulimit -n 256 (soft = hard): 200 ranks cannot fit on the node (2 pipes each): the launch fails at once with
#      the limit and the fix in its message, and not one worker ran.
#   5. the head's own need: 40 virtual nodes under ulimit -n 128 (the head connects to 32 of them through the
#      launch tree: 3 x 32 + rank logs + base > 128) are refused before any agent or worker starts, with the
#      limit, how to raise it and --fanout in the message;
#   6. ...but 100 virtual nodes under ulimit -n 256 run: the head holds 32 connections, not 100 (a count of 3 per
#      node, 428 descriptors, refused them);
#   7. a worker that cannot be started for the process limit (RLIMIT_NPROC, `ulimit -u`; as nobody when root,
#      which the limit does not bind) is reported with that limit named.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# limited SOFT HARD ARG...: muster launch ARG... under those limits (a subshell: this shell keeps its own).
limited() {
  local soft=$1 hard=$2
  shift 2
  (ulimit -Sn "$soft" && ulimit -Hn "$hard" && exec "$MUSTER" launch "$@")
}

# --- 1000 ranks of `true` ----------------------------------------------------------------------------------------
job true
start=$EPOCHREALTIME
limited 1024 4096 --job-id "$JOB" --nproc-per-node 1000 -- true >out 2>err ||
  fail "1000 ranks of true under ulimit -Sn 1024 -Hn 4096 exited $?: $(tail -n 5 out err)"
echo "1000 ranks of true: $(elapsed_since "$start") s" >&2
logs=$(find "muster-runs/$JOB" -name 'rank-*.log' | wc -l)
assert_eq 1000 "$logs" "rank logs of the 1000-rank job"
assert_eq 0 "$(manifest_get "muster-runs/$JOB" 'm["exit_code"]')" "manifest exit code"

# --- 1000 ranks that each print a line: complete logs ------------------------------------------------------------
job lines
limited 1024 4096 --job-id "$JOB" --nproc-per-node 1000 -- sh -c 'printf "rank %s of %s\n" "$RANK" "$WORLD_SIZE"' \
  >out 2>err || fail "1000 printing ranks exited $?: $(tail -n 5 out err)"
bad=0
for ((rank = 0; rank < 1000; rank++)); do
  [[ $(cat "muster-runs/$JOB/rank-$rank.log") == "rank $rank of 1000" ]] || bad=$((bad + 1))
done
assert_eq 0 "$bad" "rank logs whose content is not exactly their rank's line"

# --- workers see the user's soft limit ---------------------------------------------------------------------------
job soft
limited 1024 4096 --job-id "$JOB" --nproc-per-node 2 -- sh -c 'ulimit -Sn; ulimit -Hn' >out 2>err ||
  fail "ulimit job exited $?: $(cat out err)"
assert_eq "1024
4096" "$(cat "muster-runs/$JOB/rank-1.log")" "a worker's soft and hard open-file limits"

# --- too many ranks for the node's hard limit: refused before anything starts ------------------------------------
job toomany
rc=0
limited 256 256 --job-id "$JOB" --nproc-per-node 200 -- sh -c 'touch "started.$RANK"' >out 2>err || rc=$?
[[ $rc != 0 ]] || fail "200 ranks under ulimit -n 256 succeeded; expected a refusal"
message=$(cat out err)
assert_contains "$message" "RLIMIT_NOFILE" "refusal message"
assert_contains "$message" "200 workers need about 432 open files" "refusal message"
assert_contains "$message" "limits.conf" "refusal message (how to raise the limit)"
assert_contains "$message" "nothing was started" "refusal message"
started=$(find . -maxdepth 1 -name 'started.*' | wc -l)
assert_eq 0 "$started" "workers that ran although the launch was refused"

# --- the head's need counts the connections it holds itself, not the nodes --------------------------------------
job headlimit
rc=0
limited 128 128 --job-id "$JOB" -w 'vnode[1-40]' --transport local -- sh -c 'touch "started.$RANK"' >out 2>err || rc=$?
[[ $rc != 0 ]] || fail "40 virtual nodes under ulimit -n 128 succeeded; expected the head to refuse"
message=$(cat out err)
assert_contains "$message" "RLIMIT_NOFILE" "head refusal message"
assert_contains "$message" "a launch on 40 nodes needs about 200 open files" "head refusal message"
assert_contains "$message" "3 for each of the 32 nodes it connects to itself" "head refusal message"
assert_contains "$message" "limits.conf" "head refusal message (how to raise the limit)"
assert_contains "$message" "--fanout" "head refusal message (the other way out)"
assert_contains "$message" "nothing was started" "head refusal message"
started=$(find . -maxdepth 1 -name 'started.*' | wc -l)
assert_eq 0 "$started" "workers that ran although the head refused the launch"
[[ ! -d "muster-runs/$JOB" ]] || fail "the refused launch made its run directory: $(ls "muster-runs/$JOB")"

job tree
limited 256 256 -q --job-id "$JOB" -w 'vnode[1-100]' --transport local -- sh -c 'echo "$RANK"' >out 2>err ||
  fail "100 virtual nodes under ulimit -n 256 exited $?: $(tail -n 5 out err)"
assert_eq 100 "$(find "muster-runs/$JOB" -name 'rank-*.log' | wc -l)" "rank logs of the 100-node job"
assert_eq 99 "$(cat "muster-runs/$JOB/rank-99.log")" "rank 99's log"

# --- the process limit: a worker fork fails with EAGAIN ----------------------------------------------------------
job nproc
as_user=()
if [[ $(id -u) == 0 ]]; then
  command -v setpriv >/dev/null || fail "setpriv (util-linux) is needed to run the process-limit step as non-root"
  chmod 711 "$WORK"
  mkdir -p nproc && chown 65534:65534 nproc
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$WORK/nproc" XDG_CACHE_HOME="$WORK/nproc/cache"
    XDG_STATE_HOME="$WORK/nproc/state")
else
  mkdir -p nproc
fi
rc=0
(cd nproc && ulimit -u 12 && exec "${as_user[@]}" "$MUSTER" launch --job-id "$JOB" --nproc-per-node 30 -- sleep 5) \
  >out 2>err || rc=$?
[[ $rc != 0 ]] || fail "30 workers under ulimit -u 12 succeeded; expected a failed start"
assert_contains "$(cat out err)" "RLIMIT_NPROC" "message of a start that failed for the process limit"
assert_contains "$(cat out err)" "ulimit -u" "message of a start that failed for the process limit"
