#!/usr/bin/env python3
"""A DistributedDataParallel job (CPU, gloo) that trains for a given time, for muster's telemetry tests.

Every rank does the same work per step (a small MLP on synthetic data), so the ranks' compute per step only differs
when something outside slows one of them down: what the straggler tests do to one rank's process from outside
(a cgroup CPU limit, a busy process on its CPU). --seconds: how long to train; each rank prints its step count at
the end. --pid-file DIR: each rank writes DIR/rank-<r>.pid (the tests find the process to slow down).
"""
import argparse
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--pid-dir", default="")
    args = parser.parse_args()
    torch.set_num_threads(1)
    rank = int(os.environ["RANK"])
    dist.init_process_group("gloo", init_method="env://")
    if args.pid_dir:
        with open(os.path.join(args.pid_dir, "rank-%d.pid" % rank), "w") as f:
            f.write("%d\n" % os.getpid())
    torch.manual_seed(1)
    w = args.width
    model = DistributedDataParallel(torch.nn.Sequential(
        torch.nn.Linear(w, w), torch.nn.Tanh(), torch.nn.Linear(w, w), torch.nn.Tanh(), torch.nn.Linear(w, 1)))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    data = torch.Generator().manual_seed(100 + rank)
    # Every rank trains until rank 0 says stop (a broadcast every 20 steps), so all end together.
    stop = torch.zeros(1)
    start = time.monotonic()
    steps = 0
    while True:
        x = torch.randn(args.batch, w, generator=data)
        loss = model(x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        steps += 1
        if steps % 20 == 0:
            stop[0] = 1.0 if rank == 0 and time.monotonic() - start >= args.seconds else 0.0
            dist.broadcast(stop, 0)
            if stop[0] > 0:
                break
    print("rank %d: %d steps in %.1f s" % (rank, steps, time.monotonic() - start), flush=True)
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
