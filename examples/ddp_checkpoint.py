#!/usr/bin/env python3
"""A deterministic DDP job (CPU, gloo) that checkpoints and resumes: muster's resume contract in practice.

Every --every steps rank 0 writes a checkpoint (model, optimizer, the step) to a temporary file and renames it into
place, so a node crash at any moment leaves either the old checkpoint or the new one, never a torn file. A new
attempt (muster restarted the job: MUSTER_ATTEMPT > 0, perhaps on other nodes) loads it and goes on from the step
after it. The data of a step depends only on the seed, the step and the rank, so a job interrupted and resumed
ends with exactly the parameters of one that ran through: every rank prints their checksum.

Gradients are averaged in rank order (a DDP communication hook) rather than by gloo's ring all_reduce: the ring
sums each element in an order that depends on how DDP packed the gradients into buckets, and DDP repacks them
after a process's first step, so a resumed process would round differently from one that ran through. In rank
order the sums do not depend on the packing, and a resumed job is bit-identical to an uninterrupted one.

SIGUSR1 (muster passes it on: --forward-signals, Slurm's --signal=USR1@90 before the time limit) makes every
rank checkpoint at the end of the current step and exit 0.

    muster launch -w 'node[1-5]' --nnodes 4 --max-restarts 3 -- python3 ddp_checkpoint.py --dir /shared/ckpt
"""
import argparse
import datetime
import hashlib
import os
import signal
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", required=True, help="checkpoint directory, the same on every node (shared)")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--every", type=int, default=5, help="checkpoint every N steps")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--seed", type=int, default=1234)
    parser.add_argument("--step-sleep", type=float, default=0.0, help="seconds to sleep per step (tests)")
    return parser.parse_args()


def checksum(model):
    digest = hashlib.sha256()
    for tensor in model.state_dict().values():
        digest.update(tensor.detach().cpu().numpy().tobytes())
    return digest.hexdigest()[:16]


def save(path, model, optimizer, step):
    """Atomically: the temporary is written whole, flushed to disk, then renamed over the old checkpoint."""
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "wb") as f:
        torch.save({"step": step, "model": model.state_dict(), "optimizer": optimizer.state_dict()}, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def ordered_mean(world_size):
    """A DDP communication hook: every rank's gradients gathered and summed in rank order, then averaged."""
    def hook(state, bucket):
        tensor = bucket.buffer()
        gathered = [torch.zeros_like(tensor) for _ in range(world_size)]
        future = dist.all_gather(gathered, tensor, async_op=True).get_future()

        def mean(_):
            total = gathered[0].clone()
            for part in gathered[1:]:
                total += part
            return total / world_size
        return future.then(mean)
    return hook


def main():
    args = parse_args()
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    attempt = int(os.environ.get("MUSTER_ATTEMPT", os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")))
    stop = []
    signal.signal(signal.SIGUSR1, lambda *_: stop.append(True))
    dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=60))
    torch.manual_seed(args.seed)
    model = DistributedDataParallel(torch.nn.Sequential(
        torch.nn.Linear(16, 32), torch.nn.Tanh(), torch.nn.Linear(32, 1)))
    model.register_comm_hook(None, ordered_mean(world))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    os.makedirs(args.dir, exist_ok=True)
    path = os.path.join(args.dir, "checkpoint.pt")
    start = 0
    if os.path.exists(path):
        state = torch.load(path)
        model.module.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start = state["step"] + 1
    if rank == 0:
        why = os.environ.get("MUSTER_RESTART_REASON", "")
        print(f"attempt {attempt}: resuming at step {start}" + (f" ({why})" if why else ""), flush=True)
    for step in range(start, args.steps):
        data = torch.Generator().manual_seed(args.seed + 1_000_003 * step + rank)
        x = torch.randn(args.batch, 16, generator=data)
        y = x.sum(dim=1, keepdim=True).tanh()
        loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step == start:  # every rank: this attempt is past its checkpoint and has made a step (bench/restart)
            print(f"rank {rank}: attempt {attempt} first step {step}", flush=True)
        if rank == 0:
            print(f"attempt {attempt} step {step} loss {loss.item():.5f}", flush=True)
        asked = torch.tensor([1 if stop else 0])
        dist.all_reduce(asked)  # every rank stops at the same step
        if rank == 0 and (step % args.every == args.every - 1 or step == args.steps - 1 or asked.item()):
            save(path, model.module, optimizer, step)
        if asked.item():
            dist.barrier()  # the checkpoint is written before anyone leaves
            print(f"rank {rank}: checkpointed at step {step} on SIGUSR1", flush=True)
            return 0
        if args.step_sleep:
            time.sleep(args.step_sleep)
    print(f"rank {rank}/{world} on {os.uname().nodename}: checksum {checksum(model.module)}", flush=True)
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
