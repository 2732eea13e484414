#!/usr/bin/python3
"""Drive Firefox through Marionette (Debian has no geckodriver), inside the sandbox.

Usage: drive_firefox.py OUTDIR URL [URL...]

Starts $FIREFOX_BIN headless with Marionette on the plugin's profile
($FIREFOX_PROFILE), then for each URL: load it, print "title URL TITLE"; a
screenshot of the first one goes to OUTDIR/firefox.png with "viewport W H
DPR". Then "sandbox KEY VALUE" for what Firefox says of its own sandbox
(seccomp-bpf, user namespaces, the effective content sandbox level) and
"content PID KEY VALUE" for each content process."""
import base64
import json
import os
import socket
import subprocess
import sys
import time

PORT = 2828  # Marionette's own default; the sandbox's loopback is its own


class Marionette:
    def __init__(self, proc, timeout=90):
        end = time.time() + timeout
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", PORT), timeout=60)
                break
            except OSError:
                if time.time() > end or proc.poll() is not None:
                    raise RuntimeError("Marionette did not come up")
                time.sleep(0.2)
        self.file = self.sock.makefile("rb")
        self.msgid = 0
        self.read()  # hello

    def read(self):
        n = b""
        while True:
            c = self.file.read(1)
            if not c:
                raise RuntimeError("Marionette closed the connection")
            if c == b":":
                break
            n += c
        return json.loads(self.file.read(int(n)))

    def __call__(self, name, params=None):
        self.msgid += 1
        data = json.dumps([0, self.msgid, name, params or {}]).encode()
        self.sock.sendall(str(len(data)).encode() + b":" + data)
        reply = self.read()
        if reply[2]:
            raise RuntimeError("%s: %s" % (name, reply[2].get("message", reply[2])))
        return reply[3]


SANDBOX_JS = """
const info = Services.sysinfo;
const out = {};
for (const k of ["hasSeccompBPF", "hasSeccompTSync", "hasUserNamespaces", "canSandboxContent"])
    out[k] = info.hasKey(k) ? info.getPropertyAsBool(k) : null;
out.effectiveContentSandboxLevel = Cc["@mozilla.org/sandbox/sandbox-settings;1"]
    .getService(Ci.mozISandboxSettings).effectiveContentSandboxLevel;
return out;
"""


def content_processes():
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        # Content processes rewrite their argv into one string.
        if b"-contentproc" in cmdline and b"-isForBrowser" in cmdline:
            yield pid


def status(pid):
    with open("/proc/%s/status" % pid) as f:
        return dict(line.split(":", 1) for line in f if ":" in line)


def describe(pid):
    mine = status("self")
    # A content process Firefox has just started (a preallocated one) may
    # not have reached its sandbox yet: give it a few seconds on a loaded
    # machine, then report what it has.
    for _ in range(50):
        try:
            st = status(pid)
        except OSError:
            return
        if int(st.get("Seccomp_filters", "0")) > int(mine.get("Seccomp_filters", "0")):
            break
        time.sleep(0.1)
    # Every process inside has agentsandbox's filter; Firefox's is one more.
    print("content", pid, "seccomp", st.get("Seccomp", "?").strip())
    print("content", pid, "extra_filters",
          int(st.get("Seccomp_filters", "0")) - int(mine.get("Seccomp_filters", "0")))
    for kind in ("user", "net"):
        try:
            same = os.readlink("/proc/%s/ns/%s" % (pid, kind)) == os.readlink("/proc/self/ns/" + kind)
        except OSError as e:
            same = "unreadable:%d" % e.errno
        print("content", pid, "same_" + kind, same)


def main():
    outdir, urls = sys.argv[1], sys.argv[2:]
    env = dict(os.environ, MOZ_HEADLESS_WIDTH="800", MOZ_HEADLESS_HEIGHT="600")
    log = open(os.path.join(outdir, "firefox.log"), "wb")
    proc = subprocess.Popen(
        [os.environ["FIREFOX_BIN"], "-headless", "-no-remote", "-marionette",
         "-remote-allow-system-access", "-profile", os.environ["FIREFOX_PROFILE"]],
        stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        m = Marionette(proc)
        m("WebDriver:NewSession", {"capabilities": {"alwaysMatch": {"acceptInsecureCerts": False}}})
        m("WebDriver:SetTimeouts", {"pageLoad": 60000})
        for i, url in enumerate(urls):
            try:
                m("WebDriver:Navigate", {"url": url})
                title = m("WebDriver:GetTitle")["value"]
            except RuntimeError as e:
                title = "(error: %s)" % str(e).splitlines()[0]
            print("title", url, title or "(none)", flush=True)
            if i == 0:
                size = m("WebDriver:ExecuteScript", {
                    "script": "return [window.innerWidth, window.innerHeight, window.devicePixelRatio]",
                    "args": []})["value"]
                print("viewport", *size)
                png = m("WebDriver:TakeScreenshot", {"full": False})["value"]
                with open(os.path.join(outdir, "firefox.png"), "wb") as f:
                    f.write(base64.b64decode(png))
                for pid in content_processes():
                    describe(pid)
        m("Marionette:SetContext", {"value": "chrome"})
        for k, v in sorted(m("WebDriver:ExecuteScript", {"script": SANDBOX_JS, "args": []})["value"].items()):
            print("sandbox", k, json.dumps(v))
        try:
            m("Marionette:Quit", {"flags": ["eForceQuit"]})
        except RuntimeError:
            pass
    finally:
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


if __name__ == "__main__":
    main()
