# Ways a rank fails, for diagnosis_failures_test.sh. Every rank runs this; FAIL_RANK (default 1) is the one
# that fails, the others wait (as healthy ranks of a job would) until muster stops them.
#   segv     the failing rank crashes in native code (ctypes reads address 0) inside crash_in_extension()
#   kill     the failing rank is SIGKILLed (as the OOM killer or a scheduler would)
#   import   every rank imports muster_probe_mod (present on some nodes only: the test puts it there)
#   record   the failing rank raises KeyError in a main decorated with torch's @record (TORCHELASTIC_ERROR_FILE)
#   gloo     every rank joins a gloo process group and all-reduces (the 127.0.1.1 test breaks the connections)
#   port     rank 0 serves the rendezvous store on a port the test already holds: "Address already in use"
#   oom      the failing rank waits until the test has moved it into a 64 MiB memory cgroup (named by
#            $OOM_CGROUP, its /proc/self/cgroup says when), then allocates more: the kernel's OOM killer SIGKILLs it
#   cache    every rank prepares one "dataset" into $CACHE_DIR the way HF datasets' builder does (shards into
#            <dir>.incomplete, dataset_info.json, then a rename), with a lock that does not exclude across nodes
#            (as flock on an NFS mount without NLM): the rank that finishes second finds its .incomplete gone
import datetime
import os
import shutil
import sys
import time

mode = sys.argv[1]
rank = int(os.environ["RANK"])
failing = rank == int(os.environ.get("FAIL_RANK", "1"))


def crash_in_extension():
    import ctypes
    ctypes.string_at(0)


def prepare_dataset(cache_dir, seconds_writing):
    import fcntl
    out = os.path.join(cache_dir, "ds", "default-0c1d", "0.0.0", "3f2a")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open("/tmp/muster-test-builder.lock", "w") as lock:  # node-local: excludes nothing across nodes
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(os.path.join(out, "dataset_info.json")):
            return
        tmp = out + ".incomplete"
        os.makedirs(tmp, exist_ok=True)
        with open(os.path.join(tmp, "ds-train.arrow"), "w") as shard:
            shard.write("rows\n" * 1000)
        time.sleep(seconds_writing)
        with open(os.path.join(tmp, "dataset_info.json"), "w") as info:
            info.write("{}\n")
        if os.path.isdir(out):
            shutil.rmtree(out)
        shutil.move(tmp, out)


if mode == "segv" and failing:
    time.sleep(0.5)
    crash_in_extension()
elif mode == "kill" and failing:
    time.sleep(0.5)
    os.kill(os.getpid(), 9)
elif mode == "import":
    import muster_probe_mod  # noqa: F401
elif mode == "oom" and failing:
    for _ in range(600):
        with open("/proc/self/cgroup") as cgroups:
            if os.environ["OOM_CGROUP"] in cgroups.read():
                break
        time.sleep(0.05)
    else:
        sys.exit("never moved into the test's memory cgroup")
    hoard = []
    for _ in range(64):
        hoard.append(bytearray(16 << 20))  # 16 MiB at a time, touched: 1 GiB > the 64 MiB limit
elif mode == "record" and failing:
    from torch.distributed.elastic.multiprocessing.errors import record

    @record
    def main():
        raise KeyError("labels missing in batch 17")

    main()
elif mode == "gloo":
    import torch
    import torch.distributed as dist
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=20))
    t = torch.ones(2)
    dist.all_reduce(t)
    print(f"rank {rank}: all_reduce ok", flush=True)
    sys.exit(0)
elif mode == "port":
    import torch.distributed as dist
    port = os.environ["TAKEN_PORT"]
    dist.init_process_group("gloo", init_method=f"tcp://{os.environ['MASTER_ADDR']}:{port}",
                            rank=rank, world_size=int(os.environ["WORLD_SIZE"]),
                            timeout=datetime.timedelta(seconds=20))
    sys.exit(0)
elif mode == "cache":
    prepare_dataset(os.environ["CACHE_DIR"], 3.0 if rank == 0 else 1.0)
    print(f"rank {rank}: dataset ready", flush=True)
    sys.exit(0)
time.sleep(60)
