#!/usr/bin/env python3
"""Runs a command on a pseudo-terminal, as in an interactive terminal, and presses Ctrl-C in it: the terminal's
line discipline then sends SIGINT to the command's foreground process group, as a user's Ctrl-C does.

usage: on_pty.py OUT TIMEOUT [--ctrl-c-after TEXT]... -- ARGV...

Everything the command writes goes to OUT. For each --ctrl-c-after TEXT, in order: once TEXT has appeared in the
output (after the previous Ctrl-C), one Ctrl-C is typed. Then waits for the command to exit and exits with its
exit status (128 + signal when killed). Bounded: after TIMEOUT seconds the command is SIGKILLed and this exits
124, with what the terminal showed on stderr.
"""
import os
import pty
import select
import signal
import sys
import time


def main():
    out_path, timeout = sys.argv[1], float(sys.argv[2])
    args = sys.argv[3:]
    waits = []
    while args and args[0] != "--":
        assert args[0] == "--ctrl-c-after", args[0]
        waits.append(args[1].encode())
        args = args[2:]
    argv = args[1:]
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execvp(argv[0], argv)
        finally:
            os._exit(127)
    output, seen_from = b"", 0
    deadline = time.monotonic() + timeout
    status = None
    with open(out_path, "wb") as out:
        while True:
            if waits and waits[0] in output[seen_from:]:
                seen_from = output.index(waits[0], seen_from) + len(waits[0])
                waits.pop(0)
                os.write(fd, b"\x03")
            left = deadline - time.monotonic()
            if left <= 0:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                sys.stderr.write("on_pty.py: timeout; the terminal showed:\n" + output.decode(errors="replace"))
                return 124
            ready, _, _ = select.select([fd], [], [], min(left, 0.1))
            if ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:  # EIO: the command and everything else on the terminal closed it
                    data = b""
                if data:
                    output += data
                    out.write(data)
                    out.flush()
                    continue
            if status is None:
                got, raw = os.waitpid(pid, os.WNOHANG)
                if got == pid:
                    status = raw
            if status is not None and not ready:
                break
            if status is not None and ready and not data:
                break
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())
