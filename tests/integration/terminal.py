#!/usr/bin/env python3
"""The agent's terminal (issue 11, item 6; job control, everyday item 7),
driven the way a user drives it: an interactive bash on a pty of ours (we
are the user's terminal emulator: we read what reaches the screen and
answer queries like a terminal would), agentsandbox started from it.
Prints TAP. Environment: ASB, ASB_PLUGIN_DIR, TEST_TMP (from terminal.sh)."""
import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time

ASB = os.environ["ASB"]
PLUGINS = os.environ["ASB_PLUGIN_DIR"]
TMP = os.environ["TEST_TMP"]
BIN = os.path.join(TMP, "bin")  # what the agent runs, read-only inside
os.makedirs(BIN, exist_ok=True)
n = 0
failed = 0


def ok(cond, desc):
    global n, failed
    n += 1
    if not cond:
        failed += 1
    print(("ok" if cond else "not ok") + " %d - %s" % (n, desc), flush=True)


# A raw-mode TUI in the shape of Claude Code's: raw mode, a few modes on,
# Ctrl-Z stops itself alone (SIGTSTP to its own pid), q quits.
AGENT = r'''
import os, sys, tty, termios, signal
fd = 0
saved = termios.tcgetattr(fd)
tty.setraw(fd)
os.write(1, b"\x1b[?1049h\x1b[?1000h\x1b[?2004hREADY\r\n")
while True:
    c = os.read(fd, 1)
    if not c:
        break
    if c == b"\x1a":
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        os.write(1, b"SUSPENDING\n")
        os.kill(os.getpid(), signal.SIGTSTP)
        tty.setraw(fd)
        os.write(1, b"RESUMED\r\n")
    elif c == b"s":
        co, r = os.get_terminal_size(0)
        os.write(1, ("SIZE %dx%d\r\n" % (co, r)).encode())
    elif c == b"q":
        os.write(1, b"BYE\r\n")
        sys.exit(0)
    else:
        os.write(1, b"GOT " + c + b"\r\n")
'''
with open(os.path.join(BIN, "agent.py"), "w") as f:
    f.write(AGENT)
CFG = os.path.join(TMP, "term.cfg")
with open(CFG, "w") as f:
    f.write('sandbox: { command = "bash"; packages = [ "/usr/bin/python3" ]; ro_dirs = [ "%s" ]; };\n'
            % BIN + os.environ.get("NET_OFF", "network: { enabled = false; };\n"))


class Term:
    """bash -i on a pty; we are its terminal."""

    def __init__(self, rows=40, cols=120):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.environ["PS1"] = "PROMPT$ "
            os.environ["TERM"] = "xterm-256color"
            os.chdir(os.path.join(TMP, "ws"))
            os.execvp("bash", ["bash", "--norc", "--noprofile", "-i"])
        self.resize(rows, cols)
        self.screen = b""  # everything that reached the "screen"
        self.buf = b""
        self.answer_queries = True
        self.late = []  # (time, bytes): answers we send later
        self.expect(rb"PROMPT\$ ")

    def resize(self, rows, cols):
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def pump(self, timeout):
        r, _, _ = select.select([self.fd], [], [], timeout)
        now = time.time()
        for item in list(self.late):
            if item[0] <= now:
                os.write(self.fd, item[1])
                self.late.remove(item)
        if not r:
            return
        try:
            chunk = os.read(self.fd, 65536)
        except OSError:
            return
        self.screen += chunk
        self.buf += chunk
        if self.answer_queries:
            # Answer like a terminal: in order, a little late (over ssh, say).
            for q in re.findall(rb"\x1b\[6n|\x1b\[c", chunk):
                ans = b"\x1b[12;1R" if q.endswith(b"n") else b"\x1b[?62;22c"
                self.late.append((now + 0.15, ans))

    def expect(self, pat, timeout=15):
        end = time.time() + timeout
        while time.time() < end:
            m = re.search(pat, self.buf)
            if m:
                self.buf = self.buf[m.end():]
                return True
            self.pump(0.05)
        sys.stdout.write("# timeout waiting for %r; last output %r\n" % (pat, self.buf[-400:]))
        return False

    def send(self, data):
        os.write(self.fd, data)

    def run(self, cmd):
        self.buf = b""
        self.send(cmd.encode() + b"\n")

    def settle(self, t=0.3):
        end = time.time() + t
        while time.time() < end:
            self.pump(0.05)

    def close(self):
        try:
            self.send(b"exit\n")
            self.settle(0.3)
            os.kill(self.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def asb(args):
    return "%s --plugin-dir %s -c %s %s" % (ASB, PLUGINS, CFG, args)


# --- what reaches the screen -------------------------------------------------------
EVIL = (r"printf 'A\e]52;c;ZXZpbA==\aB\e]0;pwned\aC\e]8;;http://evil/\e\\link\e]8;;\e\\D"
        r"\eP$qm\e\\E\e[21tF\e]1337;File=name=eA==:AAAA\aG\e]7;file://h/etc\aH\n'" "\n"
        r"printf '\e]52;c;ZXZpbA==\aVIA-DEV-TTY\n' > /dev/tty" "\n" "echo DONE\n")
with open(os.path.join(BIN, "evil.sh"), "w") as f:
    f.write(EVIL)
with open(os.path.join(BIN, "allow.sh"), "w") as f:
    f.write(r"printf '\e]8;;http://ok/\e\\L\e]8;;\e\\ \e]2;T\a\e]52;c;eA==\a'; echo; echo DONE" "\n")
t = Term()
t.run(asb("-- %s/evil.sh" % BIN))
ok(t.expect(rb"DONE") and t.expect(rb"PROMPT\$ "), "filtered: the session ran")
ok(b"ABClinkDEFGH" in t.screen, "filtered: the text around the sequences reached the screen")
for seq, what in [(b"\x1b]52", "clipboard (OSC 52)"), (b"\x1b]0;", "title (OSC 0)"),
                  (b"\x1b]8;", "hyperlink (OSC 8)"), (b"\x1bP", "DCS (DECRQSS)"),
                  (b"\x1b[21t", "title report (CSI 21 t)"), (b"\x1b]1337", "file transfer (OSC 1337)"),
                  (b"\x1b]7;", "shell integration (OSC 7)")]:
    ok(seq not in t.screen, "filtered: %s never reached the terminal" % what)
ok(b"VIA-DEV-TTY" in t.screen and t.screen.count(b"\x1b]52") == 0,
   "filtered: /dev/tty inside is the agent's own pty (filtered too)")
t.run(asb("--terminal-allow hyperlinks,title -- %s/allow.sh" % BIN))
ok(t.expect(rb"DONE") and b"\x1b]8;;http://ok/" in t.screen and b"\x1b]2;T" in t.screen
   and t.screen.count(b"\x1b]52") == 0,
   "--terminal-allow hyperlinks,title: those pass, the clipboard still does not")
t.close()

# The control: without the filter the same output drives the terminal.
t = Term()
t.run(asb("--no-terminal-filter -- %s/evil.sh" % BIN))
ok(t.expect(rb"DONE") and b"\x1b]52;c;ZXZpbA==" in t.screen,
   "control: with --no-terminal-filter OSC 52 reaches the terminal (the checks above can see it)")
t.close()

# --- window size, raw mode, job control, restore ---------------------------------------
for mode, extra in [("filtered", ""), ("direct", "--no-terminal-filter")]:
    t = Term(rows=40, cols=120)
    t.run("stty -g > %s/stty.before" % TMP)
    t.expect(rb"PROMPT\$ ")
    t.run(asb("%s -- -c 'exec python3 %s/agent.py'" % (extra, BIN)))
    ok(t.expect(rb"READY"), "%s: a raw-mode TUI starts" % mode)
    t.send(b"s")
    ok(t.expect(rb"SIZE 120x40"), "%s: it sees the window size" % mode)
    t.resize(50, 100)
    t.settle(0.4)
    t.send(b"s")
    ok(t.expect(rb"SIZE 100x50"), "%s: a resize reaches it" % mode)
    t.send(b"k")
    ok(t.expect(rb"GOT k"), "%s: keys reach it one by one (raw mode)" % mode)
    start = time.time()
    t.send(b"\x1a")
    ok(t.expect(rb"SUSPENDING") and t.expect(rb"PROMPT\$ "),
       "%s: Ctrl-Z: the agent stops itself, the shell gets its prompt back (%.2fs)" % (mode, time.time() - start))
    if mode == "filtered":
        ok(b"\x1b[?1049l" in t.screen and b"\x1b[?1000l" in t.screen,
           "filtered: suspended, the terminal left the agent's alternate screen and mouse mode")
    t.run("stty -g > %s/stty.suspended; jobs" % TMP)
    ok(t.expect(rb"Stopped") and t.expect(rb"PROMPT\$ "), "%s: jobs lists it as stopped" % mode)
    t.run("fg")
    ok(t.expect(rb"RESUMED"), "%s: fg resumes it" % mode)
    t.send(b"z")
    ok(t.expect(rb"GOT z"), "%s: and it reads keys again" % mode)
    t.send(b"q")
    ok(t.expect(rb"BYE") and t.expect(rb"PROMPT\$ "), "%s: it exits, the shell is back" % mode)
    t.run("echo rc=$?; stty -g > %s/stty.after" % TMP)
    ok(t.expect(rb"rc=0"), "%s: its exit status comes back" % mode)
    t.expect(rb"PROMPT\$ ")
    before = open(os.path.join(TMP, "stty.before")).read()
    ok(before == open(os.path.join(TMP, "stty.after")).read(),
       "%s: the terminal's settings are as before" % mode)
    if mode == "filtered":
        ok(before == open(os.path.join(TMP, "stty.suspended")).read(),
           "filtered: and were while suspended")
        tail = t.screen[t.screen.rfind(b"BYE"):]
        ok(b"\x1b[?1049l" in tail and b"\x1b[?2004l" in tail,
           "filtered: at exit the modes it left on are turned off")
    t.close()

# A cooked-mode program (Ctrl-Z is the line discipline's SIGTSTP).
t = Term()
t.run(asb("-- -c 'echo STARTED; exec cat'"))
ok(t.expect(rb"STARTED"), "filtered: cat runs")
t.settle(0.3)
t.send(b"\x1a")
ok(t.expect(rb"PROMPT\$ "), "filtered: Ctrl-Z on a cooked program suspends the session too")
t.run("fg")
t.settle(0.3)
t.send(b"hello\n")
ok(t.expect(rb"hello\r\n.*hello", 5), "filtered: after fg it echoes and reads lines")
t.send(b"\x04")
ok(t.expect(rb"PROMPT\$ "), "filtered: ^D ends it")
t.close()

# --shell: the inner bash does job control on its own pty; `suspend` suspends the session.
t = Term()
t.run(asb("--shell"))
ok(t.expect(rb"[$#] "), "--shell: an interactive bash inside")
t.send(b"PS1='INNER$ '\n")
t.expect(rb"INNER\$ ")
t.send(b"sleep 30\n")
t.settle(0.5)
t.send(b"\x1a")
ok(t.expect(rb"Stopped") and t.expect(rb"INNER\$ "), "--shell: Ctrl-Z stops a job of the inner shell, which keeps its prompt")
t.send(b"kill %1; suspend\n")
ok(t.expect(rb"PROMPT\$ "), "--shell: the inner shell's suspend gives the outer shell its prompt")
t.run("fg")
t.settle(0.5)
t.send(b"echo ba''ck\n")
ok(t.expect(rb"\rback\r\n") and t.expect(rb"INNER\$ "), "--shell: fg brings the inner shell back")
t.send(b"exit\n")
ok(t.expect(rb"PROMPT\$ "), "--shell: exit ends the session")
t.close()

# --- late answers to the agent's queries do not reach the shell ----------------------------
for mode, extra, fenced in [("filtered", "", True), ("direct", "--no-terminal-filter", False)]:
    t = Term()
    t.run(asb("%s -- -c \"printf '\\e[6n'; exit 0\"" % extra))
    t.expect(rb"PROMPT\$ ")
    t.settle(0.6)  # our answer (sent 150 ms late) has arrived by now
    t.run("echo MA''RK")
    t.expect(rb"\rMARK\r\n", 3)
    line = t.screen[t.screen.rfind(b"PROMPT$ "):]
    after = t.screen[t.screen.find(b"\x1b[6n"):]
    leaked = b"1R" in after or b"syntax error" in after
    if fenced:
        ok(not leaked, "filtered: a late answer to the agent's CPR query is fenced off, not typed into the shell")
    else:
        ok(leaked, "control: without the filter the late answer is typed into the shell")
        if not leaked:
            sys.stdout.write("# screen after the query: %r\n" % t.screen[t.screen.find(b"\x1b[6n"):])
    t.close()

# Ctrl-Z and Ctrl-C typed at a cooked terminal reach the launcher: the agent's
# whole job gets them (a shell loop waiting for its child ends on ^C), with
# the pty (stdin redirected) and without any terminal on 0-2.
for mode, redirect in [("filtered, stdin redirected", "</dev/null"),
                       ("detached", "</dev/null >/dev/null 2>&1")]:
    ticks = os.path.join(TMP, "ws", "ticks")
    if os.path.exists(ticks):
        os.unlink(ticks)
    t = Term()
    t.run(asb("-- -c 'while :; do date +%%s%%N >> ticks; sleep 0.1; done' %s" % redirect))
    t.settle(1.5)
    # A loaded machine may take longer to start the sandbox.
    for _ in range(100):
        if os.path.exists(ticks):
            break
        time.sleep(0.1)
    t.send(b"\x1a")
    ok(t.expect(rb"Stopped[^$]*PROMPT\$ "), "%s: Ctrl-Z gives the shell its prompt" % mode)
    n1 = len(open(ticks).read().split())
    time.sleep(0.8)
    n2 = len(open(ticks).read().split())
    ok(n1 == n2, "%s: and the agent is stopped meanwhile (%d, %d ticks)" % (mode, n1, n2))
    t.run("fg")
    t.settle(0.8)
    for _ in range(50):
        if len(open(ticks).read().split()) > n2:
            break
        time.sleep(0.1)
    ok(len(open(ticks).read().split()) > n2, "%s: fg lets it run again" % mode)
    t.send(b"\x03")
    ok(t.expect(rb"PROMPT\$ "), "%s: Ctrl-C ends the shell loop (the whole job got it)" % mode)
    t.close()

# --- no terminal on 0-2: the sandbox still does not get the user's one ---------------------
t = Term()
t.run(asb("-- -c '( : > /dev/tty ) 2>/dev/null && echo REACHED || echo NO-TTY' > %s/detached.out 2>&1 </dev/null; echo EX''IT" % TMP))
t.expect(rb"\rEXIT")
out = open(os.path.join(TMP, "detached.out")).read()
ok("NO-TTY" in out, "detached: with 0-2 redirected, /dev/tty inside is no terminal at all (%s)" % out.strip())
t.close()

print("1..%d" % n)
sys.exit(1 if failed else 0)
