# shellcheck shell=bash
# lib.sh — sourced by every tests/local/*_test.sh scenario (black-box tests of the muster binary on this
# machine, local transport, no root).
#
# Gives: MUSTER (the binary, from $MUSTER_BIN or build/muster), TEST_NAME, WORK (a fresh temp dir, also the
# cwd, removed on exit), fail/assert_* helpers, job (sets JOB, a fresh --job-id), job_processes, wait_until,
# elapsed_since, start_bg/wait_bg (muster in the background, remembered for cleanup), manifest_get, and an
# EXIT trap that kills (by pid) every process of every job this test started and every background head
# and its agent, even after a failure.
# A test exits 0 (pass) or 1 (fail, with a `FAIL: <test>: ...` line on stderr).

LOCAL_TEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TEST_NAME=$(basename "${0%.sh}")
MUSTER=${MUSTER_BIN:-$LOCAL_TEST_DIR/../../build/muster}
[[ -x $MUSTER ]] || { echo "FAIL: $TEST_NAME: muster binary not found: $MUSTER (set MUSTER_BIN)" >&2; exit 1; }
MUSTER=$(realpath "$MUSTER")  # the test runs in its own directory

WORK=$(mktemp -d "${TMPDIR:-/tmp}/muster-$TEST_NAME.XXXXXX")
cd "$WORK" || exit 1
export XDG_CONFIG_HOME=$WORK/.config  # no user config.toml of whoever runs the tests (muster.toml: none above)

JOB_IDS=()     # every job id handed out by job(): its processes are killed on exit
BG_PIDS=()     # background muster heads started by start_bg
JOB_SEQ=0

fail() {
  echo "FAIL: $TEST_NAME: $*" >&2
  exit 1
}

# assert_eq EXPECTED ACTUAL [WHAT]
assert_eq() {
  [[ $1 == "$2" ]] || fail "${3:-value}: expected '$1', got '$2'"
}

# assert_contains HAYSTACK NEEDLE [WHAT]
assert_contains() {
  [[ $1 == *"$2"* ]] || fail "${3:-output}: expected to contain '$2', got:
$1"
}

# assert_not_contains HAYSTACK NEEDLE [WHAT]
assert_not_contains() {
  [[ $1 != *"$2"* ]] || fail "${3:-output}: expected NOT to contain '$2', got:
$1"
}

# assert_file_bytes EXPECTED_FILE ACTUAL_FILE [WHAT]: byte-exact comparison, with a hex dump on mismatch.
assert_file_bytes() {
  [[ -f $2 ]] || fail "${3:-file}: $2 does not exist"
  if ! cmp -s "$1" "$2"; then
    fail "${3:-file}: bytes differ
expected ($1):
$(od -c "$1" | head -20)
actual ($2):
$(od -c "$2" | head -20)"
  fi
}

# job [TAG]: sets JOB to a job id unique to this test run (pass it to --job-id); the job's processes are
# killed when the test exits.
job() {
  JOB_SEQ=$((JOB_SEQ + 1))
  JOB="t-$TEST_NAME-$$-$JOB_SEQ${1:+-$1}"
  JOB_IDS+=("$JOB")
}

# job_processes JOB_ID: pids (one a line) of live processes whose environment has MUSTER_JOB_ID=JOB_ID.
# Zombies are left out (they hold nothing and are gone when reaped).
job_processes() {
  local file pid state
  # shellcheck disable=SC2013  # /proc/PID/environ paths have no spaces
  for file in $(grep -lzxF -- "MUSTER_JOB_ID=$1" /proc/[0-9]*/environ 2>/dev/null); do
    pid=${file#/proc/}
    pid=${pid%/environ}
    state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || continue
    [[ $state == Z ]] || echo "$pid"
  done
}

# no_job_processes JOB_ID: true when no process of the job is alive.
no_job_processes() {
  [[ -z $(job_processes "$1") ]]
}

# describe_job_processes JOB_ID: `ps` lines of the job's processes, for failure messages.
describe_job_processes() {
  local pids
  pids=$(job_processes "$1" | paste -sd, -)
  [[ -n $pids ]] && ps -o pid,ppid,pgid,stat,cmd -p "$pids" 2>/dev/null
  return 0
}

# agent_of PID: the pid of the muster agent above process PID (its worker, or a process the worker started), found
# by walking up the parents; fails when there is none. Tests that kill one virtual node's agent find it this way,
# never by its --node-name: another test running at the same time may have a node of the same name.
agent_of() {
  local pid=$1 up
  for _ in 1 2 3 4 5 6 7 8; do
    up=$(ps -o ppid= -p "$pid" 2>/dev/null | tr -d ' ')
    [[ -n $up && $up != 0 && $up != 1 ]] || return 1
    if [[ $(tr '\0' '\n' <"/proc/$up/cmdline" 2>/dev/null | sed -n 2p) == agent ]]; then
      echo "$up"
      return 0
    fi
    pid=$up
  done
  return 1
}

# wait_until SECONDS CMD [ARG...]: polls CMD every 50 ms until it succeeds (0) or SECONDS pass (1).
wait_until() {
  local limit=$1
  shift
  local deadline
  deadline=$(awk -v now="$EPOCHREALTIME" -v s="$limit" 'BEGIN { printf "%.6f", now + s }')
  while true; do
    "$@" && return 0
    awk -v now="$EPOCHREALTIME" -v d="$deadline" 'BEGIN { exit !(now >= d) }' && return 1
    sleep 0.05
  done
}

# elapsed_since START: seconds (decimal) since START, an $EPOCHREALTIME value.
elapsed_since() {
  awk -v now="$EPOCHREALTIME" -v s="$1" 'BEGIN { printf "%.3f", now - s }'
}

# assert_faster SECONDS START WHAT: fails when more than SECONDS passed since START.
assert_faster() {
  local took
  took=$(elapsed_since "$2")
  awk -v t="$took" -v l="$1" 'BEGIN { exit !(t < l) }' || fail "$3: took ${took}s, expected < $1 s"
}

# start_bg OUTFILE ARG...: runs `muster ARG...` in the background with stdout+stderr in OUTFILE; sets BG_PID.
start_bg() {
  local out=$1
  shift
  "$MUSTER" "$@" >"$out" 2>&1 &
  BG_PID=$!
  BG_PIDS+=("$BG_PID")
}

# wait_bg PID SECONDS: waits for the background head to exit, at most SECONDS; sets BG_RC (or fails).
wait_bg() {
  local pid=$1
  if ! wait_until "$2" head_exited "$pid"; then
    fail "muster (pid $pid) still running after $2 s"
  fi
  local rc=0 left=() p
  wait "$pid" || rc=$?
  BG_RC=$rc  # read by the tests
  export BG_RC
  for p in "${BG_PIDS[@]}"; do [[ $p == "$pid" ]] || left+=("$p"); done
  BG_PIDS=("${left[@]}")  # reaped: its pid may be reused, cleanup must not kill it
}
head_exited() {
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 0
  [[ $state == Z ]]
}

# The manifest's field at a Python expression path, e.g. manifest_get muster-runs/J 'm["exit_code"]'.
manifest_get() {
  python3 - "$1/manifest.json" "$2" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
print(eval(sys.argv[2], {"m": m}))
EOF
}

cleanup_local_test() {
  local rc=$? id pid
  for pid in "${BG_PIDS[@]}"; do
    kill -KILL $(pgrep -P "$pid" 2>/dev/null) "$pid" 2>/dev/null || true  # the head and its agent
  done
  for id in "${JOB_IDS[@]}"; do
    for pid in $(job_processes "$id"); do
      kill -KILL "$pid" 2>/dev/null || true
    done
  done
  wait 2>/dev/null || true
  remove_slow_cgroup
  cd / && rm -rf "$WORK"
  if ((rc == 0)); then echo "PASS: $TEST_NAME"; fi
  exit "$rc"
}
trap cleanup_local_test EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- a slow machine ------------------------------------------------------------------------------------------------
# slow_cpu_available: true when this test can confine processes to a CPU quota (root, and a cgroup v1 `cpu`
# hierarchy or a cgroup v2 one with the cpu controller). needs_slow_cpu: exit 77 (SKIP) without it, or fail
# when MUSTER_REQUIRE_CLUSTER=1 (CI runs as root: a skip there would hide the test).
SLOW_CGROUP=""
slow_cpu_dir() {
  if [[ -w /sys/fs/cgroup/cpu && -e /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]]; then echo /sys/fs/cgroup/cpu
  elif [[ -w /sys/fs/cgroup/unified && -e /sys/fs/cgroup/unified/cgroup.controllers ]] &&
    grep -qw cpu /sys/fs/cgroup/unified/cgroup.controllers; then echo /sys/fs/cgroup/unified
  elif [[ -w /sys/fs/cgroup && -e /sys/fs/cgroup/cgroup.controllers ]] &&
    grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then echo /sys/fs/cgroup
  fi
}
needs_slow_cpu() {
  [[ $(id -u) == 0 && -n $(slow_cpu_dir) ]] && return 0
  if [[ ${MUSTER_REQUIRE_CLUSTER:-0} == 1 ]]; then
    fail "this test needs root and a cgroup cpu controller (a CPU quota stands in for a slow machine)"
  fi
  echo "SKIP: $TEST_NAME: needs root and a cgroup cpu controller (a CPU quota stands in for a slow machine)" >&2
  trap - EXIT
  cd / && rm -rf "$WORK"
  exit 77
}
# make_slow_cpu PERCENT: a cgroup of this test's own (removed on exit) that gets PERCENT of one core.
# in_slow_cpu CMD [ARG...]: moves this (sub)shell into it and execs CMD there, so CMD and everything it starts
# run slowly; use it in a subshell: `(in_slow_cpu muster launch ...)`, `(in_slow_cpu muster ...) &` ($! is muster).
make_slow_cpu() {
  local percent=$1 root
  root=$(slow_cpu_dir)
  SLOW_CGROUP=$root/muster-test-$TEST_NAME-$$
  mkdir -p "$SLOW_CGROUP"
  if [[ -e $SLOW_CGROUP/cpu.cfs_quota_us ]]; then
    echo 100000 >"$SLOW_CGROUP/cpu.cfs_period_us"
    echo $((percent * 1000)) >"$SLOW_CGROUP/cpu.cfs_quota_us"
  else
    grep -qw cpu "$root/cgroup.subtree_control" || echo +cpu >"$root/cgroup.subtree_control"
    echo "$((percent * 1000)) 100000" >"$SLOW_CGROUP/cpu.max"
  fi
}
in_slow_cpu() {
  echo "$BASHPID" >"$SLOW_CGROUP/cgroup.procs"
  exec "$@"
}
remove_slow_cgroup() {
  [[ -n $SLOW_CGROUP && -d $SLOW_CGROUP ]] || return 0
  local pid
  for pid in $(cat "$SLOW_CGROUP/cgroup.procs" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
  for _ in 1 2 3 4 5 6 7 8 9 10; do rmdir "$SLOW_CGROUP" 2>/dev/null && return 0; sleep 0.1; done
}
