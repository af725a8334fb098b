#!/usr/bin/env python3
"""A tiny, deterministic DistributedDataParallel job (CPU, gloo) for muster's demo and tests.

Started by `muster launch` (or torchrun), it reads the torchrun environment (RANK, WORLD_SIZE, LOCAL_RANK,
MASTER_ADDR, MASTER_PORT), trains a small model on synthetic data that depends only on the seed, and prints
a checksum of the final parameters. DDP keeps replicas identical, so every rank must print the same
checksum; tests compare them.
"""
import argparse
import hashlib
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--step-sleep", type=float, default=0.0, help="seconds to sleep per step (tests)")
    return parser.parse_args()


def checksum(model):
    digest = hashlib.sha256()
    for tensor in model.state_dict().values():
        digest.update(tensor.detach().cpu().numpy().tobytes())
    return digest.hexdigest()[:16]


def main():
    args = parse_args()
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    dist.init_process_group("gloo", init_method="env://", timeout=__import__("datetime").timedelta(seconds=60))
    torch.manual_seed(args.seed)
    model = DistributedDataParallel(torch.nn.Sequential(
        torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    data = torch.Generator().manual_seed(args.seed + 1000 + rank)
    for step in range(args.steps):
        x = torch.randn(args.batch, 16, generator=data)
        y = x.sum(dim=1, keepdim=True).tanh()
        loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if rank == 0 and (step % 5 == 0 or step == args.steps - 1):
            print(f"step {step:3d} loss {loss.item():.4f}", flush=True)
        if args.step_sleep:
            time.sleep(args.step_sleep)
    print(f"rank {rank}/{world} on {os.uname().nodename}: checksum {checksum(model.module)}", flush=True)
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
