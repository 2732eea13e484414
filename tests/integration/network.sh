#!/usr/bin/env bash
# The sandbox's network from inside: filtered (the proxy is all there is),
# open (slirp4netns, host loopback closed), off, host ports, published ports,
# the records, and what happens when the proxy dies or the launcher is killed.
# The "internet" is made here: origin servers on loopback reached through the
# proxy's hosts_file; as root also a host in a network namespace on a veth.
. "$SRC_ROOT/tests/lib.sh"
# record_pid FILE REGEX: the pid REGEX's group holds in FILE (network.json,
# written once the sandbox was released: it may come a moment after the
# agent's first file), waiting up to 5 s for it.
# reaped_run ARGS...: agentsandbox ARGS... under a subreaper, so that any
# process the launch started and did not reap before it returned (running,
# or ended unreaped) comes to it: "none RC" when none did, else "stray RC".
reaped_run() {
    python3 - "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" "$@" <<'PY'
import ctypes, os, subprocess, sys
if ctypes.CDLL(None).prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
    sys.exit("cannot become a subreaper")
rc = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL).returncode
try:
    os.waitpid(-1, os.WNOHANG)
    print("stray", rc)
except ChildProcessError:
    print("none", rc)
PY
}
record_pid() {
    local pid=
    for _ in $(seq 50); do
        pid=$(sed -n "s/$2/\1/p" "$1" 2>/dev/null | head -1)
        [ -n "$pid" ] && break
        sleep 0.1
    done
    echo "$pid"
}

command -v bwrap >/dev/null || skip_all "bwrap is not installed"
for t in curl python3 openssl; do command -v $t >/dev/null || skip_all "$t is not installed"; done
HERE="$SRC_ROOT/tests/proxy"
cd "$TEST_TMP" || exit 1

# --- origin servers with a test CA ---------------------------------------------
make_test_pki a.test b.test c.test || skip_all "openssl could not make the test certificates"
python3 "$HERE/servers.py" ports srv.pem srv.key &
at_exit "kill $! 2>/dev/null"
for _ in $(seq 100); do [ -s ports ] && break; sleep 0.1; done
read -r HP SP <ports || skip_all "origin servers did not start"
printf '127.0.0.1 a.test b.test c.test\n' >hosts
P="ports = [ $HP, $SP ]; allow_private = true;"
mkdir -p ws
cd ws || exit 1

# The probe (tests/hardening/probe.c) tries what the sandbox must not do.
PROBE_PKG=
[ -x "${ASB_PROBE:-}" ] && PROBE_PKG=", \"$ASB_PROBE\""
# A hostile agent in the namespace the launcher made: no way to take its
# loopback down, nor to reach the user namespace that owns it.
check_probe_ns() { # mode in-mode-function
    [ -n "$PROBE_PKG" ] || { skip "$1: the probe helper is not built"; return; }
    local out
    out=$("$2" 'ASAN_OPTIONS=detect_leaks=0 asb-probe netdev_down netns_owner tap_attach' 2>&1 |
        tr '\n' ' ')
    ok $([[ "$out" = "netdev_down EPERM netns_owner EPERM tap_attach "* ]]; echo $?) \
        "$1: the agent cannot reconfigure its network namespace or reach its owner ($out)"
    # The open mode's tap0, made persistent with the namespace: no second
    # reader of the sandbox's frames (no /dev/net/tun inside, nor the right).
    ok $([[ "$out" = *"tap_attach "[A-Z]* ]]; echo $?) "$1: the agent cannot attach to tap0 ($out)"
}
cat >"$TEST_TMP/filtered.cfg" <<CFG
sandbox: { name = "filtered"; command = "bash"; packages = [ "curl", "/usr/bin/python3"$PROBE_PKG ]; };
network: {
  allowed_domains = (
    { domain = "a.test"; $P },
    { domain = "b.test"; methods = [ "GET", "HEAD" ]; $P },
    { domain = "b.test"; path = "/echo"; methods = [ "POST" ]; $P }
  );
  hosts_file = "$TEST_TMP/hosts";
  upstream_ca_file = "$TEST_TMP/upca.pem";
};
CFG
in_filtered() { asb -c "$TEST_TMP/filtered.cfg" -- -c "$1"; }
code() { in_filtered "curl -sS -m 10 -o /dev/null -w '%{http_code}' $1"; }

# --- filtered ------------------------------------------------------------------
ok $([ "$(code http://a.test:$HP/hello)" = 200 ]; echo $?) "filtered: HTTP to an allowed domain"
ok $([ "$(code https://a.test:$SP/hello)" = 200 ]; echo $?) "filtered: HTTPS via the session CA"
ok $([ "$(code "-X POST -d x https://b.test:$SP/echo")" = 200 ]; echo $?) "filtered: a path rule allows POST /echo"
ok $([ "$(code "-X POST -d x https://b.test:$SP/hello")" = 403 ]; echo $?) "filtered: POST elsewhere is denied (method)"
ok $([ "$(code http://c.test:$HP/hello)" = 403 ]; echo $?) "filtered: a denied domain gets 403"
s=$(sessions | tail -1)
ok $(grep -q "blocked: GET c.test:$HP/hello (domain not allowed)" "$s/proxy.log"; echo $?) "filtered: proxy.log has the blocked: line"
check_fails "filtered: HTTPS to a denied domain is refused at CONNECT" -- in_filtered "curl -sS -m 10 https://c.test:$SP/hello"
ok $(grep -q "blocked: .*c.test" "$(sessions | tail -1)/proxy.log"; echo $?) "filtered: and logged"
ok $(grep -q "allowed: GET a.test:$HP/hello" "$(sessions | head -1)/proxy.log"; echo $?) "filtered: proxy.log has the allowed: line"
# The proxy is asked to end with the sandbox and waited for after the
# post-exit work: reaped before agentsandbox returns, never left to init.
out=$(reaped_run -c "$TEST_TMP/filtered.cfg" -- -c true)
ok $([ "$out" = "none 0" ]; echo $?) "filtered: every process of the launch is reaped before agentsandbox returns ($out)"
# An agent that leaves a writer running inside: the sandbox's pid 1 kills it
# only after bubblewrap has returned the agent's status. It is gone, and
# wrote its last, before agentsandbox returns (and so before the post-exit
# checks and the session's recorded end).
printf 'sandbox: { name = "off"; command = "bash"; };\nnetwork: { enabled = false; };\n' >"$TEST_TMP/off.cfg"
rm -f bg.txt
out=$(reaped_run -c "$TEST_TMP/off.cfg" -- -c '(while :; do echo x >>bg.txt; done) & sleep 0.2')
size=$(stat -c %s bg.txt 2>/dev/null || echo 0)
sleep 0.3
ok $([ "$out" = "none 0" ] && [ "$size" -gt 0 ] && [ "$(stat -c %s bg.txt)" = "$size" ]; echo $?) \
    "off: a writer the agent left is gone before agentsandbox returns ($out, $size bytes, none after)"
rm -f bg.txt
# The filtered sandbox starts in the network namespace the launcher made as
# it started bubblewrap (wired while bubblewrap sets up, not after its
# clone): bubblewrap makes no network namespace there; with the network off
# it makes its own.
in_filtered true >/dev/null 2>&1
s=$(sessions | tail -1)
asb -c "$TEST_TMP/off.cfg" -- -c true >/dev/null 2>&1
s_off=$(sessions | tail -1)
ok $(! grep -qx -- --unshare-net "$s/bwrap.args" && grep -qx -- --unshare-net "$s_off/bwrap.args" &&
    grep -q "the filtering proxy listens on the sandbox's 127.0.0.1:3128" "$s/launch.log"; echo $?) \
    "filtered: bubblewrap starts in the namespace the launcher made and wired; off: its own"
# Only a backend the core starts itself can start in the namespace the core
# makes (ASB_CAP_NETNS_INHERIT): one with a spawn of its own makes its own,
# whatever it declares (--check says which; the fixtures are never run).
# Nor a setuid bubblewrap, which would lose its privileges in a user
# namespace made for it: the preloaded shim (host_shim.c) shows the
# launcher this one with the setuid bit.
SHIM=${ASB_HOST_SHIM:-$BUILD_ROOT/tests/integration/host_shim.so}
check_ns() { "$ASB" --plugin-dir "$BUILD_ROOT/tests/fixtures" --plugin-dir "$ASB_PLUGIN_DIR" \
    "$@" -c "$TEST_TMP/filtered.cfg" --check 2>&1 | grep '^network namespace:'; }
if [ -e "$BUILD_ROOT/tests/fixtures/stub_netns_spawn.so" ]; then
    by_core=$(check_ns --backend stub_netns)
    by_itself=$(check_ns --backend stub_netns_spawn)
    ok $([[ "$(check_ns)" == *"made by agentsandbox"* && "$by_core" == *"made by agentsandbox"* &&
        "$by_itself" == *"the backend's own"* ]]; echo $?) \
        "--check: the namespace is made by the core for bwrap and a backend it starts ($by_core), not for one that starts itself ($by_itself)"
else
    skip "no stub_netns fixtures built"
fi
if [ "$SANDBOX_MAKER" != bwrap ]; then
    skip "a setuid bubblewrap (builder = init runs none)"
elif [ -e "$SHIM" ]; then
    bwrap_path=$(asb -c "$TEST_TMP/filtered.cfg" --show-config 2>/dev/null | sed -n 's/^bwrap.path = //p')
    setuid=$(LD_PRELOAD="$SHIM" ASB_TEST_SETUID_PATH="$bwrap_path" check_ns)
    ok $([ -n "$bwrap_path" ] && [[ "$setuid" == *"the backend's own"* ]]; echo $?) \
        "--check: a setuid bubblewrap ($bwrap_path) makes the namespace itself ($setuid)"
else
    skip "no shim to preload"
fi
# On a terminal the sandbox gets a pty of its own, and a session leader
# (a forked relay) sits above bubblewrap: the namespace is made by the
# relay's child, which execs bubblewrap. The way an agent is usually run.
out=$(python3 "$SRC_ROOT/tests/integration/pty-run.py" -- "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" \
    -c "$TEST_TMP/filtered.cfg" -- -c "tty -s && curl -s -o /dev/null -w '%{http_code}' http://a.test:$HP/hello" 2>&1 | tr -d '\r')
s=$(sessions | tail -1)
ok $([ "$out" = 200 ] && ! grep -qx -- --unshare-net "$s/bwrap.args" &&
    grep -q "terminal: filtered (a pty of its own)" "$s/launch.log"; echo $?) \
    "filtered on a terminal: the relay's child makes the namespace, the launcher wires it ($out)"
# A namespace that cannot be made (a policy forbids it; the shim says so):
# the launch fails with that reason, on a terminal too, and leaves no
# process behind (the proxy started early included).
if [ -e "$SHIM" ]; then
    err=$(LD_PRELOAD="$SHIM" ASB_TEST_NO_NETNS=1 asb -c "$TEST_TMP/filtered.cfg" -- -c 'touch ran' 2>&1)
    code=$?
    out=$(LD_PRELOAD="$SHIM" ASB_TEST_NO_NETNS=1 reaped_run -c "$TEST_TMP/filtered.cfg" -- -c true)
    tty_err=$(LD_PRELOAD="$SHIM" ASB_TEST_NO_NETNS=1 python3 "$SRC_ROOT/tests/integration/pty-run.py" --subreaper -- \
        "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/filtered.cfg" -- -c 'touch ran' 2>&1 | tr -d '\r')
    ok $([ $code -eq 125 ] && [ ! -e ran ] &&
        grep -q "cannot make the sandbox's network namespace: Operation not permitted" <<<"$err" &&
        grep -q "cannot make the sandbox's network namespace: Operation not permitted" <<<"$tty_err"; echo $?) \
        "a network namespace that cannot be made: the launch fails with the reason, also on a terminal ($out; $(tail -1 <<<"$err"))"
    ok $([ "$out" = "none 125" ] && ! grep -q STRAY <<<"$tty_err"; echo $?) \
        "...and leaves no process behind, on a terminal either ($out)"
    # The relay's child that failed closes its descriptors a moment before
    # it ends (here 300 ms, as on a loaded machine): the relay is not killed
    # meanwhile, which would leave that child to the launcher unreaped.
    slow_err=$(LD_PRELOAD="$SHIM" ASB_TEST_NO_NETNS=slow python3 "$SRC_ROOT/tests/integration/pty-run.py" --subreaper -- \
        "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/filtered.cfg" -- -c 'touch ran' 2>&1 | tr -d '\r')
    ok $(! grep -q STRAY <<<"$slow_err" && [ ! -e ran ] &&
        grep -q "cannot make the sandbox's network namespace: Operation not permitted" <<<"$slow_err"; echo $?) \
        "...nor when the child that failed is slow to end ($(tr '\n' ' ' <<<"$slow_err"))"
else
    skip "no shim to preload"
fi
check_probe_ns filtered in_filtered
check_fails "filtered: curl --noproxy '*' gets nowhere" -- in_filtered "curl -sS -m 5 --noproxy '*' http://a.test:$HP/hello"
check_fails "filtered: /dev/tcp to the origin's address fails" -- in_filtered "echo > /dev/tcp/127.0.0.1/$HP"
check_fails "filtered: a raw connection to a public address fails" -- in_filtered "timeout 5 bash -c 'echo > /dev/tcp/192.0.2.1/80'"
check_fails "filtered: UDP DNS fails" -- in_filtered "timeout 5 bash -c 'echo x > /dev/udp/192.0.2.1/53'"
check_fails "filtered: no resolver" -- in_filtered "grep -q nameserver /etc/resolv.conf"
out=$(in_filtered 'for p in 22 80 443 3128 8080; do (echo > /dev/tcp/127.0.0.1/$p) 2>/dev/null && echo $p; done')
ok $([ "$out" = 3128 ]; echo $?) "filtered: the proxy is the only listener reachable ($out)"
# The agent's own localhost servers just work, on any port (a test suite's
# listen(0)), while nothing outside is reachable (the checks above).
out=$(in_filtered "python3 -c '
import socket, threading
s = socket.socket(); s.bind((\"127.0.0.1\", 0)); s.listen(1)
port = s.getsockname()[1]
def serve():
    c, _ = s.accept(); c.sendall(b\"pong\"); c.close()
threading.Thread(target=serve).start()
c = socket.create_connection((\"127.0.0.1\", port)); print(port, c.recv(4).decode())
'" 2>&1)
ok $([[ "$out" =~ ^[0-9]+\ pong$ ]]; echo $?) "filtered: a listen(0) server inside and its client talk on loopback ($out)"
check "filtered: the CA bundle is trusted by the usual variables" -- in_filtered 'test -s "$SSL_CERT_FILE" && test "$NODE_EXTRA_CA_CERTS" = "$CURL_CA_BUNDLE" && test -n "$GIT_SSL_CAINFO$REQUESTS_CA_BUNDLE$NIX_SSL_CERT_FILE"'
check "filtered: proxy variables are set" -- in_filtered 'test -n "$HTTP_PROXY" && test "$https_proxy" = "$HTTPS_PROXY" && test -n "$ALL_PROXY" && test -n "$NO_PROXY"'
s=$(sessions | tail -1)
ok $(grep -q '"mode": "filtered"' "$s/network.json" && grep -q '"proxy"' "$s/network.json"; echo $?) "filtered: network.json records the mode and the proxy"
ok $([ -s "$s/ca-bundle.pem" ] && ! grep -q PRIVATE "$s"/*.pem; echo $?) "filtered: the CA is recorded, its key is not"
# The bundle: the system's roots as they are, then the session's CA.
if [ -s /etc/ssl/certs/ca-certificates.crt ]; then
    sys_len=$(stat -c %s /etc/ssl/certs/ca-certificates.crt)
    ok $(cmp -s -n "$sys_len" /etc/ssl/certs/ca-certificates.crt "$s/ca-bundle.pem" &&
        [ "$(tail -c +$((sys_len + 1)) "$s/ca-bundle.pem")" = "$(cat "$s/ca.pem")" ]; echo $?) \
        "filtered: the bundle is the system's roots, then the session's CA"
fi

# The proxy dies mid-session: requests fail fast, the session ends cleanly.
rm -f go
"$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/filtered.cfg" -- -c "
  curl -sS -m 10 -o /dev/null http://a.test:$HP/hello && echo first-ok > first.txt
  while [ ! -e go ]; do sleep 0.1; done
  start=\$(date +%s); curl -sS -m 20 -o /dev/null http://a.test:$HP/hello; echo \$? \$((\$(date +%s) - start)) > second.txt" 2>/dev/null &
pid=$!
for _ in $(seq 100); do [ -e first.txt ] && break; sleep 0.1; done
s=$(sessions | tail -1)
proxy_pid=$(record_pid "$s/network.json" '.*"pid": \([0-9]*\).*')
ok $([ -n "$proxy_pid" ] && kill -0 "$proxy_pid"; echo $?) "the proxy runs while the sandbox does (pid $proxy_pid)"
kill -KILL "$proxy_pid"
touch go
wait $pid
read -r rc secs <second.txt
ok $([ "$rc" != 0 ] && [ "$secs" -le 3 ]; echo $?) "with the proxy gone, requests fail fast (curl $rc after ${secs}s)"
ok $(grep -q "proxy exited during the session" "$s/launch.log" && grep -q "exit status 0" "$s/launch.log"; echo $?) "launch.log says so and the session ends cleanly"
rm -f first.txt second.txt go

# Killing agentsandbox leaves no proxy, engine or helper behind.
"$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/filtered.cfg" -- -c "echo up > up.txt; sleep 300" &
pid=$!
for _ in $(seq 100); do [ -e up.txt ] && break; sleep 0.1; done
s=$(sessions | tail -1)
proxy_pid=$(record_pid "$s/network.json" '.*"pid": \([0-9]*\).*')
kill -KILL $pid
wait $pid 2>/dev/null
gone=1
for _ in $(seq 50); do kill -0 "$proxy_pid" 2>/dev/null || { gone=0; break; }; sleep 0.1; done
ok $gone "SIGKILL of agentsandbox takes the proxy with it"
rm -f up.txt

# The proxy starts before the sandbox; when it cannot (here: its hosts_file is
# missing), the launch fails clearly, the agent never runs, nothing is left.
sed "s#hosts_file = \"$TEST_TMP/hosts\"#hosts_file = \"$TEST_TMP/no-such-hosts\"#" \
    "$TEST_TMP/filtered.cfg" >"$TEST_TMP/nohosts.cfg"
err=$("$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/nohosts.cfg" -- -c "touch ran.txt" 2>&1)
rc=$?
diag "$err"
ok $([ $rc -eq 125 ] && grep -q "the filtering proxy exited before it was ready" <<<"$err" &&
    grep -q "no-such-hosts" <<<"$err"; echo $?) "a proxy that cannot start: exit 125, and the reason ($rc)"
ok $([ ! -e ran.txt ]; echo $?) "a proxy that cannot start: the agent never ran"
left=0
none_left "agentsandbox-proxy --config $TEST_TMP/nohosts.cfg" && left=1
ok $([ $left = 1 ]; echo $?) "a proxy that cannot start: no proxy process is left"
# The helper that joins the sandbox's namespace was forked while it started
# (a copy of the launcher, the same command line): gone too.
left=0
none_left "nohosts.cfg -- -c touch ran.txt" && left=1
ok $([ $left = 1 ]; echo $?) "a proxy that cannot start: no namespace helper is left"
rm -f ran.txt

# A proxy closes its ready pipe before the kernel has made it a zombie: the
# launcher waits for its end before telling it (under load it used to say
# "not ready within 10 s"). Stand-ins beside a copy of the launcher, found
# as its helper, one process each as the proxy is: one exits 0.5 s after
# closing the pipe, one stays.
mkdir -p "$TEST_TMP/fakeproxy"
cp "$ASB" "$BUILD_ROOT/linux/agentsandbox-init" "$TEST_TMP/fakeproxy/"
fake_proxy() { # WHAT-IT-DOES-THEN
    {
        echo '#!/bin/bash'
        echo 'while [ $# -gt 0 ]; do [ "$1" = --ready-fd ] && fd=$2; shift; done'
        echo 'eval "exec $fd>&-"'
        echo "$1"
    } >"$TEST_TMP/fakeproxy/agentsandbox-proxy"
    chmod 755 "$TEST_TMP/fakeproxy/agentsandbox-proxy"
}
fake_proxy '/bin/sleep 0.5; exit 7'
err=$("$TEST_TMP/fakeproxy/agentsandbox" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/filtered.cfg" -- -c "touch ran.txt" 2>&1)
rc=$?
ok $([ $rc -eq 125 ] && grep -q "the filtering proxy exited before it was ready (status 7)" <<<"$err" &&
    [ ! -e ran.txt ]; echo $?) "a proxy that ends just after closing its ready pipe: its own exit is told ($rc: $err)"
fake_proxy "exec -a asb-fake-proxy-$$ /bin/sleep 30"
start=$(date +%s)
err=$("$TEST_TMP/fakeproxy/agentsandbox" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/filtered.cfg" -- -c "touch ran.txt" 2>&1)
rc=$?
secs=$(($(date +%s) - start))
left=0
none_left "asb-fake-proxy-$$" && left=1
ok $([ $rc -eq 125 ] && grep -q "the filtering proxy closed its ready pipe without being ready" <<<"$err" &&
    [ ! -e ran.txt ] && [ $left = 1 ] && [ $secs -le 10 ]; echo $?) \
    "a proxy that closes its ready pipe and stays: said so within ${secs}s, and it is not left running ($rc: $err)"

# A sandbox that fails as it starts, its backend's process killed before it
# said which pid its pid 1 has: that pid 1, orphaned mid-set-up (bubblewrap
# sets --die-with-parent in it only after its clone), is the launcher's
# child then, and must not outlive the launch. A stand-in bubblewrap (bound
# over the real one in a mount namespace of its own, so root only) makes a
# process that is a new pid namespace's first, closes the info pipe without
# a word and waits to be killed.
if [ "$SANDBOX_MAKER" != bwrap ]; then
    skip "a stand-in bubblewrap (builder = init runs none)"
elif [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
    cat >"$TEST_TMP/fake-bwrap" <<PY
#!/usr/bin/python3
import ctypes, os, sys, time
if "--version" in sys.argv:
    print("bubblewrap 0.8.0")
    sys.exit(0)
if ctypes.CDLL(None, use_errno=True).unshare(0x20000000) != 0:  # CLONE_NEWPID
    sys.exit(99)
if os.fork() == 0:
    os.closerange(3, 65536)
    os.execv("/bin/sleep", ["asb-fake-pid1-$$", "300"])
os.closerange(3, 65536)
time.sleep(300)
PY
    chmod 755 "$TEST_TMP/fake-bwrap"
    # Into a file: a process left behind would hold a pipe open.
    unshare -m --propagation private sh -c '
        mount --bind "$1" "$(command -v bwrap)" || exit 99
        shift
        "$@" -- -c "touch ran.txt" 2>&1; echo "code=$?"' \
        sh "$TEST_TMP/fake-bwrap" "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/filtered.cfg" \
        >"$TEST_TMP/fake-bwrap.out" </dev/null
    out=$(cat "$TEST_TMP/fake-bwrap.out")
    left=0
    none_left "asb-fake-pid1-$$" && left=1
    ok $(grep -q '^code=125$' <<<"$out" && [ $left = 1 ] && [ ! -e ran.txt ]; echo $?) \
        "a sandbox whose backend dies before naming its pid 1: that pid 1 is killed too ($(head -1 <<<"$out"))"
    pkill -KILL -f "asb-fake-pid1-$$" 2>/dev/null
else
    skip "a sandbox whose backend dies before naming its pid 1 (needs root for its stand-in)"
fi

# The proxy starts early, while the launch is still planned (launch.log has
# it before the plugins' plans), and a launch that fails after it (here: a
# published port in use) stops it, and leaves no process, no session and no
# message of the proxy's.
busy_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen(1); print("up", flush=True); time.sleep(60)' "$busy_port" >"$TEST_TMP/busy.out" &
busy=$!
for _ in $(seq 50); do grep -q up "$TEST_TMP/busy.out" && break; sleep 0.1; done
sed "s#^network: {#network: { published_ports = ( $busy_port );#" "$TEST_TMP/filtered.cfg" >"$TEST_TMP/busy.cfg"
asb -c "$TEST_TMP/filtered.cfg" -- -c true >/dev/null 2>&1
started=$(grep -n "started the filtering proxy" "$(sessions | tail -1)/launch.log" | cut -d: -f1 | head -1)
planned=$(grep -n "projectfiles: scanned" "$(sessions | tail -1)/launch.log" | cut -d: -f1 | head -1)
ok $([ -n "$started" ] && [ -n "$planned" ] && [ "$started" -lt "$planned" ]; echo $?) \
    "the proxy starts before the plugins plan (launch.log lines $started and $planned)"
fake_proxy "exec -a asb-fake-proxy-$$ /bin/sleep 30"
before=$(sessions | wc -l)
err=$("$TEST_TMP/fakeproxy/agentsandbox" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/busy.cfg" -- -c "touch ran.txt" 2>&1)
rc=$?
left=0
none_left "asb-fake-proxy-$$" && left=1
ok $([ $rc -eq 125 ] && grep -q "$busy_port" <<<"$err" &&
    [ $left = 1 ] && [ ! -e ran.txt ] && [ "$(sessions | wc -l)" = "$before" ]; echo $?) \
    "a launch that fails after the proxy started (a stand-in): it is stopped, no session is left ($rc: $err)"
err=$("$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/busy.cfg" -- -c "touch ran.txt" 2>&1)
rc=$?
left=0
none_left "agentsandbox-proxy --config $TEST_TMP/busy.cfg" && left=1
ok $([ $rc -eq 125 ] && grep -q "$busy_port" <<<"$err" && ! grep -q "agentsandbox-proxy" <<<"$err" &&
    [ $left = 1 ] && [ ! -e ran.txt ] && [ "$(sessions | wc -l)" = "$before" ]; echo $?) \
    "a launch that fails after the proxy started: it leaves quietly, no session is left ($rc: $err)"
kill $busy 2>/dev/null
wait $busy 2>/dev/null
rm -rf "$TEST_TMP/fakeproxy" ran.txt

# A held sandbox is released before the launcher's own bookkeeping: in
# launch.log the proxy listens (the wiring) before old sessions are pruned.
for _ in $(seq 30); do
    asb -c "$TEST_TMP/filtered.cfg" -- -c true >/dev/null 2>&1
    grep -q "pruned [0-9]* old session" "$(sessions | tail -1)/launch.log" && break
done
log=$(sessions | tail -1)/launch.log
wired=$(grep -n "the filtering proxy listens" "$log" | cut -d: -f1 | head -1)
pruned=$(grep -n "pruned [0-9]* old session" "$log" | cut -d: -f1 | head -1)
ok $([ -n "$wired" ] && [ -n "$pruned" ] && [ "$wired" -lt "$pruned" ]; echo $?) \
    "the sandbox is wired before old sessions are pruned (launch.log lines $wired and $pruned)"

# --- where the launcher may not make a user namespace -------------------------
# Where AppArmor lets only the programs it names make user namespaces
# (Ubuntu 24.04: kernel.apparmor_restrict_unprivileged_userns = 1), an
# unprivileged launch leaves the network namespace to bubblewrap (which
# builder = auto takes there) and wires it once bubblewrap made it (the
# helper joins it by pid). This kernel has
# no such switch: a preloaded shim (host_shim.c) shows the launcher one
# that is on. Unprivileged launches only (root is never restricted).
echo 1 >"$TEST_TMP/apparmor-on"
restricted() { # CONFIG ARGS...
    local cfg=$1
    shift
    LD_PRELOAD="$SHIM" ASB_TEST_APPARMOR_FILE="$TEST_TMP/apparmor-on" \
        "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$cfg" "$@"
}
if [ "$(id -u)" -eq 0 ]; then
    skip "where the launcher may not make a user namespace: unprivileged launches only"
elif [ ! -e "$SHIM" ]; then
    skip "where the launcher may not make a user namespace: no shim to preload"
elif [ "${AGENTSANDBOX_BWRAP_BUILDER:-auto}" = init ]; then
    # agentsandbox-init is not one of the programs AppArmor names.
    out=$(restricted "$TEST_TMP/filtered.cfg" -- -c true 2>&1)
    rc=$?
    ok $([ $rc -eq 125 ] && grep -q "apparmor_restrict_unprivileged_userns = 1" <<<"$out"; echo $?) \
        "builder = init where AppArmor restricts user namespaces: refused, saying why and what works ($rc: $out)"
else
    line=$(restricted "$TEST_TMP/filtered.cfg" --check 2>&1 | grep '^network namespace:')
    out=$(restricted "$TEST_TMP/filtered.cfg" -- -c "curl -s -o /dev/null -w '%{http_code}' http://a.test:$HP/hello" 2>&1)
    s=$(sessions | tail -1)
    ok $([ "$out" = 200 ] && [[ "$line" = *"the backend's own"* ]] &&
        grep -qx -- --unshare-net "$s/bwrap.args" &&
        grep -q "the filtering proxy listens on the sandbox's 127.0.0.1:3128" "$s/launch.log"; echo $?) \
        "filtered where the launcher may not make a user namespace: bubblewrap makes it, the launcher wires it ($out, $line)"
    # builder = auto (the default) takes bubblewrap there, and says why.
    if [ "${AGENTSANDBOX_BWRAP_BUILDER:-auto}" = auto ]; then
        ok $(grep -q "builder = auto: bubblewrap makes the sandbox (builder = init: AppArmor" "$s/launch.log"
            echo $?) "auto where AppArmor restricts user namespaces: bubblewrap makes the sandbox, launch.log says why"
    fi
    in_restricted() { restricted "$TEST_TMP/filtered.cfg" -- -c "$1"; }
    check_probe_ns "filtered, bubblewrap's namespace" in_restricted
    # An older kernel lets no process that shares another's memory (the
    # launcher's vfork child) make a user namespace: the spawn is forked
    # instead, and the namespace is still the launcher's.
    out=$(LD_PRELOAD="$SHIM" ASB_TEST_OLD_UNSHARE=1 asb -c "$TEST_TMP/filtered.cfg" -- \
        -c "curl -s -o /dev/null -w '%{http_code}' http://a.test:$HP/hello" 2>&1)
    s=$(sessions | tail -1)
    ok $([ "$out" = 200 ] && ! grep -qx -- --unshare-net "$s/bwrap.args"; echo $?) \
        "filtered on a kernel that refuses a user namespace to a vfork child: the spawn forks instead ($out)"
fi

# --- allowlist: derive, paste, and it allows exactly what was used -------------
cat >"$TEST_TMP/all.cfg" <<CFG
sandbox: { name = "learn"; command = "bash"; packages = [ "curl" ]; };
network: { allowed_domains = ( { domain = "*"; $P } ); hosts_file = "$TEST_TMP/hosts"; upstream_ca_file = "$TEST_TMP/upca.pem"; };
CFG
asb -c "$TEST_TMP/all.cfg" -- -c "curl -sS -o /dev/null https://a.test:$SP/hello; curl -sS -o /dev/null -I https://a.test:$SP/hello; curl -sS -o /dev/null -X POST -d x https://b.test:$SP/echo"
block=$("$ASB" allowlist)
ok $? "agentsandbox allowlist derives a block"
diag "$block"
# Test names resolve to loopback: the pasted rules need allow_private too.
pasted=$(sed "s/; }/; allow_private = true; }/" <<<"$block" | grep -v '^#')
cat >"$TEST_TMP/derived.cfg" <<CFG
sandbox: { name = "derived"; command = "bash"; packages = [ "curl" ]; };
network: { $pasted hosts_file = "$TEST_TMP/hosts"; upstream_ca_file = "$TEST_TMP/upca.pem"; };
CFG
out=$(asb -c "$TEST_TMP/derived.cfg" -- -c "
  for req in 'https://a.test:$SP/hello' '-I https://a.test:$SP/hello' '-X POST -d x https://b.test:$SP/echo' \
             '-X POST -d x https://a.test:$SP/hello' 'https://b.test:$SP/hello' 'https://c.test:$SP/hello'; do
    curl -sS -o /dev/null -w '%{http_code}/%{http_connect} ' \$req 2>/dev/null
  done")
ok $([ "$out" = "200/200 200/200 200/200 403/200 403/200 000/403 " ]; echo $?) "pasted, it allows what the session used and nothing else ($out)"

# The derived session's denials never widen the list; its own entries stay.
again=$("$ASB" allowlist 2>"$TEST_TMP/allowlist.err")
ok $(! grep -q "c.test" <<<"$again" && grep -q "blocked requests are not turned into rules" <<<"$again" &&
    grep -q "were allowed by the session's own entries, kept below" <<<"$again" &&
    [ "$(grep -c 'domain = "a.test"' <<<"$again")" = "$(grep -c 'domain = "a.test"' <<<"$pasted")" ] &&
    ! grep -q '"POST".*a.test\|a.test.*"POST"' <<<"$again"; echo $?) "allowlist: a later run's blocked requests never become rules"
ok $(grep -q "reading session .*-derived$" "$TEST_TMP/allowlist.err"; echo $?) "allowlist says which session it read"
by_name=$("$ASB" allowlist --session learn 2>/dev/null)
ok $([ "$by_name" = "$block" ]; echo $?) "allowlist --session NAME picks the newest session of that name"
err=$("$ASB" allowlist no-such-session 2>&1)
ok $([ $? -eq 125 ] && grep -q "no session no-such-session under" <<<"$err"; echo $?) "allowlist: an unknown session is a clear error"
ok $([ -f "$(sessions | tail -1)allowed_domains.cfg" ]; echo $?) "the session records the entries it ran with"
out=$(asb -c "$TEST_TMP/filtered.cfg" --check 2>/dev/null)
ok $(grep -q "^network: filtered (filtering proxy on the sandbox's 127.0.0.1:3128)" <<<"$out"; echo $?) "--check names the network mode"

# --- off -----------------------------------------------------------------------
out=$(asb -c "$TEST_TMP/filtered.cfg" --no-network -- -c 'cat /proc/net/dev | grep -c ":"; env | grep -ci _proxy')
ok $([ "$(head -1 <<<"$out")" = 1 ] && [ "$(tail -1 <<<"$out")" = 0 ]; echo $?) "off: loopback only, no proxy ($out)"

# --- test hosts ----------------------------------------------------------------
# A test host: in its own network namespace joined by a veth pair when root,
# else (or when that cannot be made) this machine's own non-loopback address.
# HOSTADDR is a non-loopback address of the host itself, for published ports.
TESTHOST=
HOSTADDR=
if [ "$(id -u)" = 0 ] && command -v ip >/dev/null; then
    ns=asbtest$$
    net=10.234.$(($$ % 250))
    if ip netns add $ns 2>"$TEST_TMP/netns.err"; then
        at_exit "ip netns del $ns"
        at_exit "ip link del asbv$$ 2>/dev/null"
        if ip link add asbv$$ type veth peer name asbp$$ &&
            ip link set asbp$$ netns $ns &&
            ip addr add $net.1/24 dev asbv$$ && ip link set asbv$$ up &&
            ip netns exec $ns ip addr add $net.2/24 dev asbp$$ &&
            ip netns exec $ns ip link set asbp$$ up && ip netns exec $ns ip link set lo up \
            2>>"$TEST_TMP/netns.err"; then
            TESTHOST=$net.2
            HOSTADDR=$net.1
            TESTPORT=8000
            ip netns exec $ns timeout 120 python3 -m http.server $TESTPORT --bind 0.0.0.0 >/dev/null 2>&1 &
            at_exit "kill $! 2>/dev/null"
        fi
    fi
    [ -n "$TESTHOST" ] || diag "no test network namespace: $(tr '\n' ' ' <"$TEST_TMP/netns.err")"
fi
if [ -z "$TESTHOST" ]; then
    TESTHOST=$(ip -4 -o addr show scope global 2>/dev/null | awk '{sub(/\/.*/, "", $4); print $4; exit}')
    HOSTADDR=$TESTHOST
    TESTPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("",0)); print(s.getsockname()[1])')
    [ -z "$TESTHOST" ] || { python3 -m http.server "$TESTPORT" --bind "$TESTHOST" >/dev/null 2>&1 & at_exit "kill $! 2>/dev/null"; }
fi
sleep 0.5

# --- open ----------------------------------------------------------------------
# The open mode needs its engine (slirp4netns and /dev/net/tun); where the
# product refuses it, --check and a launch say why, and the tests skip with
# that very message.
printf 'sandbox: { name = "open"; command = "bash"; };\n' >"$TEST_TMP/open-probe.cfg"
open_refusal=$(asb -c "$TEST_TMP/open-probe.cfg" --check 2>/dev/null | sed -n 's/^network: open: CANNOT RUN HERE: //p')
if [ -n "$open_refusal" ]; then
    err=$(asb -c "$TEST_TMP/open-probe.cfg" -- -c 'touch open-ran' 2>&1)
    code=$?
    ok $([ $code -eq 125 ] && [ ! -e open-ran ] && grep -qF "$open_refusal" <<<"$err" &&
        [ "$(grep -c 'needs' <<<"$err")" -ge 1 ]; echo $?) "open: a launch refuses up front, with --check's reason"
    skip "open mode: $open_refusal"
elif command -v slirp4netns >/dev/null; then
    LOOP=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    python3 -m http.server "$LOOP" --bind 127.0.0.1 >/dev/null 2>&1 &
    at_exit "kill $! 2>/dev/null"
    OTHER=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    python3 -m http.server "$OTHER" --bind 127.0.0.1 >/dev/null 2>&1 &
    at_exit "kill $! 2>/dev/null"
    sleep 0.5
    cat >"$TEST_TMP/open.cfg" <<CFG
sandbox: { name = "open"; command = "bash"; packages = [ "curl", "/usr/bin/python3"$PROBE_PKG ]; };
network: { host_ports = [ $LOOP ]; };
CFG
    in_open() { asb -c "$TEST_TMP/open.cfg" -- -c "$1"; }
    # The same where the launcher may not make a user namespace (above).
    if [ "$(id -u)" -ne 0 ] && [ -e "$SHIM" ]; then
        out=$(restricted "$TEST_TMP/open.cfg" -- -c "grep -c '^tap0	00000000	0202000A' /proc/net/route; curl -sS -m 10 -o /dev/null -w '%{http_code}' http://127.0.0.1:$LOOP/" 2>&1 | tr '\n' ' ')
        s=$(sessions | tail -1)
        ok $([ "$out" = "1 200" ] && grep -qx -- --unshare-net "$s/bwrap.args" &&
            grep -q "slirp4netns (pid [0-9]*):" "$s/launch.log"; echo $?) \
            "open where the launcher may not make a user namespace: slirp4netns and host_ports wired into bubblewrap's ($out)"
    else
        skip "open where the launcher may not make a user namespace: unprivileged launches only"
    fi
    if [ -n "$TESTHOST" ]; then
        ok $([ "$(in_open "curl -sS -m 10 -o /dev/null -w '%{http_code}' http://$TESTHOST:$TESTPORT/")" = 200 ]; echo $?) "open: the test host $TESTHOST is reachable"
    else
        skip "open: no test host address on this machine"
    fi
    check_probe_ns open in_open
    check_fails "open: host loopback services are not reachable through the gateway" -- in_open "curl -sS -m 5 http://10.0.2.2:$OTHER/"
    check_fails "open: an unlisted host port is not reachable on 127.0.0.1" -- in_open "curl -sS -m 5 http://127.0.0.1:$OTHER/"
    ok $([ "$(in_open "curl -sS -m 10 -o /dev/null -w '%{http_code}' http://127.0.0.1:$LOOP/")" = 200 ]; echo $?) "open: host_ports = [ P ] reaches exactly P"
    sed 's/host_ports = \[ [0-9]* \]/host_ports = "all"/' "$TEST_TMP/open.cfg" >"$TEST_TMP/open-all.cfg"
    ok $([ "$(asb -c "$TEST_TMP/open-all.cfg" -- -c "curl -sS -m 10 -o /dev/null -w '%{http_code}' http://10.0.2.2:$OTHER/")" = 200 ]; echo $?) "open: host_ports = \"all\" reaches the host's loopback at 10.0.2.2"
    err=$(asb -c "$TEST_TMP/open-all.cfg" --no-network -- -c true 2>&1)
    ok $([ $? -eq 125 ] && grep -q '"all" needs the open network mode' <<<"$err"; echo $?) "host_ports = \"all\" outside the open mode is refused"
    check "open: the resolver is the engine's" -- in_open 'grep -q "^nameserver 10.0.2.3" /etc/resolv.conf'
    s=$(sessions | tail -1)
    # Killing agentsandbox leaves no engine behind either.
    "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/open.cfg" -- -c "echo up > up.txt; sleep 300" &
    pid=$!
    for _ in $(seq 100); do [ -e up.txt ] && break; sleep 0.1; done
    live=$(sessions | tail -1)
    engine_pid=$(record_pid "$live/network.json" '.*"engine": { "name": "slirp4netns", "pid": \([0-9]*\).*')
    ok $([ -n "$engine_pid" ] && kill -0 "$engine_pid"; echo $?) "open: slirp4netns runs with the sandbox (pid $engine_pid)"
    # Started on the launcher's CPU (linux/slirp.c), it may use all of them
    # once ready; so may the launcher.
    cpus() { sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null; }
    ours=$(cpus $$) launcher_cpus=$(cpus "$pid") engine_cpus=$(cpus "$engine_pid")
    ok $([ -n "$ours" ] && [ "$launcher_cpus" = "$ours" ] && [ "$engine_cpus" = "$ours" ]; echo $?) \
        "open: the launcher and slirp4netns may run on every CPU the caller may ($launcher_cpus, $engine_cpus; the caller's $ours)"
    kill -KILL $pid
    wait $pid 2>/dev/null
    gone=1
    for _ in $(seq 50); do kill -0 "$engine_pid" 2>/dev/null || { gone=0; break; }; sleep 0.1; done
    ok $gone "SIGKILL of agentsandbox takes slirp4netns with it"
    rm -f up.txt
    # A normal exit waits for both: nothing of the session's network is left.
    host_tap=$(ip -o link show tap0 2>/dev/null)
    asb -c "$TEST_TMP/open.cfg" -- -c true
    last=$(sessions | tail -1)
    engine_pid=$(sed -n 's/.*"engine": { "name": "slirp4netns", "pid": \([0-9]*\).*/\1/p' "$last/network.json")
    # It joins the namespaces through descriptors it inherited, not through
    # a process that must stay in them.
    ok $([ -n "$engine_pid" ] && ! kill -0 "$engine_pid" 2>/dev/null &&
        grep -q -- '--userns-path=/proc/self/fd/[0-9]* --netns-type=path /proc/self/fd/[0-9]' "$last/network.json"; echo $?) \
        "open: when agentsandbox returns, slirp4netns is gone (and every other process: next)"
    out=$(reaped_run -c "$TEST_TMP/open.cfg" -- -c true)
    ok $([ "$out" = "none 0" ]; echo $?) "open: every process of the launch is reaped before agentsandbox returns ($out)"
    # tap0 is persistent (made by the helper): it must go with the
    # sandbox's namespace, never be handed to the host's.
    if [ -z "$host_tap" ]; then
        sleep 1
        ok $(! ip -o link show tap0 >/dev/null 2>&1; echo $?) "open: the sandbox's tap0 does not outlive its namespace (the host has none)"
    else
        skip "open: the host has a tap0 of its own"
    fi
    # An engine that fails to start: the launch refuses, and nothing of it
    # stays (checked in a pid namespace of its own: what is left shows). The
    # sandbox's pid 1, killed, may still be in its kernel exit (unmounting
    # its namespace): dying (PF_EXITING) or a zombie is not left.
    if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
        printf '#!/bin/sh\necho "fake engine: failing" >&2\nexit 3\n' >"$TEST_TMP/fake-slirp"
        chmod 755 "$TEST_TMP/fake-slirp"
        out=$(unshare -m -p -f --mount-proc --propagation private sh -c '
            mount --bind "$1" "$(command -v slirp4netns)" || exit 99
            shift
            "$@" -- -c "touch engine-failed-ran" 2>&1; echo "code=$?"
            for p in $(ps -e -o pid=,comm= | awk "\$2 != \"sh\" && \$2 != \"ps\" && \$2 != \"awk\" { print \$1 }"); do
                st=$(sed "s/.*) //" "/proc/$p/stat" 2>/dev/null) || continue
                set -- $st
                [ "$1" = Z ] || [ $(($7 & 4)) -ne 0 ] || echo "left: $(cat "/proc/$p/comm")"
            done
            true' sh "$TEST_TMP/fake-slirp" "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/open.cfg")
        failed=$(sessions | tail -1)
        ok $(grep -q '^code=125$' <<<"$out" && grep -q "engine exited before it was ready" <<<"$out" &&
            [ ! -e engine-failed-ran ]; echo $?) "open: an engine that fails to start fails the launch (125), the agent never runs"
        ok $(! grep -q '^left: ' <<<"$out"; echo $?) "open: a failed engine start leaves no process behind ($(grep '^left: ' <<<"$out" | tr '\n' ' '))"
        ok $(grep -q "fake engine: failing" "$failed/slirp4netns.log" && grep -q "launch failed" "$failed/launch.log"; echo $?) "open: the failed session records why (slirp4netns.log, launch.log)"
        # An engine that cannot be run at all (not executable): refused before
        # anything starts, the path named where the build pinned it.
        : >"$TEST_TMP/noexec-slirp"
        chmod 644 "$TEST_TMP/noexec-slirp"
        out=$(unshare -m --propagation private sh -c '
            mount --bind "$1" "$(command -v slirp4netns)" || exit 99
            shift
            "$@" -- -c "touch noexec-engine-ran" 2>&1; echo "code=$?"' \
            sh "$TEST_TMP/noexec-slirp" "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$TEST_TMP/open.cfg")
        if [ -n "${ASB_SLIRP4NETNS_PIN:-}" ]; then
            want="needs slirp4netns at $ASB_SLIRP4NETNS_PIN, the path this build was pinned to"
        else
            want="needs slirp4netns (apt-get install slirp4netns)"
        fi
        ok $(grep -q '^code=125$' <<<"$out" && grep -qF "$want" <<<"$out" && [ ! -e noexec-engine-ran ] &&
            [ "$(sessions | tail -1)" = "$failed" ]; echo $?) \
            "open: an engine that cannot be run is refused before anything starts, named as the build found it ($(head -1 <<<"$out"))"
    else
        skip "open: a failing engine (needs root for its stand-in)"
        skip "open: an engine that cannot be run (needs root for its stand-in)"
    fi
    ok $(grep -q '"mode": "open"' "$s/network.json" && grep -q slirp4netns "$s/network.json" &&
        grep -q '"addresses": \[.*"lo 127\.0\.0\.1".*"tap0 10\.0\.2\.100"' "$s/network.json"; echo $?) \
        "open: network.json records the engine and the addresses"
    # Nothing to make inside (no host or published port): no helper joins
    # the namespace; the addresses are read over a route socket made with
    # it, and the sandbox's network is the same.
    grep -v host_ports "$TEST_TMP/open.cfg" >"$TEST_TMP/open-plain.cfg"
    out=$(asb -c "$TEST_TMP/open-plain.cfg" -- -c "grep -c '^tap0	00000000	0202000A' /proc/net/route; grep -c '^nameserver 10.0.2.3' /etc/resolv.conf" 2>&1 | tr '\n' ' ')
    s=$(sessions | tail -1)
    ok $([ "$out" = "1 1 " ] &&
        grep -q '"addresses": \[.*"lo 127\.0\.0\.1".*"tap0 10\.0\.2\.100"' "$s/network.json" &&
        grep -q '"host_ports": \[\]' "$s/network.json"; echo $?) \
        "open without ports: the route, the resolver, and network.json's addresses read over the route socket ($out)"
    if [ -n "$TESTHOST" ]; then
        ok $([ "$(asb -c "$TEST_TMP/open-plain.cfg" -- -c "curl -sS -m 10 -o /dev/null -w '%{http_code}' http://$TESTHOST:$TESTPORT/")" = 200 ]; echo $?) "open without ports: the test host $TESTHOST is reachable"
    else
        skip "open without ports: no test host address on this machine"
    fi
    in_open_plain() { asb -c "$TEST_TMP/open-plain.cfg" -- -c "$1"; }
    check_fails "open without ports: host loopback services are not reachable through the gateway" -- in_open_plain "curl -sS -m 5 http://10.0.2.2:$OTHER/"
    check_probe_ns "open without ports" in_open_plain
    # Which slirp4netns runs is the build's pin (-Dslirp4netns, as the Nix
    # package sets it) or the first in the fixed system directories: never
    # one that the caller's PATH puts first.
    mkdir -p "$TEST_TMP/fakebin"
    printf '#!/bin/sh\ntouch "%s/fake-engine-ran"\nexit 1\n' "$TEST_TMP" >"$TEST_TMP/fakebin/slirp4netns"
    chmod 755 "$TEST_TMP/fakebin/slirp4netns"
    PATH="$TEST_TMP/fakebin:$PATH" in_open 'true'
    code=$?
    s=$(sessions | tail -1)
    engine=$(sed -n 's/.* info: slirp4netns (pid [0-9]*): \([^ ]*\) .*/\1/p' "$s/launch.log")
    if [ -n "${ASB_SLIRP4NETNS_PIN:-}" ]; then
        want=$ASB_SLIRP4NETNS_PIN
    else
        want=$(for d in /usr/bin /bin /usr/local/bin /usr/sbin /sbin; do
            [ -x "$d/slirp4netns" ] && echo "$d/slirp4netns" && break; done)
    fi
    ok $([ $code -eq 0 ] && [ "$engine" = "$want" ] && [ ! -e "$TEST_TMP/fake-engine-ran" ]; echo $?) \
        "open: the engine is ${ASB_SLIRP4NETNS_PIN:+the pinned }$want, not the one first on PATH (ran: $engine)"
else
    skip "slirp4netns is not installed: open mode not tested"
fi

# --- published ports -----------------------------------------------------------
# serve_published CFG WORD ADDR [CHECK]: the agent serves WORD on its
# 127.0.0.1:$PUB; $served is what a host client gets at ADDR:$PUB. CHECK (a
# function) runs while the sandbox still serves.
serve_published() {
    "$ASB" --plugin-dir "$ASB_PLUGIN_DIR" -c "$1" -- -c "echo $2 > index.html; timeout 60 python3 -m http.server $PUB --bind 127.0.0.1 >/dev/null 2>&1 & echo up > up.txt; wait" &
    local pid=$!
    for _ in $(seq 100); do [ -e up.txt ] && curl -s -o /dev/null "http://$3:$PUB/" && break; sleep 0.1; done
    served=$(curl -sS -m 5 "http://$3:$PUB/index.html")
    [ -z "${4:-}" ] || "$4"
    kill -TERM $pid
    wait $pid 2>/dev/null
    rm -f up.txt index.html
}
PUB=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$TEST_TMP/pub.cfg" <<CFG
sandbox: { name = "pub"; command = "bash"; packages = [ "/usr/bin/python3" ]; };
network: { allowed_domains = ( ); published_ports = ( $PUB ); };
CFG
port_in_use() {
    err=$(asb -c "$TEST_TMP/pub.cfg" -- -c true 2>&1)
    ok $([ $? -eq 125 ] && grep -q "cannot listen on 127.0.0.1:$PUB.*in use" <<<"$err"; echo $?) "published: a port in use is refused clearly"
}
serve_published "$TEST_TMP/pub.cfg" inside 127.0.0.1 port_in_use
ok $([ "$served" = inside ]; echo $?) "published: a host client reaches the server inside"
if [ -n "$HOSTADDR" ]; then
    cat >"$TEST_TMP/pub0.cfg" <<CFG
sandbox: { name = "pub0"; command = "bash"; packages = [ "/usr/bin/python3" ]; };
network: { allowed_domains = ( ); published_ports = ( { port = $PUB; bind = "0.0.0.0"; } ); };
CFG
    serve_published "$TEST_TMP/pub0.cfg" wide "$HOSTADDR"
    ok $([ "$served" = wide ]; echo $?) "published: bind 0.0.0.0 is reachable on a non-loopback host address ($HOSTADDR)"
else
    skip "published bind 0.0.0.0: this machine has no non-loopback address"
fi
done_testing
