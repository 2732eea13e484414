#!/usr/bin/env python3
"""pty-answer.py ANSWER CMD...: run CMD on a new pseudo-terminal (its
controlling terminal, so /dev/tty works), wait for a "[y/N]" prompt, type
ANSWER, and relay everything CMD printed. Exits with CMD's status; 124 if no
prompt came within 30 seconds."""
import os
import pty
import select
import sys
import time

answer, cmd = sys.argv[1], sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(cmd[0], cmd)

out = b""
answered = False
deadline = time.time() + 30
while True:
    left = deadline - time.time()
    if left <= 0:
        os.kill(pid, 9)
        sys.stdout.write(out.decode(errors="replace"))
        sys.exit(124)
    r, _, _ = select.select([fd], [], [], left)
    if not r:
        continue
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
    if not answered and b"[y/N]" in out:
        os.write(fd, answer.encode() + b"\n")
        answered = True
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
if not answered:
    sys.stdout.write("\n(no prompt)\n")
sys.exit(os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8)
