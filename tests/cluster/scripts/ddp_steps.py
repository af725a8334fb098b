# A DistributedDataParallel job (gloo, CPU) that trains until stopped, every rank printing each step, for
# launch_detach_test.sh: `rank R step S loss L` every --step-sleep seconds on every rank, so a follower of any
# rank's log sees the job go on; on SIGINT (muster stop, Ctrl-C on the head) each rank prints
# `rank R stopping at step S` and exits 0.
import argparse
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=1_000_000)
    parser.add_argument("--step-sleep", type=float, default=0.1)
    args = parser.parse_args()
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = DistributedDataParallel(torch.nn.Linear(16, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    data = torch.Generator().manual_seed(rank)
    step = 0
    try:
        for step in range(args.steps):
            x = torch.randn(32, 16, generator=data)
            loss = torch.nn.functional.mse_loss(model(x), x.sum(dim=1, keepdim=True))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print(f"rank {rank} step {step} loss {loss.item():.4f}", flush=True)
            time.sleep(args.step_sleep)
    except KeyboardInterrupt:
        print(f"rank {rank} stopping at step {step}", flush=True)
        os._exit(0)  # not destroy_process_group: the other ranks are stopping too
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
