#!/usr/bin/env bash
# container_slurm_test.sh — `muster launch --container-image` under Slurm with real podman on 3 testbed nodes
# (`testbed up 3 --containers --mesh` + `testbed slurm up`), the image built from Debian packages
# (tests/cluster/container-image, python3-torch) and loaded into every node's store:
#   1. `salloc -N3 muster launch --container-image` (the srun transport: the task's stdout is a pty there, so
#      podman attaches through conmon instead of passthrough) runs DDP 3 x 2 with identical checksums and the
#      job's SLURM_JOB_ID inside;
#   2. `scancel` of a running batch job leaves no container and no job process within 5 s.
# Split from container_launch_test.sh, which needs no Slurm: a machine without Slurm skips only this test.
# Exit 0 pass, 1 fail, 77 skip (no root / namespaces / podman / torch / Slurm; a failure with
# MUSTER_REQUIRE_CLUSTER=1).
# shellcheck disable=SC2016  # the sh -c scripts run on the nodes expand their own variables
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"  # before `set -e`: see launch_ddp_test.sh
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"
# shellcheck source=container_lib.sh
source "$(dirname "$0")/container_lib.sh"
require_container_tools
missing=()
for tool in slurmctld slurmd munged salloc sbatch scancel; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
if ((${#missing[@]})); then
  [[ ${MUSTER_REQUIRE_CLUSTER:-0} != 1 ]] ||
    fail "missing ${missing[*]} (scripts/install-deps installs slurm-wlm, munge; MUSTER_REQUIRE_CLUSTER=1)"
  echo "SKIP: $TEST_NAME: missing ${missing[*]} (scripts/install-deps installs slurm-wlm, munge)" >&2
  exit 77
fi

readonly NODES=3 PER_NODE=2 WORLD=6
export MUSTER_TESTBED_CONTAINERS_TMPFS=${MUSTER_TESTBED_CONTAINERS_TMPFS:-3g}

slurm_in_containers() {
  local out run=/tmp/ct-slurm-$$ lines job=ct-scancel-$$ t0 wrap
  step "1. Slurm: salloc -N$NODES muster launch --container-image"
  out=$("$TESTBED" slurm up 2>&1) || fail "testbed slurm up: $out"
  add_cleanup slurm_down
  out=$("$TESTBED" exec node1 bash -c 'cd "$1" && shift && salloc -N"$1" --ntasks-per-node="$2" "${@:3}"' salloc-ct \
    "$REPO" "$NODES" "$PER_NODE" "$MUSTER" launch "${CONTAINER_ARGS[@]}" --run-dir "$run" \
    -- sh -c 'echo "slurm job $SLURM_JOB_ID"; exec python3 examples/ddp_train.py --steps 5' 2>&1) ||
    fail "1. DDP in containers under salloc failed: $out"
  mapfile -t lines < <(grep -ohE "$CHECKSUM_RE" <<<"$out" || true)
  check_checksums "1. salloc DDP" "${lines[@]}"
  [[ $out =~ \]\ slurm\ job\ [0-9]+ ]] || fail "1. SLURM_JOB_ID not set inside the containers: $out"
  step "2. scancel of a batch job in containers"
  wrap=$(printf '%q ' "$MUSTER" launch "${CONTAINER_ARGS[@]}" --job-id "$job" --run-dir "$run-b" \
    -- sh -c 'echo up; sleep 100 & wait')
  "$TESTBED" exec node1 bash -c 'cd "$1" && sbatch -N"$2" --ntasks-per-node="$3" -o "$4" --wrap "$5"' sbatch-ct \
    "$REPO" "$NODES" "$PER_NODE" "/tmp/ct-sbatch-$$.out" "$wrap" >/dev/null || fail "2. sbatch failed"
  wait_until 60 eval '(($(count_job_processes "$job") == 2 * WORLD))' ||
    fail "2. the batch job's ranks did not start: $(all_job_processes "$job")"
  t0=$(now_us)
  "$TESTBED" exec node1 scancel -u root
  assert_clean "$job" 5
  step "2. scancel: no container and no job process $(fmt_ms "$(ms_between "$t0" "$(now_us)")") s later"
}

slurm_down() { "$TESTBED" slurm down >/dev/null 2>&1 || true; }

main() {
  require_torch
  build_test_image
  launch_setup "$NODES" --containers --mesh
  set_container_args
  local node
  for node in node1 node2 node3; do load_image_on "$node"; done
  step "image ${IMAGE_ID:0:12} loaded on node1-3"
  slurm_in_containers
  step "PASS"
}

main
