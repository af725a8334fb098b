# A data-parallel job (gloo, CPU; gradients averaged with dist.all_reduce) in which one rank stops inside a
# function of its own while the others wait in all_reduce, as when one rank's data loading hangs. For
# diagnosis_hang_test.sh.
#   hang_ddp.py --stuck-rank R [--steps N]: every rank trains N steps, then rank R sleeps in
#   stuck_in_data_loader() and the others block in all_reduce. --stuck-rank -1: nobody stops (a healthy job that
#   keeps training until killed, printing nothing after its warm-up; a step a second, the ranks resting together
#   in rest_between_steps() most of the time, since the all_reduce keeps them in step).
import argparse
import os
import time

import torch
import torch.distributed as dist


def stuck_in_data_loader():
    time.sleep(3600)


def rest_between_steps():
    time.sleep(1.0)


def train_step(model, optimizer, batch):
    optimizer.zero_grad()
    loss = model(batch).square().mean()
    loss.backward()
    for parameter in model.parameters():  # average the gradients over the ranks
        dist.all_reduce(parameter.grad)
        parameter.grad /= dist.get_world_size()
    optimizer.step()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stuck-rank", type=int, required=True)
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    torch.manual_seed(0)
    model = torch.nn.Linear(16, 4)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batch = torch.randn(8, 16)
    for _ in range(args.steps):
        train_step(model, optimizer, batch)
    print(f"rank {rank} on {os.uname().nodename}: warmed up", flush=True)
    while True:
        if rank == args.stuck_rank:
            stuck_in_data_loader()
        train_step(model, optimizer, batch)
        rest_between_steps()


if __name__ == "__main__":
    main()
