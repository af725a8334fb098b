#!/usr/bin/env python3
"""Presses TAB in a real interactive shell: starts SHELL_ARGV on a pseudo-terminal, runs the SETUP lines,
then for each case types the words and a TAB, and reads back the line as the shell's line editor left it (by
prefixing it with `echo RESULT:` and pressing Enter). Prints one completed line per case; exit 1 on a
timeout (with what the terminal showed). Bounded: every wait has a deadline, the shell is killed at the end.

usage: tab_complete.py [--setup LINE]... [--type WORDS]... -- SHELL_ARGV...
"""
import os
import pty
import re
import select
import signal
import sys
import time

TIMEOUT = 30.0


def main():
    args = sys.argv[1:]
    setup, typed = [], []
    while args and args[0] != "--":
        flag, value = args[0], args[1]
        (setup if flag == "--setup" else typed).append(value)
        args = args[2:]
    shell = args[1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(shell[0], shell)
    output = b""
    deadline = time.monotonic() + TIMEOUT

    def read_until(pattern):
        nonlocal output
        while True:
            match = re.search(pattern, output)
            if match:
                output = output[match.end():]
                return match
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    return None
                if not chunk:
                    return None
                output += chunk

    results, ok = [], True
    try:
        for number, line in enumerate(setup):
            os.write(fd, (line + f"; echo SETUP{number}-DONE\r").encode())
            if not read_until(rb"\nSETUP%d-DONE\r?\n" % number):
                ok = False
                break
        for words in typed if ok else []:
            # TAB completes in place; Ctrl-A goes to the line's start, where `echo RESULT: ` is typed.
            os.write(fd, (words + "\t").encode())
            time.sleep(0.2)
            os.write(fd, b"\x01echo RESULT: \r")
            match = read_until(rb"\nRESULT: ([^\r\n]*)\r?\n")
            if not match:
                ok = False
                break
            results.append(match.group(1).decode(errors="replace"))
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    for result in results:
        print(result)
    if not ok:
        sys.stderr.write("tab_complete: timed out; the terminal showed:\n%r\n" % output[-2000:])
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
