#!/usr/bin/env python3
"""Run a command on a fresh pty as its controlling terminal, then report
what a shell reading that terminal would read next: anything the command
pushed into the input queue with TIOCSTI. Prints the command's output, then
a last line "injected: <repr>"."""
import fcntl
import os
import select
import sys
import termios

master, slave = os.openpty()
pid = os.fork()
if pid == 0:
    os.close(master)
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
while True:
    r, _, _ = select.select([master], [], [], 30)
    if not r:
        break
    try:
        chunk = os.read(master, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
    if os.waitpid(pid, os.WNOHANG)[0]:
        try:
            while select.select([master], [], [], 0.2)[0]:
                out += os.read(master, 4096)
        except OSError:
            pass
        break
try:
    os.waitpid(pid, 0)
except ChildProcessError:
    pass
# What is waiting in the terminal's input queue (the parent shell's input).
attrs = termios.tcgetattr(slave)
attrs[3] &= ~(termios.ICANON | termios.ECHO)
termios.tcsetattr(slave, termios.TCSANOW, attrs)
os.set_blocking(slave, False)
try:
    injected = os.read(slave, 4096)
except BlockingIOError:
    injected = b""
sys.stdout.write(out.decode(errors="replace"))
print("\ninjected: %r" % injected)
