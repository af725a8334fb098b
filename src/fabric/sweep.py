# muster doctor --fabric: every rank of the job muster launches for it runs this (one rank per node). It measures
# all_reduce with the job's own stack (torch.distributed: NCCL on GPUs, gloo without): a ring of every rank over
# a sweep of sizes, then pairwise rounds (N-1 rounds of disjoint pairs, each pair alone on its link; a pair below
# half the median measured again on its own), and rank 0
# prints one line "MUSTER-FABRIC {json}" that the head reads from its log (src/fabric/run_fabric.cc). Each rank
# also reports its NIC: the interface that reaches MASTER_ADDR, its speed from /sys (0 for a virtual one), and
# the fastest active InfiniBand port. Bounded: every measurement repeats for about `seconds`, at most 50 times.
import fcntl
import json
import os
import socket
import struct
import sys
import time

import torch
import torch.distributed as dist


def nic():
    """(interface, Gbit/s from /sys: 0 when virtual or unknown, InfiniBand Gbit/s: 0 when none)."""
    name, gbps, ib = "", 0.0, 0.0
    try:
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        probe.connect((os.environ.get("MASTER_ADDR", "127.0.0.1"), 9))
        local = probe.getsockname()[0]
        probe.close()
        for _, candidate in socket.if_nameindex():
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            try:
                packed = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", candidate.encode()[:15]))  # SIOCGIFADDR
                if socket.inet_ntoa(packed[20:24]) == local:
                    name = candidate
            except OSError:
                pass
            finally:
                s.close()
    except OSError:
        pass
    base = "/sys/class/net/" + name
    if name and os.path.exists(base + "/device"):  # a physical NIC; a veth or bridge has no device
        try:
            gbps = max(0.0, int(open(base + "/speed").read().strip()) / 1000.0)
        except (OSError, ValueError):
            pass
    root = "/sys/class/infiniband"
    for dev in sorted(os.listdir(root)) if os.path.isdir(root) else []:
        for port in sorted(os.listdir(os.path.join(root, dev, "ports"))):
            p = os.path.join(root, dev, "ports", port)
            try:
                if "ACTIVE" in open(p + "/state").read():
                    ib = max(ib, float(open(p + "/rate").read().split()[0]))
            except (OSError, ValueError, IndexError):
                pass
    return name, gbps, ib


def main():
    sizes = [int(x) for x in sys.argv[1].split(",")]
    seconds = float(sys.argv[2])
    pair_bytes = int(sys.argv[3])
    gpu = torch.cuda.is_available()
    backend = "nccl" if gpu else "gloo"
    if gpu:
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    dist.init_process_group(backend)
    rank, world = dist.get_rank(), dist.get_world_size()
    device = torch.device("cuda") if gpu else torch.device("cpu")

    def sync():
        if gpu:
            torch.cuda.synchronize()

    def slowest(value):  # the largest of every rank's value (a collective of the whole world)
        t = torch.tensor([value], dtype=torch.float64, device=device)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return float(t.item())

    def measure(group, members, nbytes):
        """Seconds per all_reduce of nbytes in group, the same repetitions on every member."""
        t = torch.ones(max(1, nbytes // 4), dtype=torch.float32, device=device)
        dist.all_reduce(t, group=group)  # warm-up: connections, buffers
        sync()
        start = time.perf_counter()
        dist.all_reduce(t, group=group)
        sync()
        once = time.perf_counter() - start
        probe = torch.tensor([once], dtype=torch.float64, device=device)
        dist.all_reduce(probe, op=dist.ReduceOp.MAX, group=group)
        reps = int(max(1, min(50, seconds / max(probe.item(), 1e-6))))
        start = time.perf_counter()
        for _ in range(reps):
            dist.all_reduce(t, group=group)
        sync()
        return (time.perf_counter() - start) / reps

    ring = []
    for nbytes in sizes:
        took = slowest(measure(None, world, nbytes))
        busbw = nbytes * 2.0 * (world - 1) / world / took if world > 1 else 0.0
        ring.append({"bytes": nbytes, "seconds": took, "busbw_gbps": busbw * 8 / 1e9})

    # Pairwise rounds (the circle method): round r pairs every rank with one other, all pairs at once.
    pairs = []
    if world >= 3:
        groups = {}
        for a in range(world):
            for b in range(a + 1, world):
                groups[(a, b)] = dist.new_group([a, b])
        n = world + (world % 2)
        order = list(range(n))
        for _ in range(n - 1):
            mine = None
            for i in range(n // 2):
                a, b = sorted((order[i], order[n - 1 - i]))
                if b < world and rank in (a, b):
                    mine = (a, b)
            took = measure(groups[mine], 2, pair_bytes) if mine else 0.0
            got = [None] * world
            dist.all_gather_object(got, {"pair": mine, "seconds": took})
            if rank == 0:
                seen = set()
                for entry in got:
                    if entry["pair"] and tuple(entry["pair"]) not in seen:
                        seen.add(tuple(entry["pair"]))
                        slow = max(e["seconds"] for e in got if e["pair"] == entry["pair"])
                        pairs.append({"a": entry["pair"][0], "b": entry["pair"][1], "seconds": slow,
                                      "gbps": pair_bytes / slow * 8 / 1e9})
            order = [order[0], order[-1]] + order[1:-1]
        # A pair below half the median is measured again alone (one pair at a time): a loaded host or a burst of
        # other traffic slows one round, a slow NIC or cable every try. The better figure stands.
        again = [None]
        if rank == 0:
            median = sorted(p["gbps"] for p in pairs)[len(pairs) // 2]
            again = [[(p["a"], p["b"]) for p in pairs if p["gbps"] < 0.5 * median]]
        dist.broadcast_object_list(again, src=0)
        for a, b in again[0]:
            took = measure(groups[(a, b)], 2, pair_bytes) if rank in (a, b) else 0.0
            got = [None] * world
            dist.all_gather_object(got, took)
            if rank == 0:
                slow = max(got[a], got[b])
                for p in pairs:
                    if (p["a"], p["b"]) == (a, b):
                        p["measured_again"] = True
                        if slow < p["seconds"]:
                            p["seconds"], p["gbps"] = slow, pair_bytes / slow * 8 / 1e9

    name, gbps, ib = nic()
    nics = [None] * world
    dist.all_gather_object(nics, {"host": socket.gethostname(), "nic": name, "nic_gbps": gbps, "ib_gbps": ib})
    if rank == 0:
        print("MUSTER-FABRIC " + json.dumps({"backend": backend, "world": world, "ring": ring, "pairs": pairs,
                                             "nodes": nics}), flush=True)
    dist.destroy_process_group()


main()
