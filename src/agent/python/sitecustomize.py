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
# 3. Then the sitecustomize this file shadows (Debian's, a virtualenv's, the user's own) runs as if it had been
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
_muster_async_error_handling()
_muster_chain()
