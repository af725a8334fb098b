# muster's hook for Python workers (installed by the agent, first on PYTHONPATH; see src/agent/worker_setup.h).
#
# 1. Stacks on demand. When MUSTER_STACKS_DIR is set, the stack signal (MUSTER_STACKS_SIGNAL, a real-time signal
#    nobody else uses) is blocked in this thread before any other thread exists, so every thread inherits the
#    block and no system call of the program is ever interrupted by it. A helper thread takes the signal with
#    sigwait() and writes every thread's Python stack (faulthandler.dump_traceback, holding the GIL, so no frame
#    changes while it is read) to <dir>/<pid>.stacks. It works while the main thread waits in C (a collective,
#    I/O, sleep: they release the GIL); when a thread holds the GIL in C, the agent falls back to a native stack.
#    The file's first line is a marker the agent checks (pid, start time, helper thread) before it signals.
#    faulthandler.register() is installed too, so the signal is never fatal (and /proc shows it as caught).
#    After os.fork() the child gets its own helper thread and file. A program this process executes gets the
#    signal unblocked (the mask survives exec): subprocess (_posixsubprocess.fork_exec) and os.exec* unblock it in
#    the calling thread for the call, os.posix_spawn* give the child a mask without it (os.system's /bin/sh gets a
#    clean mask from glibc). Should the signal reach that thread meanwhile, faulthandler's handler dumps there.
#    When asked for stacks in a process where torch.distributed runs NCCL (torch >= 2.2), the helper then writes
#    PyTorch's flight recorder (the last collectives) to $TORCH_NCCL_DEBUG_INFO_TEMP_FILE<rank>, as NCCL's
#    watchdog does on a timeout: muster stops a stalled job before that timeout. Between the lines
#    "muster-flight-recorder begin" and "... end" in the stacks file, the agent waits for it (stack_dumper.h).
# 2. NCCL error handling like torchrun's: torch < 2.2 reads NCCL_ASYNC_ERROR_HANDLING (torch >= 2.2 reads
#    TORCH_NCCL_ASYNC_ERROR_HANDLING, which muster sets): set to 1 unless the user set it.
# 3. Step timing (docs/design/telemetry.md). When MUSTER_STEPS_PREFIX is set (and MUSTER_STEP_TIMING is not "0"),
#    a finder on sys.meta_path waits for torch's modules to be imported by the program (this file never imports
#    torch) and then counts training steps: every step of the process's first optimizer that steps (torch >= 2:
#    the global optimizer step hooks; torch 1.x, which has none: each Optimizer class's step wrapped when an
#    instance is made, after torch's own profiling wrapper), so DeepSpeed's engine and accelerate's wrapped
#    optimizer, which step a torch optimizer, are counted too. A step's time is from one step's end to the next;
#    its wait is the time spent blocked on the other ranks: in torch.distributed's collectives called from Python
#    (synchronous ones; async_op=True returns at once) and, while torch.distributed is initialised, the end of each
#    backward pass after its last gradient was computed (autograd's final callbacks: DDP's reducer waits there for
#    the all-reduce of the gradients that was not hidden behind the backward pass). On GPUs that is what the CPU
#    waits; a CUDA stream's own waits are not seen. Each step (the first with time 0: its start is unknown) is written into a ring in a shared mapping,
#    $MUSTER_STEPS_PREFIX<pid> (src/telemetry/step_ring.h), which the agent reads once a second: no system call per
#    step. A child made by fork() writes its own file. The ring is made, with no step in it, as soon as the process
#    makes an optimizer: the head then knows that this rank's steps are counted, and a failure before any step of
#    the attempt is the workload's (docs/design/resilience.md, "Whose fault").
# 4. Then the sitecustomize this file shadows (Debian's, a virtualenv's, the user's own) runs as if it had been
#    imported directly, so nothing the user had is lost.
# Nothing here changes what the program computes, and no failure here may stop it.
import os as _os
import sys as _sys


def _muster_marker_start():
    with open("/proc/self/stat", "rb") as f:
        stat = f.read()
    return stat[stat.rindex(b")") + 2:].split()[19].decode()


def muster_stack_dump_thread(signum, box):
    import faulthandler
    import signal
    while True:
        try:
            signal.sigwait([signum])
            faulthandler.dump_traceback(file=box[0], all_threads=True)
            _muster_flight_recorder(box[0])
        except Exception:
            pass


def _muster_flight_recorder(fd):
    # Only where the program itself runs torch.distributed with NCCL (never imports torch), and the API exists.
    prefix = _os.environ.get("TORCH_NCCL_DEBUG_INFO_TEMP_FILE")
    dist = _sys.modules.get("torch.distributed")
    if not prefix or dist is None:
        return
    try:
        if not (dist.is_available() and dist.is_initialized()) or "nccl" not in str(dist.get_backend()).lower():
            return
        dump = getattr(getattr(_sys.modules["torch"]._C, "_distributed_c10d", None), "_dump_nccl_trace", None)
        if dump is None:
            return
        path = prefix + str(dist.get_rank())
    except Exception:
        return
    _os.write(fd, b"muster-flight-recorder begin\n")
    outcome = path
    try:
        data = dump()
        temporary = _os.path.join(_os.path.dirname(path), ".%s.%d.tmp" % (_os.path.basename(path), _os.getpid()))
        with open(temporary, "wb") as f:
            f.write(data)
        _os.rename(temporary, path)
    except Exception as error:
        outcome = "failed: %r" % (error,)
    finally:
        _os.write(fd, ("muster-flight-recorder end %s\n" % outcome).encode(errors="replace"))


def _muster_stacks_open(directory, signum, box):
    import _thread
    import faulthandler
    import signal
    signal.pthread_sigmask(signal.SIG_BLOCK, [signum])
    fd = _os.open(_os.path.join(directory, "%d.stacks" % _os.getpid()),
                  _os.O_WRONLY | _os.O_CREAT | _os.O_TRUNC | _os.O_APPEND | _os.O_CLOEXEC, 0o600)
    old = box[0] if box else None
    box[:] = [fd]
    if old is not None:
        _os.close(old)
    faulthandler.register(signum, file=fd, all_threads=True, chain=False)
    helper = _thread.start_new_thread(muster_stack_dump_thread, (signum, box))
    _os.write(fd, ("muster-stacks pid=%d start=%s helper=0x%016x\n"
                   % (_os.getpid(), _muster_marker_start(), helper)).encode())


def _muster_install_stacks():
    directory = _os.environ.get("MUSTER_STACKS_DIR")
    if not directory:
        return
    try:
        import _thread
        signum = int(_os.environ["MUSTER_STACKS_SIGNAL"])
        box = []
        _muster_stacks_open(directory, signum, box)
        spawning = _thread._local()  # this thread is in fork_exec: a child of its fork only executes a program

        def after_fork():
            if getattr(spawning, "now", False):
                return
            try:
                _muster_stacks_open(directory, signum, box)
            except Exception:
                pass

        _os.register_at_fork(after_in_child=after_fork)
        _muster_unblock_in_programs(signum, spawning)
    except Exception as error:
        try:
            _sys.stderr.write("muster: no stack hook in this process: %r\n" % (error,))
        except Exception:
            pass


def _muster_unblock_in_programs(signum, spawning):
    import _posixsubprocess
    import signal

    def unblocked(call):
        def wrapper(*args, **kwargs):
            was_blocked = signum in signal.pthread_sigmask(signal.SIG_UNBLOCK, [signum])
            spawning.now = True
            try:
                return call(*args, **kwargs)
            finally:
                spawning.now = False
                if was_blocked:
                    signal.pthread_sigmask(signal.SIG_BLOCK, [signum])
        wrapper.__wrapped__ = call
        return wrapper

    def clean_mask(call):
        def wrapper(*args, **kwargs):
            if "setsigmask" not in kwargs:
                kwargs["setsigmask"] = signal.pthread_sigmask(signal.SIG_BLOCK, []) - {signum}
            return call(*args, **kwargs)
        wrapper.__wrapped__ = call
        return wrapper

    _posixsubprocess.fork_exec = unblocked(_posixsubprocess.fork_exec)
    if "subprocess" in _sys.modules and hasattr(_sys.modules["subprocess"], "_fork_exec"):
        _sys.modules["subprocess"]._fork_exec = _posixsubprocess.fork_exec
    for name in ("execv", "execve"):  # execl*, execvp* and os.spawn* call these
        setattr(_os, name, unblocked(getattr(_os, name)))
    for name in ("posix_spawn", "posix_spawnp"):
        if hasattr(_os, name):
            setattr(_os, name, clean_mask(getattr(_os, name)))


def _muster_async_error_handling():
    if "NCCL_ASYNC_ERROR_HANDLING" in _os.environ or "TORCH_NCCL_ASYNC_ERROR_HANDLING" not in _os.environ:
        return
    try:
        import importlib.util
        import re
        spec = importlib.util.find_spec("torch")
        if spec is None or not spec.submodule_search_locations:
            return
        path = _os.path.join(list(spec.submodule_search_locations)[0], "version.py")
        with open(path) as f:
            found = re.search(r"__version__\s*=\s*['\"](\d+)\.(\d+)", f.read())
        if found and (int(found.group(1)), int(found.group(2))) < (2, 2):
            _os.environ["NCCL_ASYNC_ERROR_HANDLING"] = _os.environ["TORCH_NCCL_ASYNC_ERROR_HANDLING"]
    except Exception:
        pass


class _MusterSteps(object):
    """The step ring of this process and what feeds it (see 3. above)."""

    CAPACITY = 512

    def __init__(self, prefix):
        import struct
        import threading
        import time
        self.prefix = prefix
        self.clock = time.monotonic_ns
        self.header = struct.Struct("<8sIiII")
        self.record = struct.Struct("<QQII")
        self.count_field = struct.Struct("<Q")
        self.local = threading.local()
        self.map = None
        self.count = 0
        self.flags = 0
        self.last_end = None
        self.wait = 0
        self.primary = None
        self.armed = {}

    def reset_after_fork(self):
        self.map = None
        self.count = 0
        self.last_end = None
        self.wait = 0

    def _open(self):
        import mmap
        size = 64 + 24 * self.CAPACITY
        path = "%s%d" % (self.prefix, _os.getpid())
        fd = _os.open(path, _os.O_RDWR | _os.O_CREAT | _os.O_TRUNC | _os.O_CLOEXEC | getattr(_os, "O_NOFOLLOW", 0),
                      0o600)
        try:
            _os.ftruncate(fd, size)
            self.map = mmap.mmap(fd, size)
        finally:
            _os.close(fd)
        try:
            rank = int(_os.environ.get("RANK", "-1"))
        except ValueError:
            rank = -1
        self.header.pack_into(self.map, 0, b"MSTEP001", self.CAPACITY, rank, _os.getpid(), self.flags)

    # Optimizer steps: pre() before, post() after; a post counts once per pre, so a step that calls another
    # wrapped step (a subclass's step calling its parent's) counts once, and a step that raised is forgotten.
    def pre(self, optimizer):
        self.armed[id(optimizer)] = True

    def post(self, optimizer):
        if not self.armed.pop(id(optimizer), False):
            return
        primary = self.primary() if self.primary is not None else None
        if primary is None:
            import weakref
            try:
                self.primary = weakref.ref(optimizer)
            except TypeError:
                return
        elif primary is not optimizer:
            return
        self.step_done()

    def ready(self):
        """An optimizer was made: the ring exists from now on, with no step yet."""
        if self.map is None:
            self._open()

    def step_done(self):
        now = self.clock()
        last, self.last_end = self.last_end, now
        wait, self.wait = self.wait, 0
        if self.map is None:
            self._open()
        i = self.count
        # The first step's start is not known: its time is 0 (the agent counts it without a time).
        step = 0 if last is None else max(1, min((now - last) // 1000, 4294967294))
        self.record.pack_into(self.map, 64 + (i % self.CAPACITY) * 24, i + 1, now, step, min(wait // 1000, 4294967294))
        self.count = i + 1
        self.count_field.pack_into(self.map, 24, self.count)

    def waited(self, ns):
        self.wait += ns
        if not self.flags & 1:
            self.flags |= 1
            if self.map is not None:
                self.header.pack_into(self.map, 0, b"MSTEP001", self.CAPACITY,
                                      self.header.unpack_from(self.map, 0)[2], _os.getpid(), self.flags)

    # Patches applied once torch's own modules have run (_MusterFinder).
    def patch_optimizer(self, module):
        import functools
        steps = self
        base = module.Optimizer
        if hasattr(module, "register_optimizer_step_pre_hook") and hasattr(module, "register_optimizer_step_post_hook"):
            module.register_optimizer_step_pre_hook(lambda optimizer, args, kwargs: steps.pre(optimizer))
            module.register_optimizer_step_post_hook(lambda optimizer, args, kwargs: steps.post(optimizer))
            made = base.__init__

            @functools.wraps(made)
            def announced(self, *args, **kwargs):
                out = made(self, *args, **kwargs)
                try:
                    steps.ready()
                except Exception:
                    pass
                return out
            base.__init__ = announced
            return

        def counted(step):
            @functools.wraps(step)
            def wrapper(*args, **kwargs):
                optimizer = args[0] if args else None
                steps.pre(optimizer)
                out = step(*args, **kwargs)
                steps.post(optimizer)
                return out
            wrapper._muster_counted = True
            return wrapper

        def wrap_class(optimizer):
            cls = type(optimizer)
            step = getattr(cls, "step", None)
            if step is not None and not getattr(step, "_muster_counted", False):
                cls.step = counted(step)

        def after(method):
            @functools.wraps(method)
            def wrapper(self, *args, **kwargs):
                out = method(self, *args, **kwargs)
                try:
                    wrap_class(self)
                    steps.ready()
                except Exception:
                    pass
                return out
            return wrapper

        base.__init__ = after(base.__init__)
        base.__setstate__ = after(base.__setstate__)

    def patch_collectives(self, module):
        import functools
        steps = self
        local = self.local
        clock = self.clock

        def timed(call):
            @functools.wraps(call)
            def wrapper(*args, **kwargs):
                if kwargs.get("async_op") or getattr(local, "inside", False):
                    return call(*args, **kwargs)
                local.inside = True
                start = clock()
                try:
                    return call(*args, **kwargs)
                finally:
                    local.inside = False
                    steps.waited(clock() - start)
            return wrapper

        for name in ("all_reduce", "all_gather", "all_gather_object", "all_gather_into_tensor", "_all_gather_base",
                     "all_gather_coalesced", "all_reduce_coalesced", "all_to_all", "all_to_all_single", "barrier",
                     "monitored_barrier", "broadcast", "broadcast_object_list", "gather", "gather_object", "reduce",
                     "reduce_scatter", "reduce_scatter_tensor", "_reduce_scatter_base", "scatter",
                     "scatter_object_list", "send", "recv"):
            call = getattr(module, name, None)
            if callable(call) and not getattr(call, "_muster_timed", False):
                wrapped = timed(call)
                wrapped._muster_timed = True
                setattr(module, name, wrapped)

    def patch_backward(self, module):
        import functools
        steps = self
        clock = self.clock
        backward = module.backward
        engine = getattr(getattr(module, "Variable", None), "_execution_engine", None)
        if engine is None or not hasattr(engine, "queue_callback"):
            return

        def distributed():
            c10d = _sys.modules.get("torch.distributed.distributed_c10d")
            try:
                return c10d is not None and c10d.is_initialized()
            except Exception:
                return False

        @functools.wraps(backward)
        def wrapper(tensors, *args, **kwargs):
            if not distributed():
                return backward(tensors, *args, **kwargs)
            root = tensors
            if isinstance(root, (list, tuple)):
                root = root[0] if len(root) else None
            ended = []
            handle = None
            try:
                if root is not None and getattr(root, "grad_fn", None) is not None:
                    def on_root(grad):  # the backward pass starts here: queue the marker of its end
                        engine.queue_callback(lambda: ended.append(clock()))
                    handle = root.register_hook(on_root)
            except Exception:
                handle = None
            try:
                return backward(tensors, *args, **kwargs)
            finally:
                if handle is not None:
                    handle.remove()
                if ended:
                    steps.waited(clock() - ended[0])

        module.backward = wrapper


class _MusterFinder(object):
    """Runs a patch on a module of torch right after the module itself ran (never imports anything itself)."""

    def __init__(self, patches):
        self.patches = patches

    def find_spec(self, name, path, target=None):
        patch = self.patches.get(name)
        if patch is None:
            return None
        for finder in _sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        run = getattr(loader, "exec_module", None)
        if run is None:
            return spec

        def exec_module(module):
            run(module)
            try:
                patch(module)
            except Exception as error:
                try:
                    _sys.stderr.write("muster: no step timing for %s: %r\n" % (name, error))
                except Exception:
                    pass

        loader.exec_module = exec_module  # this module's own loader object: nothing else changes
        return spec


def _muster_install_steps():
    prefix = _os.environ.get("MUSTER_STEPS_PREFIX")
    if not prefix or _os.environ.get("MUSTER_STEP_TIMING") == "0":
        return
    try:
        steps = _MusterSteps(prefix)
        patches = {"torch.optim.optimizer": steps.patch_optimizer,
                   "torch.distributed.distributed_c10d": steps.patch_collectives,
                   "torch.autograd": steps.patch_backward}
        for name, patch in patches.items():
            if name in _sys.modules:  # imported before this file ran (python -m torch...): patch now
                patch(_sys.modules[name])
        _sys.meta_path.insert(0, _MusterFinder(patches))
        _os.register_at_fork(after_in_child=steps.reset_after_fork)
    except Exception as error:
        try:
            _sys.stderr.write("muster: no step timing in this process: %r\n" % (error,))
        except Exception:
            pass


def _muster_chain():
    import importlib.machinery
    import importlib.util
    here = _os.path.dirname(_os.path.realpath(__file__))
    rest = []
    for entry in _sys.path:
        try:
            if _os.path.realpath(entry or _os.getcwd()) == here:
                continue
        except (OSError, ValueError):
            pass
        rest.append(entry)
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    _sys.modules["sitecustomize"] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # what site.py prints for a sitecustomize that fails
        if _sys.flags.verbose:
            _sys.excepthook(*_sys.exc_info())
        else:
            _sys.stderr.write("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n%s: %s\n"
                              % (error.__class__.__name__, error))


_muster_install_stacks()
_muster_install_steps()
_muster_async_error_handling()
_muster_chain()
