#!/usr/bin/env python3
"""Run a command on a fresh pty (its controlling terminal), answer a
"[y/N]" question with --answer, print everything it wrote, exit with its
status. tests/integration/selfconfig.sh and others use it. With
--subreaper it also adopts what the command leaves running or unreaped,
and prints "STRAY" last when there was any."""
import argparse
import os
import pty
import select
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--answer", default=None)
ap.add_argument("--timeout", type=float, default=30)
ap.add_argument("--subreaper", action="store_true")
ap.add_argument("cmd", nargs=argparse.REMAINDER)
a = ap.parse_args()
cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd

if a.subreaper:
    import ctypes
    if ctypes.CDLL(None).prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
        sys.exit("cannot become a subreaper")
pid, fd = pty.fork()
if pid == 0:
    os.execvp(cmd[0], cmd)
out = b""
status = 0
answered = False
deadline = time.time() + a.timeout
while time.time() < deadline:
    r, _, _ = select.select([fd], [], [], 0.1)
    if r:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
        if a.answer is not None and not answered and b"[y/N]" in out:
            os.write(fd, (a.answer + "\n").encode())
            answered = True
    else:
        w, st = os.waitpid(pid, os.WNOHANG)
        if w:
            status = os.waitstatus_to_exitcode(st)
            pid = 0
            break
if pid:
    try:
        _, st = os.waitpid(pid, 0)
        status = os.waitstatus_to_exitcode(st)
    except ChildProcessError:
        pass
if a.subreaper:
    try:
        os.waitpid(-1, os.WNOHANG)
        out += b"STRAY\n"
    except ChildProcessError:
        pass
sys.stdout.write(out.decode(errors="replace"))
sys.exit(status if status >= 0 else 128 - status)
