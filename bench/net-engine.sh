#!/usr/bin/env bash
# The open mode's engine on its own, in a fresh user + network namespace
# (what a sandbox's is): time from spawn to ready, and from SIGTERM to
# reaped, for slirp4netns making its own tap0 (what it did before), for
# slirp4netns attaching to a persistent tap0 made beforehand (what the netns
# helper does now: the exit then skips unregistering the device, two RCU
# grace periods), what its flags cost, and pasta's start (it daemonizes
# once ready).
#   bench/net-engine.sh [RUNS]      (default 20; run as the user who launches)
# Needs: slirp4netns, unshare, python3, /dev/net/tun usable; pasta optional.
set -euo pipefail
RUNS=${1:-20}
command -v slirp4netns >/dev/null || { echo "slirp4netns is not installed" >&2; exit 1; }
exec python3 - "$RUNS" <<'PY'
import os, signal, statistics, subprocess, sys, tempfile, time

runs = int(sys.argv[1])

def namespace(persistent_tap):
    pre = "ip tuntap add dev tap0 mode tap; " if persistent_tap else ""
    ns = subprocess.Popen(["unshare", "-rn", "sh", "-c", pre + "echo up; exec sleep 100"],
                          stdout=subprocess.PIPE)
    ns.stdout.readline()
    return ns

# The launcher's flags (linux/slirp.c); a variant leaves one out, or adds
# the mount sandbox it asks for as root.
FLAGS = ["--configure", "--mtu=65520", "--disable-host-loopback", "--enable-seccomp"]

def slirp(persistent_tap, flags=FLAGS):
    ns = namespace(persistent_tap)
    r, w = os.pipe()
    t0 = time.monotonic()
    p = subprocess.Popen(["slirp4netns"] + flags + ["--ready-fd=%d" % w, str(ns.pid), "tap0"],
                         pass_fds=(w,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(w)
    ready = os.read(r, 1) == b"1"
    os.close(r)
    t1 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    p.wait()
    t2 = time.monotonic()
    ns.kill()
    ns.wait()
    return ready, t1 - t0, t2 - t1

def pasta():
    ns = namespace(False)
    with tempfile.TemporaryDirectory() as d:
        pidf = os.path.join(d, "pid")
        t0 = time.monotonic()
        rc = subprocess.run(["pasta", "--config-net", "-q", "--no-map-gw", "-t", "none", "-u", "none",
                             "-T", "none", "-U", "none", "-P", pidf,
                             "--netns", "/proc/%d/ns/net" % ns.pid,
                             "--userns", "/proc/%d/ns/user" % ns.pid],
                            stderr=subprocess.DEVNULL).returncode
        t1 = time.monotonic()
        if os.path.exists(pidf):
            os.kill(int(open(pidf).read()), signal.SIGKILL)
    ns.kill()
    ns.wait()
    return rc == 0, t1 - t0, None

def report(name, fn):
    res = [fn() for _ in range(runs)]
    if not all(ok for ok, _, _ in res):
        print("%-44s did not get ready (pasta as root runs as nobody)" % name)
        return
    start = statistics.median(s for _, s, _ in res) * 1000
    stops = [t for _, _, t in res if t is not None]
    stop = "%6.1f ms" % (statistics.median(stops) * 1000) if stops else "      -"
    print("%-44s %6.1f ms  %s" % (name, start, stop))

print("%-44s %9s  %9s   (medians of %d)" % ("", "to ready", "to reaped", runs))
report("slirp4netns, makes its own tap0", lambda: slirp(False))
report("slirp4netns, persistent tap0 made before", lambda: slirp(True))
for flag in ("--enable-seccomp", "--configure"):
    report("  the same without %s" % flag, lambda: slirp(True, [f for f in FLAGS if f != flag]))
if os.geteuid() == 0:
    report("  the same with --enable-sandbox (as root)", lambda: slirp(True, FLAGS + ["--enable-sandbox"]))
if subprocess.run(["sh", "-c", "command -v pasta"], stdout=subprocess.DEVNULL).returncode == 0:
    report("pasta (daemonizes when ready)", pasta)
PY
