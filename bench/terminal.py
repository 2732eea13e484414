#!/usr/bin/env python3
"""The filtered terminal's cost (bench/terminal.sh): throughput of a large
`cat` through the pty, and the round trip of a keypress, for a program on
the terminal directly, in agentsandbox with the terminal passed through
(--no-terminal-filter), and in agentsandbox with the filtered pty.
Usage: terminal.py ASB PLUGIN_DIR CFG WORKDIR"""
import os
import pty
import select
import statistics
import sys
import time

ASB, PLUGINS, CFG, WORK = sys.argv[1:5]
BIG = os.path.join(WORK, "big.txt")
ECHO = os.path.join(WORK, "echo.py")

if not os.path.exists(BIG):
    # TUI-like output: coloured text lines, UTF-8, cursor moves.
    line = ("\x1b[1;32mok\x1b[0m build step \x1b[33m%05d\x1b[0m: compil\u00e9 "
            "src/module/file.c \u2192 obj \x1b[K\r\n")
    with open(BIG, "w") as f:
        for i in range(600000):
            f.write(line % i)
with open(ECHO, "w") as f:
    f.write("import os, tty\ntty.setraw(0)\nos.write(1, b'R')\n"
            "while True:\n    c = os.read(0, 1)\n    if not c or c == b'q': break\n"
            "    os.write(1, c)\n")

variants = [
    ("direct, no sandbox", []),
    ("agentsandbox --no-terminal-filter", [ASB, "--plugin-dir", PLUGINS, "-c", CFG,
                                           "--no-terminal-filter", "--"]),
    ("agentsandbox (filtered pty)", [ASB, "--plugin-dir", PLUGINS, "-c", CFG, "--"]),
]


def spawn(prefix, cmd):
    pid, fd = pty.fork()
    if pid == 0:
        argv = prefix + cmd if prefix else cmd
        os.execvp(argv[0], argv)
    return pid, fd


def drain(pid, fd):
    total = 0
    while True:
        r, _, _ = select.select([fd], [], [], 10)
        if not r:
            break
        try:
            c = os.read(fd, 1 << 16)
        except OSError:
            break
        if not c:
            break
        total += len(c)
    os.waitpid(pid, 0)
    return total


def timed(prefix, cmd):
    t0 = time.perf_counter()
    pid, fd = spawn(prefix, cmd)
    n = drain(pid, fd)
    os.close(fd)
    return time.perf_counter() - t0, n


size = os.path.getsize(BIG)
print("| | throughput of cat (%d MiB) | keypress round trip: median | p99 |" % (size >> 20))
print("|---|---|---|---|")
for name, prefix in variants:
    shell = ["/bin/bash", "-c"] if not prefix else ["-c"]
    runs = []
    for _ in range(3):
        empty, _ = timed(prefix, shell + ["cat /dev/null"])
        full, n = timed(prefix, shell + ["cat " + BIG])
        runs.append((full - empty, n))
    best = min(r[0] for r in runs)
    mbs = size / best / 1e6
    # Round trips: one key, wait for its echo.
    pid, fd = spawn(prefix, shell + ["exec python3 " + ECHO])
    buf = b""
    while b"R" not in buf:
        buf += os.read(fd, 4096)
    lat = []
    for i in range(400):
        t0 = time.perf_counter()
        os.write(fd, b"x")
        got = b""
        while b"x" not in got:
            select.select([fd], [], [], 5)
            got += os.read(fd, 4096)
        lat.append(time.perf_counter() - t0)
    os.write(fd, b"q")
    drain(pid, fd)
    lat.sort()
    print("| %s | %.0f MB/s | %.0f µs | %.0f µs |" % (
        name, mbs, statistics.median(lat) * 1e6, lat[int(len(lat) * 0.99)] * 1e6))
