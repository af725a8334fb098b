#!/usr/bin/env bash
# doctor_shared_home_test.sh — issue #18.2 on nodes that share one home directory (an NFS home:
# `testbed up 3 --shared-home`), with no cache variable set anywhere:
#   1. `muster doctor --no-ssh-matrix` (nodes hold no key of their own here) warns that the job's caches are one directory shared by every node, naming ~/.cache itself
#      (XDG_CACHE_HOME=/root/.cache, the default) and the caches under it (HF_HOME, TORCH_HOME), and says what to
#      do (--node-local-caches, or a node-local directory per variable); `--json` carries the same finding;
#   2. `launch --node-local-caches` (with --preflight, which then has no cache warning): every node's job gets its
#      own XDG_CACHE_HOME, HF_HOME and TORCH_HOME under /tmp/muster-cache-0/<host> on that node, writes there and
#      finds its own file, and nothing lands in the shared ~/.cache.
# Exit 0 pass, 1 fail, 77 skip (no root / namespaces).
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"

readonly NODES=3
unset XDG_CACHE_HOME HF_HOME HF_DATASETS_CACHE HF_HUB_CACHE TRANSFORMERS_CACHE HUGGINGFACE_HUB_CACHE TORCH_HOME \
  TORCH_EXTENSIONS_DIR TRITON_CACHE_DIR
launch_setup "$NODES" --shared-home
"$TESTBED" exec node3 sh -c 'echo shared > /root/.shared-home-probe'
assert_eq shared "$("$TESTBED" exec node1 cat /root/.shared-home-probe)" "the nodes' homes are one directory"
step "testbed: $NODES nodes sharing /root"

# --- 1. doctor flags ~/.cache on the shared home
set +e
out=$("$MUSTER" doctor "${MUSTER_SSH[@]}" -w "node[1-$NODES]" --no-ssh-matrix 2>&1)
rc=$?
set -e
((rc == 1)) || fail "doctor: caches on a shared home are a warning (exit 1), got exit $rc: $out"
assert_contains "$out" "the job's caches are one directory shared by node[1-3]" "doctor names the nodes"
assert_contains "$out" "XDG_CACHE_HOME=/root/.cache (the default)" "doctor names ~/.cache"
assert_contains "$out" "HF_HOME=/root/.cache/huggingface (the default)" "doctor names the Hugging Face cache"
assert_contains "$out" "TORCH_HOME=/root/.cache/torch (the default)" "doctor names torch's cache"
assert_contains "$out" "muster launch --node-local-caches" "doctor says what to do"
assert_contains "$out" "--env HF_DATASETS_CACHE=/tmp/hf-datasets" "doctor says what to set instead"
step "doctor: ~/.cache on the shared home flagged (exit $rc), with the fix"

set +e
json=$("$MUSTER" doctor "${MUSTER_SSH[@]}" -w "node[1-$NODES]" --no-ssh-matrix --json 2>/dev/null)
set -e
python3 - "$json" <<'EOF' || fail "doctor --json: no caches warning naming XDG_CACHE_HOME: $json"
import json, sys
findings = json.loads(sys.argv[1])["findings"]
caches = [f for f in findings if f["check"] == "caches" and f["severity"] == "warning"]
assert caches and "XDG_CACHE_HOME=/root/.cache" in caches[0]["message"], caches
assert "--node-local-caches" in caches[0]["fix"], caches
EOF
step "doctor --json: the same finding"

# --- 2. --node-local-caches: each node its own, nothing in the shared ~/.cache
job='for v in XDG_CACHE_HOME HF_HOME TORCH_HOME; do eval "d=\$$v"; mkdir -p "$d" && hostname >"$d/owner.$$"; done;
  sleep 0.5; echo "caches xdg=$XDG_CACHE_HOME hf=$HF_HOME torch=$TORCH_HOME owner=$(cat "$XDG_CACHE_HOME/owner.$$")"'
out=$(muster_launch -w "node[1-$NODES]" --preflight --node-local-caches -- sh -c "$job" 2>&1) ||
  fail "launch --node-local-caches on a shared home: $out"
[[ $out != *"the job's caches are one directory shared"* ]] || fail "the preflight still warns with --node-local-caches: $out"
for ((k = 1; k <= NODES; k++)); do
  line=$(grep -E "^\[node$k:[0-9]+\] caches " <<<"$out") || fail "node$k printed no caches line: $out"
  dir=/tmp/muster-cache-0/node$k
  [[ $line == *"caches xdg=$dir/xdg hf=$dir/huggingface torch=$dir/torch owner=node$k"* ]] ||
    fail "node$k: not its own caches: $line"
  "$TESTBED" exec "node$k" sh -c "ls $dir/xdg/owner.* && test \$(stat -c %a $dir) = 700" >/dev/null ||
    fail "node$k: its cache directory is not on the node, or not private"
done
leaked=$("$TESTBED" exec node1 sh -c 'ls /root/.cache/owner.* /root/.cache/huggingface/owner.* /root/.cache/torch/owner.* 2>/dev/null' || true)
[[ -z $leaked ]] || fail "--node-local-caches: files landed in the shared ~/.cache: $leaked"
step "launch --node-local-caches: every node used /tmp/muster-cache-0/<host> (0700), nothing in the shared ~/.cache"
step "PASS"
