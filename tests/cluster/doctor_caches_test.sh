#!/usr/bin/env bash
# doctor_caches_test.sh — the shared-disk trap of the how-tos (issue #18): the job's caches on a filesystem that
# every node shares.
#   1. HF_DATASETS_CACHE on a directory shared by all 3 nodes (an NFS share at the same path): `muster doctor`
#      warns, naming the variable, its path and the nodes, and says what to set; the caches in each node's own
#      home (/root is private on testbed nodes) are not flagged; `launch --preflight` shows the same warning and
#      still runs the job;
#   2. `launch --node-local-caches`: every node's job gets its own HF_DATASETS_CACHE (and the others) on that
#      node: each writes a file there and finds its own, nothing lands on the share, the directories are 0700;
#      with --preflight too, the preflight no longer warns about caches.
# Exit 0 pass, 1 fail, 77 skip (no root / namespaces).
REPO_DIR=$(cd "$(dirname "$0")/../.." && pwd)
SHARED=$(mktemp -d /tmp/muster-shared-cache.XXXXXX)
# The share: visible at the same path on every node (with the checkout, which the tests need there too).
export MUSTER_TESTBED_SHARE=$REPO_DIR:$SHARED
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
set -euo pipefail
require_root_and_namespaces
add_cleanup "rm -rf '$SHARED'"
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=3
launch_setup "$NODES"
"$TESTBED" exec node2 test -d "$SHARED" || fail "the testbed does not share $SHARED with the nodes"

# --- 1. doctor flags the shared datasets cache
set +e
out=$(HF_DATASETS_CACHE=$SHARED/datasets "$MUSTER" doctor "${MUSTER_SSH[@]}" -w "node[1-$NODES]" 2>&1)
rc=$?
set -e
((rc != 0)) || fail "doctor: a shared datasets cache should be a warning (exit 1), got exit 0: $out"
assert_contains "$out" "the job's caches are one directory shared by node[1-3]" "doctor names the nodes"
assert_contains "$out" "HF_DATASETS_CACHE=$SHARED/datasets" "doctor names the variable and its path"
assert_contains "$out" "--node-local-caches" "doctor says what to do"
[[ $out != *"HF_HOME=/root/.cache/huggingface"* ]] || fail "doctor flagged a cache in the nodes' private homes: $out"
step "doctor: HF_DATASETS_CACHE on the share flagged (exit $rc), the private homes' caches not"

job='mkdir -p "$HF_DATASETS_CACHE" && hostname >"$HF_DATASETS_CACHE/owner" && sleep 0.5 &&
  echo "cache $HF_DATASETS_CACHE owner $(cat "$HF_DATASETS_CACHE/owner") mode $(stat -c %a "$(dirname "$HF_HOME")")"'
out=$(HF_DATASETS_CACHE=$SHARED/datasets muster_launch -w "node[1-$NODES]" --preflight -- sh -c "$job" 2>&1) ||
  fail "launch --preflight with a shared cache: $out"
assert_contains "$out" "HF_DATASETS_CACHE=$SHARED/datasets" "the preflight warns"
[[ $(grep -c "cache $SHARED/datasets owner" <<<"$out") == "$NODES" ]] || fail "without the option every node uses the share: $out"
step "launch --preflight: the same warning, and the job ran (on the share)"
rm -rf "${SHARED:?}"/*

# --- 2. --node-local-caches: each node its own
out=$(HF_DATASETS_CACHE=$SHARED/datasets muster_launch -w "node[1-$NODES]" --preflight --node-local-caches \
  -- sh -c "$job" 2>&1) || fail "launch --node-local-caches: $out"
[[ $out != *"the job's caches are one directory shared"* ]] || fail "the preflight still warns with --node-local-caches: $out"
for ((k = 1; k <= NODES; k++)); do
  line=$(grep -E "^\[node$k:[0-9]+\] cache " <<<"$out") || fail "node$k printed no cache line: $out"
  [[ $line == *"cache /tmp/muster-cache-0/node$k/huggingface/datasets owner node$k mode 700"* ]] ||
    fail "node$k: not its own private cache: $line"
  "$TESTBED" exec "node$k" test -f "/tmp/muster-cache-0/node$k/huggingface/datasets/owner" ||
    fail "node$k: the cache file is not on the node"
done
[[ -z $(ls -A "$SHARED") ]] || fail "--node-local-caches: something was written on the share: $(ls -A "$SHARED")"
step "launch --node-local-caches: every node wrote its own /tmp/muster-cache-0/<host> (0700), nothing on the share"
step "PASS"
