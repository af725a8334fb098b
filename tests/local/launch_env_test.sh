#!/usr/bin/env bash
# shellcheck disable=SC2016,SC1003  # worker scripts and literal arguments are single-quoted on purpose
# launch: the environment every worker gets — the torchrun-compatible rank variables, --env, the default
# propagation of the head's NCCL_* variables and --no-default-env, secret redaction in --print-env and
# manifest.json, and --per-node's command templates.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The head's own values of these would change what the workers see; the test controls them.
unset OMP_NUM_THREADS NCCL_DEBUG MASTER_ADDR MASTER_PORT RANK WORLD_SIZE MUSTER_JOB_ID HF_TOKEN

is_port() { [[ $1 =~ ^[1-9][0-9]{0,4}$ ]] && (($1 <= 65535)); }

# --- rank variables, 3 workers on one node -----------------------------------------------------------------
job rankenv
"$MUSTER" launch -q --job-id "$JOB" --nproc-per-node 3 --env FOO=bar -- sh -c \
  'for v in RANK WORLD_SIZE LOCAL_RANK LOCAL_WORLD_SIZE NODE_RANK NNODES MASTER_ADDR MASTER_PORT \
            TORCHELASTIC_RUN_ID MUSTER_JOB_ID OMP_NUM_THREADS FOO; do
     eval "printf \"%s=%s\n\" $v \"\${$v-<unset>}\""
   done' >out 2>&1 || fail "rank env job failed (exit $?): $(cat out)"

run=muster-runs/$JOB
[[ -f $run/rank-0.log && -f $run/rank-1.log && -f $run/rank-2.log ]] || fail "expected rank-0..2.log in $run: $(ls "$run")"
[[ ! -e $run/rank-3.log ]] || fail "a 4th rank log exists with --nproc-per-node 3"
port=$(sed -n 's/^MASTER_PORT=//p' "$run/rank-0.log")
is_port "$port" || fail "rank 0: MASTER_PORT is not a port number: '$port'"
for rank in 0 1 2; do
  expected="RANK=$rank
WORLD_SIZE=3
LOCAL_RANK=$rank
LOCAL_WORLD_SIZE=3
NODE_RANK=0
NNODES=1
MASTER_ADDR=127.0.0.1
MASTER_PORT=$port
TORCHELASTIC_RUN_ID=$JOB
MUSTER_JOB_ID=$JOB
OMP_NUM_THREADS=1
FOO=bar"
  assert_eq "$expected" "$(cat "$run/rank-$rank.log")" "environment of rank $rank"
done

# --- default propagation of the head's NCCL_DEBUG, and --no-default-env ---------------------------------------
show_nccl='printf "NCCL_DEBUG=%s\n" "${NCCL_DEBUG-<unset>}"'
job nccl
out=$(NCCL_DEBUG=INFO "$MUSTER" launch -q --job-id "$JOB" -- sh -c "$show_nccl" 2>&1) || fail "nccl job failed: $out"
assert_eq "NCCL_DEBUG=INFO" "$(cat "muster-runs/$JOB/rank-0.log")" "head's NCCL_DEBUG=INFO by default"

listing=$(NCCL_DEBUG=INFO "$MUSTER" launch --print-env --no-default-env --env FOO=bar -- true 2>&1) ||
  fail "--print-env --no-default-env failed: $listing"
assert_not_contains "$listing" "NCCL_DEBUG" "--print-env --no-default-env"
assert_contains "$listing" "FOO=bar" "--print-env --no-default-env --env FOO=bar"

# --- secrets: redacted in --print-env and manifest.json, real value for the worker -------------------------
secret='s3cr3t-V4lue-93184'
hf_secret='hf-V4lue-55210'
listing=$(HF_TOKEN=$hf_secret "$MUSTER" launch --print-env --env "MY_SECRET_TOKEN=$secret" -- true 2>&1) ||
  fail "--print-env with a secret failed: $listing"
assert_contains "$listing" "MY_SECRET_TOKEN='***'" "--print-env of --env MY_SECRET_TOKEN"
assert_contains "$listing" "HF_TOKEN='***'" "--print-env of the head's HF_TOKEN"
assert_not_contains "$listing" "$secret" "--print-env (secret value)"
assert_not_contains "$listing" "$hf_secret" "--print-env (HF_TOKEN value)"

job secret
out=$(HF_TOKEN=$hf_secret "$MUSTER" launch -q --job-id "$JOB" --env "MY_SECRET_TOKEN=$secret" -- \
  sh -c 'printf "%s %s\n" "$MY_SECRET_TOKEN" "$HF_TOKEN"' 2>&1) || fail "secret job failed: $out"
assert_eq "$secret $hf_secret" "$(cat "muster-runs/$JOB/rank-0.log")" "secret values the worker got"
python3 -m json.tool "muster-runs/$JOB/manifest.json" >/dev/null || fail "manifest.json is not JSON"
assert_not_contains "$(cat "muster-runs/$JOB/manifest.json")" "$secret" "manifest.json (secret value)"
assert_not_contains "$(cat "muster-runs/$JOB/manifest.json")" "$hf_secret" "manifest.json (HF_TOKEN value)"

# --- --per-node: templates substituted, one process per node, no per-rank variables ----------------------
job pernode
out=$("$MUSTER" launch -q --job-id "$JOB" --nproc-per-node 3 --per-node -- sh -c \
  'printf "%s\n" "node_rank={node_rank} nnodes={nnodes} port={master_port} nproc={nproc_per_node}" \
     "RANK=${RANK-<unset>} WORLD_SIZE=${WORLD_SIZE-<unset>} MASTER_PORT=$MASTER_PORT"' 2>&1) ||
  fail "--per-node job failed: $out"
run=muster-runs/$JOB
[[ ! -e $run/rank-1.log ]] || fail "--per-node started more than one process on the node: $(ls "$run")"
log=$(cat "$run/rank-0.log")
port=$(sed -n 's/.*port=\([0-9]*\).*/\1/p' <<<"$log")
is_port "$port" || fail "--per-node: {master_port} was not substituted by a port: $log"
assert_eq "node_rank=0 nnodes=1 port=$port nproc=3
RANK=<unset> WORLD_SIZE=<unset> MASTER_PORT=$port" "$log" "--per-node worker output"

# --- the local transport: the node is this machine, so workers inherit the head's environment (as
# torchrun's do: a venv's PATH, CUDA_VISIBLE_DEVICES) whatever --no-default-env says, and --print-env says so.
# (What travels to *remote* nodes under --no-default-env is tested on the simulated cluster.)
job nodefault
out=$(NCCL_DEBUG=INFO "$MUSTER" launch -q --job-id "$JOB" --no-default-env -- sh -c "$show_nccl" 2>&1) ||
  fail "--no-default-env job failed: $out"
assert_eq "NCCL_DEBUG=INFO" "$(cat "muster-runs/$JOB/rank-0.log")" \
  "local worker environment with --no-default-env (inherits the head's)"
listing=$(NCCL_DEBUG=INFO "$MUSTER" launch --print-env --no-default-env -- true 2>&1)
assert_contains "$listing" "local transport: workers also inherit this machine's environment" "--print-env note"
