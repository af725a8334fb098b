#!/usr/bin/env bash
# recipes_test.sh — the recipes of docs/recipes.md that run here, on 3 nodes x 2 workers (torch, gloo, CPU):
#   1. DeepSpeed-style: examples/deepspeed_style.py checks the environment deepspeed.init_distributed reads
#      (RANK WORLD_SIZE MASTER_ADDR MASTER_PORT LOCAL_RANK, and the launcher's CROSS_RANK CROSS_SIZE LOCAL_SIZE)
#      as DeepSpeed would, then init_process_group(env://) and an all-reduce: every rank once, on its planned
#      node, all agreeing on the sum;
#   2. per-node torchrun with c10d rendezvous (the "run torchrun on every node by hand" how-to, as one command):
#      `--per-node -- torchrun --rdzv_backend c10d --rdzv_endpoint {master_addr}:{master_port} --rdzv_id
#      {job_id}`: 6 ranks of examples/ddp_train.py, each once, one checksum for all.
# (The environment sync recipe is sync_env_test.sh; Slurm's is slurm_submit_test.sh; caches doctor_caches_test.sh.)
# Exit 0 pass, 1 fail, 77 skip (no root / namespaces / torch).
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
set -euo pipefail
require_root_and_namespaces
# shellcheck source=launch_lib.sh
source "$(dirname "$0")/launch_lib.sh"
require_torch

readonly NODES=3 PER_NODE=2 WORLD=6
launch_setup "$NODES"

# --- 1. DeepSpeed-style script
out=$(muster_launch -w "node[1-$NODES]" --nproc-per-node "$PER_NODE" -- /usr/bin/python3 examples/deepspeed_style.py 2>&1) ||
  fail "DeepSpeed-style job failed: $out"
sum=$((WORLD * (WORLD - 1) / 2))
for ((r = 0; r < WORLD; r++)); do
  node=$((r / PER_NODE))
  want="[node$((node + 1)):$r] deepspeed-style rank $r/$WORLD local $((r % PER_NODE))/$PER_NODE node $node/$NODES on node$((node + 1)): sum $sum"
  [[ $(grep -cxF "$want" <<<"$out") == 1 ]] || fail "expected exactly one line '$want' in: $out"
done
step "DeepSpeed-style: the $WORLD ranks found init_distributed's environment and all-reduced to $sum"

# --- 2. per-node torchrun, c10d rendezvous
# Debian's torch 1.13 on Python 3.11: underscore flags, and --redirects/--tee or torchrun crashes at start.
out=$(muster_launch -w "node[1-$NODES]" --per-node -- /usr/bin/python3 -m torch.distributed.run \
  --nnodes '{nnodes}' --nproc_per_node "$PER_NODE" --rdzv_backend c10d --rdzv_endpoint '{master_addr}:{master_port}' \
  --rdzv_id '{job_id}' --redirects 1 --tee 1 examples/ddp_train.py --steps 5 2>&1) || fail "torchrun c10d job failed: $out"
mapfile -t lines < <(grep -oE 'rank [0-9]+/[0-9]+ on [^:]+: checksum [0-9a-f]{16}' <<<"$out" | sort -u)
((${#lines[@]} == WORLD)) || fail "torchrun c10d: expected $WORLD checksum lines, got ${#lines[@]}: $out"
ranks=$(printf '%s\n' "${lines[@]}" | sed -E 's/rank ([0-9]+)\/.*/\1/' | sort -n | tr '\n' ' ')
assert_eq "0 1 2 3 4 5 " "$ranks" "torchrun c10d: ranks"
sums=$(printf '%s\n' "${lines[@]}" | sed -E 's/.*checksum //' | sort -u | wc -l)
assert_eq 1 "$sums" "torchrun c10d: one checksum for all ranks"
step "torchrun with c10d rendezvous on every node from one command: $WORLD ranks, one checksum"
step "PASS"
