#!/usr/bin/env python3
"""A training entry point written the DeepSpeed way, without DeepSpeed installed (CPU, gloo).

DeepSpeed's `deepspeed.init_distributed()` (deepspeed/comm/comm.py) starts torch.distributed from the
environment when RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT and LOCAL_RANK are all set, and otherwise falls
back to MPI discovery; its launcher (deepspeed/launcher/launch.py) also sets CROSS_RANK, CROSS_SIZE and
LOCAL_SIZE, which some scripts read. This script checks exactly that contract, as `init_distributed` would,
then does what it does next (init_process_group with env://) and one all-reduce, so a test can tell that
`muster launch -- python3 train.py` gives a DeepSpeed script everything `deepspeed --hostfile ...` would.
"""
import argparse
import os
import sys

import torch
import torch.distributed as dist

REQUIRED = ["RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "LOCAL_RANK"]  # init_distributed's required_env
LAUNCHER = ["CROSS_RANK", "CROSS_SIZE", "LOCAL_SIZE"]  # what deepspeed.launcher.launch adds


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    # DeepSpeed's launcher passes --local_rank=N unless --no_local_rank; scripts keep accepting it.
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--backend", default="gloo")
    args = parser.parse_args()
    missing = [name for name in REQUIRED + LAUNCHER if name not in os.environ]
    if missing:
        sys.exit(f"deepspeed.init_distributed would fall back to MPI discovery: {', '.join(missing)} not set")
    local_rank = int(os.environ["LOCAL_RANK"]) if args.local_rank < 0 else args.local_rank
    dist.init_process_group(args.backend, init_method="env://")
    rank, world = dist.get_rank(), dist.get_world_size()
    assert rank == int(os.environ["RANK"]) and world == int(os.environ["WORLD_SIZE"])
    node, nodes, per_node = (int(os.environ[name]) for name in LAUNCHER)
    assert rank == node * per_node + local_rank, (rank, node, per_node, local_rank)
    total = torch.tensor([rank], dtype=torch.int64)
    dist.all_reduce(total)
    print(f"deepspeed-style rank {rank}/{world} local {local_rank}/{per_node} node {node}/{nodes} "
          f"on {os.uname().nodename}: sum {total.item()}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
