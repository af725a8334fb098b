#!/usr/bin/env python3
"""One rank of tests/local/telemetry_steps_test.sh: rank RANK counts its steps one way, prints how many it made.

  0 torch.optim.SGD            1 torch.optim.Adam (a second optimizer steps too: only the first counts)
  2 a subclass of Adam whose step calls Adam's (one step each, not two)
  3 torch >= 2's global step hooks (a stand-in torch package: Debian 12 has torch 1.13; see fake_torch2/)
  4 a tqdm loop (no optimizer)  5 the step marker ($MUSTER_STEP_FILE)  6 --step-pattern lines
"""
import os
import sys
import time

STEPS = int(os.environ.get("TEST_STEPS", "30"))
PAUSE = 0.03


def torch_loop(kind):
    import torch
    model = torch.nn.Linear(8, 8)
    if kind == "sgd":
        optimizer, other = torch.optim.SGD(model.parameters(), lr=0.01), None
    elif kind == "adam":
        optimizer, other = torch.optim.Adam(model.parameters()), torch.optim.SGD(model.parameters(), lr=0.0)
    else:
        class Wrapped(torch.optim.Adam):
            def step(self, closure=None):
                return super().step(closure)
        optimizer, other = Wrapped(model.parameters()), None
    for _ in range(STEPS):
        loss = model(torch.randn(4, 8)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if other is not None:
            other.step()
        time.sleep(PAUSE)


def torch2_loop():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "fake_torch2"))
    import torch.optim.optimizer as optimizer_module  # the stand-in: torch 2's hook API only
    optimizer = optimizer_module.Optimizer()
    for _ in range(STEPS):
        optimizer.step()
        time.sleep(PAUSE)


def main():
    rank = int(os.environ["RANK"])
    if rank == 0:
        torch_loop("sgd")
    elif rank == 1:
        torch_loop("adam")
    elif rank == 2:
        torch_loop("subclass")
    elif rank == 3:
        torch2_loop()
    elif rank == 4:
        from tqdm import tqdm
        for _ in tqdm(range(STEPS), mininterval=0, miniters=1):
            time.sleep(PAUSE)
    elif rank == 5:
        with open(os.environ["MUSTER_STEP_FILE"], "w", buffering=1) as marker:
            for _ in range(STEPS):
                time.sleep(PAUSE)
                marker.write("step\n")
    elif rank == 6:
        for i in range(STEPS):
            time.sleep(PAUSE)
            print("iter %d loss 0.5" % i, flush=True)
    print("rank %d made %d steps" % (rank, STEPS), flush=True)


if __name__ == "__main__":
    main()
