# shellcheck shell=bash
# shellcheck disable=SC2034  # MUSTER_START_US, EXIT_RC, EXIT_US, GONE_MS ... are read by the test scripts
# shellcheck disable=SC2016  # the sh -c scripts run on the nodes expand their own variables
# launch_lib.sh — helpers for the tests/cluster/launch_*_test.sh scenarios (`muster launch` on the testbed).
# Source it after lib.sh and after require_root_and_namespaces.
#
# Gives:
#   REPO, MUSTER            the checkout (must be visible on the nodes, e.g. under /work) and the binary under
#                           test ($MUSTER_BIN from CTest, else build/muster)
#   require_torch           skip (77) without torch for /usr/bin/python3 (fail with MUSTER_REQUIRE_CLUSTER=1)
#   launch_setup N [ARG..]  testbed up N ARG.. (e.g. --mesh) (healing partitions / removing rate caps an earlier run left),
#                           MUSTER_SSH, a head-only scratch dir SCRATCH (removed on exit), cd REPO
#   MUSTER_SSH              the flags muster needs to reach node1..nodeN by name: --ssh-config FILE with
#                           MUSTER_TESTBED_SSH_INCLUDE=0, else nothing (~/.ssh/config includes the testbed)
#   muster_launch ARGS...   `muster launch MUSTER_SSH ARGS...` in the foreground
#   start_muster OUT ARGS.. the same in the background, stdout+stderr to OUT; sets MUSTER_PID, MUSTER_START_US
#                           (a muster still running when the test exits gets SIGTERM)
#   running PID             PID is alive and not a zombie
#   wait_exit PID SECONDS   bounded wait for a background child: sets EXIT_RC (124 after the timeout: the child
#                           is SIGKILLed) and EXIT_US (when it was seen gone, ~10 ms resolution)
#   wait_until SECONDS CMD  polls CMD every 50 ms; false after SECONDS
#   job_processes_on NODE JOBID   "pid cmdline" of every process on NODE whose environment holds
#                                 MUSTER_JOB_ID=JOBID (nothing for a dead node)
#   all_job_processes JOBID [NODE...], count_job_processes JOBID
#   assert_no_job_processes JOBID [SECONDS [NODE...]]   polls the NODEs (default all) until none has a job
#                                 process; fails after SECONDS (default 2); sets GONE_MS (how long it took)
#   proc_env NODE PID NAME        a variable from a process's environment
#   agent_pids_on NODE [PATTERN]  pids of `muster agent` processes (pgrep -f PATTERN) on NODE, not their guards
#   muster_processes_on NODE, assert_no_agents [SECONDS]   muster processes (agent, guard) left on the nodes
#   now_us, ms_between START_US END_US, secs_to_us S, fmt_ms MS, sleep_s SECONDS (a builtin: no fork)
#
# Every muster started here uses its own ssh ControlPath directory (XDG_CACHE_HOME of the head process only;
# muster never propagates XDG_* to workers), so these tests share no ssh master connection with another
# testbed or a user's own muster runs; the masters are closed on exit.

REPO=${MUSTER_SOURCE_DIR:-$(cd "$CLUSTER_TEST_DIR/../.." && pwd)}
MUSTER=${MUSTER_BIN:-$REPO/build/muster}
MUSTER_SSH=()
SCRATCH=
MUX_HOME=
TESTBED_NODES=0

exec {SLEEP_FD}<> <(:)
sleep_s() { read -rt "$1" -u "$SLEEP_FD" _ || true; }
now_us() { echo "${EPOCHREALTIME/./}"; }
ms_between() { echo $((($2 - $1) / 1000)); }
# secs_to_us 1.5 → 1500000
secs_to_us() {
  local int=${1%%.*} frac=
  [[ $1 == *.* ]] && frac=${1#*.}
  frac=${frac}000000
  echo $((10#${int:-0} * 1000000 + 10#${frac:0:6}))
}
# fmt_ms MS → "1.234"
fmt_ms() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

# require_torch: skip (77) when /usr/bin/python3 has no torch; with MUSTER_REQUIRE_CLUSTER=1 (CI) fail instead.
require_torch() {
  /usr/bin/python3 -c 'import importlib.util as u, sys; sys.exit(u.find_spec("torch") is None)' && return 0
  [[ ${MUSTER_REQUIRE_CLUSTER:-0} != 1 ]] || fail "/usr/bin/python3 has no torch (apt-get install python3-torch)"
  echo "" >&2
  echo "SKIP: $TEST_NAME: /usr/bin/python3 has no torch (apt-get install python3-torch)" >&2
  echo "" >&2
  exit 77
}

launch_setup() {
  TESTBED_NODES=$1
  [[ -x $MUSTER ]] || fail "no muster binary at $MUSTER (build it first, or set MUSTER_BIN)"
  local out
  out=$("$TESTBED" up "$TESTBED_NODES" "${@:2}" 2>&1) || fail "testbed up $TESTBED_NODES ${*:2}: $out"
  # `up` keeps a testbed that is already up as it is: undo a partition or rate cap left by an earlier run.
  local node state rate
  while read -r node _ _ state rate; do
    [[ $node == node* ]] || continue
    [[ $state != *partitioned* ]] || "$TESTBED" heal "$node"
    [[ $rate == - ]] || "$TESTBED" rate "$node" none
  done < <("$TESTBED" status)
  if [[ ${MUSTER_TESTBED_SSH_INCLUDE:-1} != 1 ]]; then MUSTER_SSH=(--ssh-config "$("$TESTBED" ssh-config)"); fi
  SCRATCH=$(mktemp -d /tmp/muster-launch-test.XXXXXX)
  MUX_HOME=$SCRATCH/x  # short: ssh control socket paths are limited to ~100 bytes
  mkdir -p "$MUX_HOME"
  add_cleanup close_muster_masters
  add_cleanup stop_muster
  "$TESTBED" exec node1 test -d "$REPO" ||
    fail "the checkout $REPO is not visible on the nodes (only /tmp, /data, /run, /root are node-private)"
  cd "$REPO" || fail "cannot cd to $REPO"
}

close_muster_masters() {
  local sock
  [[ -n $SCRATCH && -d $SCRATCH ]] || return 0
  for sock in "$MUX_HOME"/muster/ssh/*; do
    [[ -S $sock ]] && timeout 5 ssh -F /dev/null -o ControlPath="$sock" -O exit muster-test >/dev/null 2>&1
  done
  rm -rf "$SCRATCH"
}

# On exit (a failed assertion): no muster of ours keeps running.
stop_muster() {
  [[ -n ${MUSTER_PID:-} ]] && running "$MUSTER_PID" || return 0
  kill -TERM "$MUSTER_PID" 2>/dev/null
  wait_exit "$MUSTER_PID" 10
}

muster_launch() { XDG_CACHE_HOME=$MUX_HOME "$MUSTER" launch "${MUSTER_SSH[@]}" "$@"; }

start_muster() {
  local out=$1
  shift
  MUSTER_START_US=$(now_us)
  XDG_CACHE_HOME=$MUX_HOME "$MUSTER" launch "${MUSTER_SSH[@]}" "$@" >"$out" 2>&1 &
  MUSTER_PID=$!
}

# True while PID is alive and not a zombie.
running() {
  local stat state
  read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
  state=${stat##*) }
  [[ ${state:0:1} != Z ]]
}

wait_exit() {
  local pid=$1 deadline=$(($(now_us) + $(secs_to_us "$2")))
  while running "$pid"; do
    if (($(now_us) > deadline)); then
      kill -KILL "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
      EXIT_RC=124
      EXIT_US=$(now_us)
      return 0
    fi
    sleep_s 0.01
  done
  EXIT_US=$(now_us)
  EXIT_RC=0
  wait "$pid" 2>/dev/null || EXIT_RC=$?  # 2>/dev/null: no "Killed" job notice
}

# wait_until SECONDS CMD [ARG...]: polls CMD every 50 ms; false after SECONDS.
wait_until() {
  local deadline=$(($(now_us) + $(secs_to_us "$1")))
  shift
  until "$@"; do
    (($(now_us) <= deadline)) || return 1
    sleep_s 0.05
  done
}

job_processes_on() {
  local rc=0 out
  # grep -z: NUL-separated lines of /proc/PID/environ; the scanning grep's own environment has no job id.
  out=$("$TESTBED" exec "$1" sh -c '
    for f in $(grep -lzxF "MUSTER_JOB_ID=$1" /proc/[0-9]*/environ 2>/dev/null); do
      pid=${f#/proc/}; pid=${pid%/environ}
      cmd=$(tr "\0\n" "  " <"/proc/$pid/cmdline" 2>/dev/null) && [ -n "$cmd" ] && echo "$pid $cmd"
    done; true' job-scan "$2" 2>/dev/null) || rc=$?
  ((rc == 255)) && return 0  # the node is down: nothing runs there
  ((rc == 0)) || fail "cannot scan $1 for job processes (exit $rc)"
  [[ -z $out ]] || printf '%s\n' "$out"
}

# all_job_processes JOBID [NODE...]: "nodeK: pid cmdline" lines over the NODEs (default: every node).
all_job_processes() {
  local job=$1 node nodes=("${@:2}") k
  if ((${#nodes[@]} == 0)); then for ((k = 1; k <= TESTBED_NODES; k++)); do nodes+=("node$k"); done; fi
  for node in "${nodes[@]}"; do job_processes_on "$node" "$job" | sed "s/^/$node: /"; done
}

# count_job_processes JOBID: how many processes of the job run, over every node.
count_job_processes() { all_job_processes "$1" | grep -c . || true; }

assert_no_job_processes() {
  local job=$1 limit=${2:-2} start left deadline
  start=$(now_us)
  deadline=$((start + $(secs_to_us "$limit")))
  while :; do
    left=$(all_job_processes "$job" "${@:3}")
    [[ -z $left ]] && break
    (($(now_us) <= deadline)) || fail "job $job still has processes ${limit}s later:"$'\n'"$left"
    sleep_s 0.1
  done
  GONE_MS=$(ms_between "$start" "$(now_us)")
}

# proc_env NODE PID NAME: the value of NAME in the environment of process PID on NODE.
proc_env() {
  "$TESTBED" exec "$1" sh -c 'tr "\0" "\n" <"/proc/$1/environ" | sed -n "s/^$2=//p"' proc-env "$2" "$3"
}

# The guard, a fork of the agent with the same command line, is told apart by its name (comm muster-guard).
agent_pids_on() {
  # shellcheck disable=SC2016  # for the node's sh
  "$TESTBED" exec "$1" sh -c 'for p in $(pgrep -f "$1"); do
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = muster-guard ] || echo "$p"; done' _ "${2:-[m]uster agent}" || true
}

# muster_processes_on NODE: "pid exe" of every process on NODE that runs a muster binary from ~/.cache/muster
# (the uploaded agent, and its guard, whose argv[0] is /proc/self/exe).
muster_processes_on() {
  "$TESTBED" exec "$1" sh -c '
    for p in /proc/[0-9]*; do
      exe=$(readlink "$p/exe" 2>/dev/null) || continue
      case "$exe" in */.cache/muster/*) echo "${p#/proc/} $exe" ;; esac
    done' muster-scan 2>/dev/null || true
}

# assert_no_agents [SECONDS]: within SECONDS (default 2), no muster process (agent, guard) on any live node.
assert_no_agents() {
  local limit=${1:-2} deadline k left
  deadline=$(($(now_us) + $(secs_to_us "$limit")))
  while :; do
    left=$(for ((k = 1; k <= TESTBED_NODES; k++)); do muster_processes_on "node$k" | sed "s/^/node$k: /"; done)
    [[ -z $left ]] && return 0
    (($(now_us) <= deadline)) || fail "muster processes still running on the nodes ${limit}s later:"$'\n'"$left"
    sleep_s 0.1
  done
}
