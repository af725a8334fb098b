#!/usr/bin/env python3
"""A DistributedDataParallel job (CPU, gloo) that trains for a given time, for muster's telemetry tests.

Every rank does the same work per step (a small MLP on synthetic data), so the ranks' compute per step only differs
when something outside slows one of them down: what the straggler tests do to one rank's process from outside
(a cgroup CPU limit, a busy process on its CPU). --seconds: how long to train (or --steps: how many steps); each
rank prints its step count and time at the end. --pid-dir DIR: each rank writes DIR/rank-<r>.pid (the tests find the process to slow down).
--fail-rank R --fail-after S: in the job's first attempt (TORCHELASTIC_RESTART_COUNT 0), rank R exits 3 after S
seconds of training (a restart for the tests to see).
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
    parser.add_argument("--steps", type=int, default=0, help="train exactly this many steps (a multiple of 20)")
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--pid-dir", default="")
    parser.add_argument("--fail-rank", type=int, default=-1)
    parser.add_argument("--fail-after", type=float, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    rank = int(os.environ["RANK"])
    fail = rank == args.fail_rank and os.environ.get("TORCHELASTIC_RESTART_COUNT", "0") == "0"
    dist.init_process_group("gloo", init_method="env://")
    if args.pid_dir:
        path = os.path.join(args.pid_dir, "rank-%d.pid" % rank)
        with open(path + ".tmp", "w") as f:
            f.write("%d\n" % os.getpid())
        os.rename(path + ".tmp", path)
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
        if fail and time.monotonic() - start >= args.fail_after:
            print("rank %d: failing on purpose after %d steps" % (rank, steps), flush=True)
            os._exit(3)
        if steps % 20 == 0:
            done = steps >= args.steps if args.steps else time.monotonic() - start >= args.seconds
            stop[0] = 1.0 if rank == 0 and done else 0.0
            dist.broadcast(stop, 0)
            if stop[0] > 0:
                break
    print("rank %d: %d steps in %.1f s" % (rank, steps, time.monotonic() - start), flush=True)
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
