# shellcheck shell=bash
# shellcheck disable=SC2034  # JOB_STATE, JOB_DONE_US ... are read by the test scripts
# shellcheck disable=SC2016  # the sh -c scripts run on the nodes expand their own variables
# slurm_lib.sh — helpers for the tests/cluster/slurm_*_test.sh scenarios: muster on a real Slurm (slurmctld on
# node1, munged and slurmd on every node; `testbed slurm up`). Source it after lib.sh and
# require_root_and_namespaces; it sources launch_lib.sh.
#
# Gives (besides launch_lib.sh's helpers):
#   require_slurm           skip (77) without slurm-wlm/munge (fail with MUSTER_REQUIRE_CLUSTER=1)
#   slurm_setup N           testbed up N with SHARED (a scratch dir at the same path on the head and every node,
#                           like a shared home; removed on exit) and Slurm up; cd REPO
#   on_node1 CMD [ARG...]   CMD inside node1 (Slurm's clients work there), in the current directory
#   job_field JOB FIELD     a field of `scontrol show job` (JobState, ExitCode, ...); empty once forgotten
#   wait_job_done JOB SECS  bounded wait until JOB is neither pending nor running nor completing; sets
#                           JOB_STATE and JOB_DONE_US; false after SECS
#   stop_sshds              stops every node's sshd (and checks port 22 no longer answers)

# shellcheck source=launch_lib.sh
source "$CLUSTER_TEST_DIR/launch_lib.sh"

SHARED=

require_slurm() {
  local tool
  for tool in slurmctld slurmd munged srun sbatch salloc scancel scontrol; do
    command -v "$tool" >/dev/null && continue
    [[ ${MUSTER_REQUIRE_CLUSTER:-0} != 1 ]] || fail "missing $tool (scripts/install-deps installs slurm-wlm and munge)"
    printf '\nSKIP: %s: missing %s (apt-get install slurm-wlm munge)\n\n' "$TEST_NAME" "$tool" >&2
    exit 77
  done
}

slurm_setup() {
  SHARED=$(mktemp -d /tmp/muster-slurm-test.XXXXXX)
  add_cleanup 'rm -rf "$SHARED"'
  export MUSTER_TESTBED_SHARE="$REPO:$SHARED"
  # A testbed left up by an earlier run was made without SHARED: start afresh.
  "$TESTBED" down >/dev/null 2>&1 || true
  launch_setup "$1"
  local out
  out=$("$TESTBED" slurm up 2>&1) || fail "testbed slurm up: $out"
  step "$out"
  "$TESTBED" exec node1 test -d "$SHARED" || fail "$SHARED is not visible on node1"
}

on_node1() { "$TESTBED" exec node1 "$@"; }

job_field() {
  local line
  line=$(on_node1 scontrol show job -o "$1" 2>/dev/null) || return 0
  [[ " $line " =~ \ $2=([^ ]*)\  ]] && echo "${BASH_REMATCH[1]}"
  return 0
}

wait_job_done() {
  local job=$1 deadline=$(($(now_us) + $(secs_to_us "$2")))
  while :; do
    JOB_STATE=$(job_field "$job" JobState)
    case $JOB_STATE in
      PENDING | RUNNING | CONFIGURING | COMPLETING | SUSPENDED | "") ;;
      *) JOB_DONE_US=$(now_us); return 0 ;;
    esac
    (($(now_us) <= deadline)) || return 1
    sleep_s 0.1
  done
}

stop_sshds() {
  local k
  for ((k = 1; k <= TESTBED_NODES; k++)); do
    "$TESTBED" exec "node$k" sh -c 'kill "$(cat /run/sshd.pid)"' || fail "cannot stop sshd on node$k"
  done
  for ((k = 1; k <= TESTBED_NODES; k++)); do
    wait_until 5 sshd_gone "node$k" || fail "sshd on node$k still answers"
  done
}

sshd_gone() {
  local ip
  ip=$("$TESTBED" ip "$1")
  ! timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/22"' _ "$ip" 2>/dev/null
}
