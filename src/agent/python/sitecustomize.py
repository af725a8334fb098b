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
#    After os.fork() the child gets its own helper thread and file.
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
        except Exception:
            pass


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
        signum = int(_os.environ["MUSTER_STACKS_SIGNAL"])
        box = []
        _muster_stacks_open(directory, signum, box)

        def after_fork():
            try:
                _muster_stacks_open(directory, signum, box)
            except Exception:
                pass

        _os.register_at_fork(after_in_child=after_fork)
    except Exception as error:
        try:
            _sys.stderr.write("muster: no stack hook in this process: %r\n" % (error,))
        except Exception:
            pass


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
