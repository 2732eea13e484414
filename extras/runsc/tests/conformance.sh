#!/usr/bin/env bash
# The conformance suite of the runsc backend: every capability it claims,
# asserted from inside the sandbox, and every one it lacks refused by the
# core. Runs as root and as an unprivileged user (what differs is said).
#
#   ASB=/path/to/agentsandbox RUNSC_TESTS=BUILD/tests [ASB_PLUGIN_DIR=DIR] conformance.sh
#
# ASB_PLUGIN_DIR (DIR[:DIR...]) holds runsc.so unless it is installed;
# RUNSC_TESTS is this project's build directory of tests (runsc-probe,
# conform.so).
. "$(dirname "$0")/tap.sh"

: "${ASB:?set ASB to the agentsandbox launcher}"
: "${RUNSC_TESTS:?set RUNSC_TESTS to the build directory of extras/runsc/tests}"
PROBE="$RUNSC_TESTS/runsc-probe"
PY=/usr/bin/python3
[ -x "$PY" ] || skip_all "no $PY (the checks inside use it)"
[ -x /usr/bin/runsc ] || [ -x /usr/local/bin/runsc ] || [ -x /usr/sbin/runsc ] || skip_all "runsc is not installed"
[ -x "$PROBE" ] || skip_all "the probe is not built ($PROBE)"
# ASB_PLUGIN_DIR: where runsc.so is, unless installed (DIR[:DIR...]).
dirs=()
IFS=: read -ra pdirs <<<"${ASB_PLUGIN_DIR:-}"
for d in "${pdirs[@]+"${pdirs[@]}"}"; do [ -n "$d" ] && dirs+=(--plugin-dir "$d"); done
dirs+=(--plugin-dir "$RUNSC_TESTS")
asb() { "$ASB" "${dirs[@]}" "$@"; }
root=0
[ "$(id -u)" -eq 0 ] && root=1
diag "as $(id -un) (uid $(id -u))"

WS="$TEST_TMP/ws"
mkdir -p "$WS"
cd "$WS" || exit 1

# cfg NAME [sandbox keys] [network keys] [plugins groups]
cfg() {
    printf 'sandbox: { command = "bash"; backend = "runsc"; packages = [ "%s", "%s" ]; %s };\nnetwork: { %s };\nplugins: { %s };\n' \
        "$PROBE" "$PY" "${2:-}" "${3:-enabled = false;}" "${4:-}" >"$TEST_TMP/$1.cfg"
}
# sb NAME SCRIPT: run SCRIPT with bash in the sandbox of NAME.cfg
sb() { asb -c "$TEST_TMP/$1.cfg" -- -c "$2" 2>&1; }
newest() { ls -1d "$XDG_STATE_HOME"/agentsandbox/*/ 2>/dev/null | sort | tail -1; }

# Inside: connect to each ADDR:PORT, print "ADDR:PORT ok|ERRNO [first bytes]".
cat >"$WS/net.py" <<'PYEOF'
import errno, socket, sys
for t in sys.argv[1:]:
    a, p = t.rsplit(":", 1)
    s = socket.socket(socket.AF_INET6 if ":" in a else socket.AF_INET)
    s.settimeout(3)
    try:
        s.connect((a, int(p)))
        s.settimeout(1)
        try:
            got = s.recv(64).decode(errors="replace").strip()
        except OSError:
            got = ""
        print(t, "ok", got)
    except OSError as e:
        print(t, errno.errorcode.get(e.errno, str(e.errno)))
PYEOF
# On the host: a server answering NAME to every connection.
cat >"$TEST_TMP/srv.py" <<'PYEOF'
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(16)
while True:
    c, _ = s.accept(); c.sendall(sys.argv[3].encode()); c.close()
PYEOF
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
HOST_IP=$(ip -4 -o addr show scope global 2>/dev/null | awk '{print $4}' | cut -d/ -f1 | head -1)
[ -n "$HOST_IP" ] || HOST_IP=$(hostname -I 2>/dev/null | awk '{print $1}')
P_LO=$(free_port)
P_LO2=$(free_port)
background "$PY" "$TEST_TMP/srv.py" 127.0.0.1 "$P_LO" host-loopback
background "$PY" "$TEST_TMP/srv.py" 127.0.0.1 "$P_LO2" other-loopback
if [ -n "$HOST_IP" ]; then
    P_IP=$(free_port)
    background "$PY" "$TEST_TMP/srv.py" "$HOST_IP" "$P_IP" host-address
fi
sleep 0.5

# --- the backend and what it reports --------------------------------------------
cfg base
out=$(asb -c "$TEST_TMP/base.cfg" --check 2>&1)
ok $? "--check passes"
for p in filesystem pinned-paths processes network seccomp limits no-new-privs; do
    like "$out" "^protection $p: (applied|not needed)" "--check: $p is applied"
done
like "$out" "^protection landlock: not applied: the backend cannot apply it" \
    "--check: Landlock is not claimed (ENOSYS in gVisor)"
out=$(asb -c "$TEST_TMP/base.cfg" --show-config 2>&1)
like "$out" "runsc.path = /" "--show-config names runsc"
like "$out" '"noNewPrivileges": true' "--show-config shows the OCI spec"

# --- exit status, stdio ----------------------------------------------------------------
sb base 'exit 0' >/dev/null
is $? 0 "exit 0"
sb base 'exit 7' >/dev/null
is $? 7 "exit 7 passes through"
sb base 'kill -TERM $$' >/dev/null
is $? 143 "an agent killed by SIGTERM: 128+15"
out=$(echo from-stdin | asb -c "$TEST_TMP/base.cfg" -- -c 'read -r x; echo "got $x"; echo err >&2' 2>/dev/null)
is "$out" "got from-stdin" "stdin and stdout are the caller's (pipes); stderr apart"
(echo before; asb -c "$TEST_TMP/base.cfg" -- -c 'echo agent-out; echo agent-err >&2'; echo after) \
    >"$TEST_TMP/out.txt" 2>&1
is "$(cat "$TEST_TMP/out.txt")" "before
agent-out
agent-err
after" "stdout and stderr into a file: in order, nothing overwritten"

# --- filesystem: the view ---------------------------------------------------------------
mkdir -p "$TEST_TMP/outside" "$HOME/.ssh"
echo secret >"$TEST_TMP/outside/secret"
echo key >"$HOME/.ssh/id_test"
out=$(sb base "test -e '$TEST_TMP/outside/secret' && echo visible; test -e /etc/shadow && echo shadow;
  ls_home=\$(python3 -c 'import os; print(os.listdir(os.environ[\"HOME\"]))'); echo \"home \$ls_home\";
  python3 -c 'import os; print(\"sys\", os.listdir(\"/sys\"))'; echo ok")
unlike "$out" "^visible" "filesystem: a host path outside the plan is not there"
unlike "$out" "^shadow" "filesystem: /etc/shadow is not there"
like "$out" "^home \[\]" "ephemeral: the home is empty (not the host's ~/.ssh)"
like "$out" "^sys \[\]" "filesystem: no /sys (gVisor's own is covered)"
out=$(sb base 'echo x >/usr/new 2>&1 || echo refused; echo y >"$HOME/h" && echo home-ok; echo z >/tmp/t && echo tmp-ok; echo w >ws-file && echo ws-ok')
like "$out" "refused" "a read-only system path refuses writes"
like "$out" "home-ok" "ephemeral: the home is writable"
like "$out" "tmp-ok" "ephemeral: /tmp is writable"
like "$out" "ws-ok" "the workspace is writable"
ok $([ -f "$WS/ws-file" ] && [ ! -e "$HOME/h" ]; echo $?) \
    "the workspace write reached the host; the home's did not"
out=$(sb base 'test -e "$HOME/h" && echo still; test -e /tmp/t && echo still-tmp; echo done')
unlike "$out" "still" "ephemeral: nothing of the last launch's home or /tmp"
if [ $root -eq 0 ]; then
    is "$(stat -c %u "$WS/ws-file")" "$(id -u)" "unprivileged: what the agent writes is the user's"
    is "$(sb base 'id -u')" "0" "unprivileged: the agent is uid 0 of gVisor's user namespace"
fi

# remap: a path elsewhere than on the host
mkdir -p "$TEST_TMP/src"
echo remapped >"$TEST_TMP/src/f"
out=$(asb -c "$TEST_TMP/base.cfg" --mount "ro:$TEST_TMP/src:/opt/remapped" -- -c \
    'cat /opt/remapped/f; { echo x >/opt/remapped/g; } 2>/dev/null || echo ro' 2>&1)
is "$out" "remapped
ro" "remap: --mount ro:SRC:DEST shows SRC at DEST, read-only"

# files: generated ones and links
out=$(sb base 'cat /etc/resolv.conf; python3 -c "import os; print(os.readlink(\"/bin\") if os.path.islink(\"/bin\") else \"dir\")"')
like "$out" "no resolver" "files: a generated /etc/resolv.conf"
if [ -L /bin ]; then
    like "$out" "^usr/bin$" "files: /bin is the host's symlink"
else
    skip "/bin is not a symlink on this host"
fi
out=$(sb base 'test -x /run/agentsandbox/bin/bash && echo bin; echo $PATH; echo x >/run/agentsandbox/bin/x 2>/dev/null || echo ro')
like "$out" "^bin$" "executables under /run/agentsandbox/bin"
like "$out" "^/run/agentsandbox/bin$" "PATH is that directory alone"
like "$out" "^ro$" "it is read-only"

# masks (asked by a plugin)
echo secret-content >"$WS/secret.txt"
mkdir -p "$WS/secretdir" && echo inner >"$WS/secretdir/f"
cfg masks "" "" "conform: { mask_file = \"$WS/secret.txt\"; mask_dir = \"$WS/secretdir\"; };"
out=$(sb masks 'echo "file [$(cat secret.txt)]"; python3 -c "import os; print(\"dir\", os.listdir(\"secretdir\"))";
  echo x >secret.txt 2>/dev/null || echo file-ro; echo y >secretdir/new 2>/dev/null || echo dir-ro')
like "$out" "^file \[\]$" "masks: a masked file is empty"
like "$out" "^dir \[\]$" "masks: a masked directory is empty"
like "$out" "^file-ro$" "masks: a masked file takes no writes"
like "$out" "^dir-ro$" "masks: nothing is created in a masked directory"
is "$(cat "$WS/secret.txt")" "secret-content" "masks: the host's file is untouched"

# --- processes --------------------------------------------------------------------------
out=$(sb base "python3 -c '
import os
pids = sorted(int(p) for p in os.listdir(\"/proc\") if p.isdigit())
print(\"pids\", len(pids))
try:
    os.kill($$, 0); print(\"host pid reachable\")
except ProcessLookupError: print(\"no host pid\")
'")
like "$out" "^pids [1-5]$" "processes: only the sandbox's own in /proc"
like "$out" "^no host pid$" "processes: a host pid cannot be signalled"

# --- seccomp, no_new_privs, limits -------------------------------------------------------
out=$(sb base 'grep -E "^(Seccomp|CapEff):" /proc/self/status; runsc-probe socket_unix socket_inet unshare_user unshare_net mount keyctl bpf ptrace no_new_privs x32_getpid')
like "$out" "^Seccomp:[[:space:]]+2" "seccomp: the agent runs under a filter"
like "$out" "^CapEff:[[:space:]]+0+$" "no capabilities inside"
for want in "socket_unix EPERM" "socket_inet ok" "unshare_user EPERM" "unshare_net EPERM" "mount EPERM" \
    "keyctl EPERM" "bpf EPERM" "ptrace EPERM" "no_new_privs ok"; do
    like "$out" "^$want$" "seccomp/no_new_privs: $want"
done
if [ "$(uname -m)" = x86_64 ]; then
    like "$out" "^x32_getpid killed:SYS$" "seccomp: the x32 ABI kills the process"
fi
cfg unix "" "enabled = false; unix_sockets = true;"
like "$(sb unix 'runsc-probe socket_unix unshare_user')" "socket_unix ok" \
    "network.unix_sockets = true: AF_UNIX allowed, the rest stays"

cfg limits 'limits = { nofile = 1234; nproc = 321; as = "1G"; };'
out=$(sb limits 'ulimit -Hn; ulimit -Hu; python3 -c "
try:
    b = bytearray(1536 * 1024 * 1024); print(\"allocated\")
except MemoryError: print(\"as-limited\")"')
like "$out" "^1234$" "limits: nofile"
like "$out" "^321$" "limits: nproc"
like "$out" "^as-limited$" "limits: the address space"
cfg nproc 'limits = { nproc = 20; };'
out=$(sb nproc "python3 -c '
import os, time
n = 0
try:
    for i in range(60):
        if os.fork() == 0:
            time.sleep(3); os._exit(0)
        n += 1
    print(\"forked\", n)
except OSError as e:
    print(\"stopped at\", n)'")
like "$out" "^stopped at 19$" "limits: nproc binds (gVisor applies it to uid 0 too)"
cfg cpu 'limits = { cpu = 60; };'
out=$(sb cpu 'echo ran')
rc=$?
ok $([ $rc -eq 125 ] && ! grep -q ran <<<"$out"; echo $?) "limits: cpu is refused, nothing runs (125)"
like "$out" "RLIMIT_CPU" "limits: the refusal says gVisor does not enforce RLIMIT_CPU"

# --- network ----------------------------------------------------------------------------
targets="127.0.0.1:$P_LO 1.1.1.1:80${HOST_IP:+ $HOST_IP:$P_IP}"
out=$(sb base "python3 net.py $targets; python3 -c '
import socket; s=socket.socket(); s.bind((\"127.0.0.1\",0)); s.listen(1)
c=socket.create_connection(s.getsockname()); print(\"loopback inside ok\")'")
like "$out" "^127.0.0.1:$P_LO ECONNREFUSED" "off: the host's loopback is not reachable"
like "$out" "^1.1.1.1:80 (ENETUNREACH|EHOSTUNREACH|ECONNREFUSED|ETIMEDOUT)" "off: no route out"
[ -n "$HOST_IP" ] && like "$out" "^$HOST_IP:$P_IP (ENETUNREACH|EHOSTUNREACH|ECONNREFUSED|ETIMEDOUT)" \
    "off: the host's own address is not reachable"
like "$out" "^loopback inside ok$" "off: the sandbox's own loopback works"

cfg filtered "" "allowed_domains = ( \"example.com\" ); host_ports = [ $P_LO ];" \
    "conform: { mark = \"$WS/held.mark\"; };"
rm -f "$WS/held.mark"
out=$(sb filtered "cat held.mark; python3 net.py 127.0.0.1:3128 127.0.0.1:$P_LO 127.0.0.1:$P_LO2 1.1.1.1:80${HOST_IP:+ $HOST_IP:$P_IP}; python3 -c '
import socket
s = socket.create_connection((\"127.0.0.1\", 3128))
s.sendall(b\"GET http://blocked.invalid/ HTTP/1.1\\r\\nHost: blocked.invalid\\r\\n\\r\\n\")
print(\"proxy:\", s.recv(200).split(b\"\\r\\n\")[0].decode())'")
like "$out" "^held with a pid$" "hold: a plugin's network hook ran before the agent, with the sandbox's pid"
like "$out" "^127.0.0.1:3128 ok" "filtered: the proxy is at 127.0.0.1:3128 inside"
like "$out" "^proxy: HTTP/1.1 403" "filtered: and it is the filtering proxy (a blocked domain: 403)"
like "$out" "^127.0.0.1:$P_LO ok host-loopback" "filtered: a listed host port reaches the host's"
like "$out" "^127.0.0.1:$P_LO2 ECONNREFUSED" "filtered: an unlisted host port does not"
like "$out" "^1.1.1.1:80 (ENETUNREACH|EHOSTUNREACH)" "filtered: no route out but the proxy"
[ -n "$HOST_IP" ] && like "$out" "^$HOST_IP:$P_IP (ENETUNREACH|EHOSTUNREACH)" \
    "filtered: the host's own address is not reachable"

P_PUB=$(free_port)
cfg published "" "enabled = false; published_ports = ( $P_PUB );"
(sb published "python3 -c '
import socket; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((\"127.0.0.1\", $P_PUB)); s.listen(1); open(\"pub.ready\",\"w\").close()
c,_=s.accept(); c.sendall(b\"from-inside\"); c.close()'" >"$TEST_TMP/pub.out" 2>&1) &
pub=$!
for _ in $(seq 100); do [ -e "$WS/pub.ready" ] && break; sleep 0.1; done
out=$("$PY" "$WS/net.py" "127.0.0.1:$P_PUB")
wait $pub
like "$out" "ok from-inside" "published_ports: the host's 127.0.0.1:$P_PUB reaches the agent's server"

if command -v slirp4netns >/dev/null && [ -n "$HOST_IP" ] && [ -w /dev/net/tun ]; then
    cfg open "" ""
    printf 'sandbox: { command = "bash"; backend = "runsc"; packages = [ "%s" ]; };\n' "$PY" >"$TEST_TMP/open.cfg"
    out=$(sb open "python3 net.py $HOST_IP:$P_IP 127.0.0.1:$P_LO")
    like "$out" "^$HOST_IP:$P_IP ok host-address" "open: a route out (slirp4netns)"
    like "$out" "^127.0.0.1:$P_LO ECONNREFUSED" "open: the host's loopback stays closed"
else
    skip "open mode: no slirp4netns, usable /dev/net/tun or host address"
    skip "open mode"
fi

# --- pinned paths: the object that was checked, or nothing ----------------------------
mkdir -p "$TEST_TMP/pin" "$TEST_TMP/gone" && echo checked >"$TEST_TMP/pin/f" && echo x >"$TEST_TMP/gone/f"
cfg swap "" "" "conform: { swap_dir = \"$TEST_TMP/pin\"; };"
out=$(sb swap "cat $TEST_TMP/pin/f; echo ran")
rc=$?
ok $([ $rc -eq 125 ] && ! grep -q '^ran$' <<<"$out"; echo $?) \
    "pinned-paths: a directory swapped after the check stops the launch (125)"
like "$out" "not, inside, the object that was checked" "pinned-paths: and says which"
rm -rf "$TEST_TMP/pin" && mv "$TEST_TMP/pin.old" "$TEST_TMP/pin"
sb base 'true' >/dev/null
like "$(grep -h "pinned paths are" "$(newest)/launch.log")" \
    "the [0-9]+ pinned paths are, inside, the objects that were checked" "pinned-paths: checked on every launch"

# --- refusals: what the core must not get ------------------------------------------------
cfg landlock 'require_landlock = true;'
out=$(sb landlock 'echo ran')
rc=$?
ok $([ $rc -eq 125 ] && ! grep -q ran <<<"$out"; echo $?) "require_landlock: refused (125)"
like "$out" 'protection "landlock"' "require_landlock: the core names the protection"
cfg device "" "" "conform: { device = \"/dev/null\"; };"
out=$(sb device 'echo ran')
rc=$?
ok $([ $rc -eq 125 ] && ! grep -q ran <<<"$out"; echo $?) "a host device: refused (125)"
like "$out" "host device" "a host device: the refusal says why"
cfg gone "" "" "conform: { gone_dir = \"$TEST_TMP/gone\"; };"
out=$(sb gone 'echo ran')
rc=$?
ok $([ $rc -eq 125 ] && ! grep -q '^ran$' <<<"$out"; echo $?) \
    "runsc failing before the agent runs is a setup error (125)"

# --- secrets ----------------------------------------------------------------------------
cfg secret 'env = { ASB_TEST_SECRET = "s3cret-v4lue-xyz"; };'
(sb secret 'echo "inside: $ASB_TEST_SECRET"; sleep 2' >"$TEST_TMP/secret.out" 2>&1) &
sp=$!
sleep 1
found=$(grep -l 's3cret-v4lue-xy[z]' /proc/[0-9]*/cmdline 2>/dev/null | head -3)
wait $sp
like "$(cat "$TEST_TMP/secret.out")" "^inside: s3cret-v4lue-xyz$" "env: the agent has its variables"
is "$found" "" "env: no value on any host process's command line"
sd=$(newest)
is "$(grep -rl s3cret-v4lue-xyz "$sd" 2>/dev/null)" "" "env: no value anywhere in the session directory"
like "$(cat "$sd/runsc.json")" '"ASB_TEST_SECRET=\(redacted\)"' "runsc.json records the spec, values redacted"
ok $([ ! -e "$sd/private" ]; echo $?) "the private directory (config.json) is gone after the session"

# --- signals and lifetime ----------------------------------------------------------------
rm -f "$WS/ready" "$WS/got-term"
(exec "$ASB" "${dirs[@]}" -c "$TEST_TMP/base.cfg" -- -c \
    'trap "echo term >got-term; exit 3" TERM; echo >ready; while :; do sleep 0.1; done' >/dev/null 2>&1) &
lp=$!
for _ in $(seq 100); do [ -e "$WS/ready" ] && break; sleep 0.1; done
kill -TERM $lp
wait $lp
is $? 3 "SIGTERM to the launcher reaches the agent (its trap's exit status)"
ok $([ -e "$WS/got-term" ]; echo $?) "the agent's trap ran"
rm -f "$WS/ready"
(exec "$ASB" "${dirs[@]}" -c "$TEST_TMP/base.cfg" -- -c 'echo >ready; sleep 60' >/dev/null 2>&1) &
lp=$!
for _ in $(seq 100); do [ -e "$WS/ready" ] && break; sleep 0.1; done
id=$(grep -ho 'asb-[0-9a-f-]*' "$(newest)/runsc.args" | head -1)
kill -KILL $lp
wait $lp 2>/dev/null
sleep 2
is "$(pgrep -f -- "$id" | head -3)" "" "the launcher killed outright: nothing of its sandbox remains"

# --- a terminal --------------------------------------------------------------------------
out=$("$PY" - "$ASB" "${dirs[@]}" -c "$TEST_TMP/base.cfg" <<'PYEOF'
import os, pty, select, struct, sys, time, fcntl, termios
pid, fd = pty.fork()
if pid == 0:
    os.environ["PS1"] = "PROMPT$ "
    os.execv(sys.argv[1], sys.argv[1:] + ["--", "--norc", "-i"])
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
def rd(t):
    out, end = b"", time.time() + t
    while time.time() < end:
        if select.select([fd], [], [], 0.1)[0]:
            try: out += os.read(fd, 4096)
            except OSError: break
    return out.decode(errors="replace")
rd(3)
os.write(fd, b"python3 -c 'import os; print(\"isatty\", os.isatty(0), os.isatty(1))'; stty size\n")
print(rd(2))
os.write(fd, b"sleep 30\n"); time.sleep(1); os.write(fd, b"\x03"); rd(1)
os.write(fd, b"echo after-interrupt $?\n"); print(rd(2))
fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 100, 0, 0)); time.sleep(1)
os.write(fd, b"stty size\n"); print(rd(2))
os.write(fd, b"exit 4\n"); rd(2)
print("status", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
PYEOF
)
like "$out" "isatty True True" "terminal: the agent's stdio is the user's terminal"
like "$out" "^24 80" "terminal: its size"
like "$out" "after-interrupt 130" "terminal: ^C interrupts the foreground job inside"
like "$out" "50 100" "terminal: a resize reaches the agent"
like "$out" "status 4" "terminal: the exit status"

done_testing
