#!/usr/bin/env python3
"""NCCL jobs for tests/gpu/run.sh, one mode per run (the first argument). Started by `muster launch` (or
`accelerate launch`), one process per GPU; reads RANK, WORLD_SIZE, LOCAL_RANK and MASTER_ADDR/PORT.

  ok        every rank all-reduces a tensor of ones on its GPU 5 times and checks the sum; prints "allreduce ok"
  exit      rank 1 exits (code 3) while rank 0 waits in an all_reduce it never joins (needs 2 GPUs)
  watchdog  rank 1 never joins rank 0's all_reduce; rank 0's process group times out after 15 s, so NCCL's
            watchdog fires and, with the flight recorder muster turned on, writes its dump (needs 2 GPUs)
  stall     every rank all-reduces 20 times (the flight recorder's entries), prints "stalling", then waits in
            Python without output: muster's --hang-timeout takes the stacks and the hook dumps the flight recorder
  badif     run with NCCL_SOCKET_IFNAME naming no interface: the first collective fails ("no socket interface")
  train     DDP on a small MLP for TRAIN_SECONDS (default 40) with torch.optim.SGD: steps for muster's telemetry
"""
import datetime
import os
import sys
import time

import torch
import torch.distributed as dist


def main():
    mode = sys.argv[1]
    rank = int(os.environ["RANK"])
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local_rank)
    timeout = datetime.timedelta(seconds=15 if mode == "watchdog" else 120)
    dist.init_process_group("nccl", timeout=timeout)
    world = dist.get_world_size()
    t = torch.ones(1024, device="cuda")
    if mode == "train":
        from torch.nn.parallel import DistributedDataParallel
        model = DistributedDataParallel(torch.nn.Sequential(torch.nn.Linear(4096, 4096), torch.nn.ReLU(),
                                                            torch.nn.Linear(4096, 4096)).cuda(), device_ids=[local_rank])
        optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
        end = time.monotonic() + float(os.environ.get("TRAIN_SECONDS", "40"))
        steps = 0
        stop = torch.zeros(1, device="cuda")
        while True:
            loss = model(torch.randn(256, 4096, device="cuda")).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            steps += 1
            if steps % 20 == 0:
                stop.fill_(1.0 if rank == 0 and time.monotonic() > end else 0.0)
                dist.broadcast(stop, 0)
                if stop.item() > 0:
                    break
        print(f"rank {rank}: trained {steps} steps", flush=True)
    elif mode in ("ok", "badif"):
        for _ in range(5):
            t.fill_(1.0)
            dist.all_reduce(t)
        torch.cuda.synchronize()
        assert t[0].item() == world, t[0].item()
        print(f"rank {rank}: allreduce ok (world {world}, {torch.cuda.get_device_name()})", flush=True)
    elif mode == "exit":
        dist.all_reduce(t)  # everyone once, so the communicator exists
        torch.cuda.synchronize()
        if rank == 1:
            print("rank 1: exiting mid-job", flush=True)
            os._exit(3)
        dist.all_reduce(t)
        torch.cuda.synchronize()
        time.sleep(120)
    elif mode == "watchdog":
        dist.all_reduce(t)
        torch.cuda.synchronize()
        if rank == 1:
            time.sleep(300)  # never joins; touches nothing (no output) so only NCCL's timeout ends it
        dist.all_reduce(t)
        torch.cuda.synchronize()
        time.sleep(300)
    elif mode == "stall":
        for _ in range(20):
            dist.all_reduce(t)
        torch.cuda.synchronize()
        print(f"rank {rank}: stalling", flush=True)
        time.sleep(600)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
