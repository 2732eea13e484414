#!/usr/bin/env bash
# Integration tests of agentsandbox-proxy against local origin servers (TAP).
# Names resolve through hosts_file to 127.0.0.1; HTTPS origins use a test CA the
# proxy trusts through upstream_ca_file; clients trust the session CA.
. "$SRC_ROOT/tests/lib.sh"
HERE="$SRC_ROOT/tests/proxy"

for t in curl python3 openssl; do
    command -v "$t" >/dev/null || skip_all "$t is not installed"
done
[ -x "$ASB_PROXY" ] || skip_all "no proxy binary at $ASB_PROXY"

cd "$TEST_TMP"
# --- origin servers with a test CA ---
make_test_pki a.test b.test ws.test private.test || skip_all "openssl could not make the test certificates"
python3 "$HERE/servers.py" ports srv.pem srv.key &
SERVERS=$!
at_exit "kill $SERVERS 2>/dev/null"
for _ in $(seq 100); do [ -s ports ] && break; sleep 0.1; done
read -r HP SP <ports || { echo "Bail out! the origin servers did not start"; exit 1; }
DEAD=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

cat >hosts <<HOSTS
# names for the tests
127.0.0.1 a.test b.test ws.test nosan.test
127.0.0.1 private.test
HOSTS
P="ports = [ $HP, $SP, $DEAD ]; allow_private = true;"
cat >asb.cfg <<CFG
sandbox: { name = "proxy-test"; command = "true"; };
network: {
  allowed_domains = (
    { domain = "a.test"; $P },
    { domain = "b.test"; methods = [ "GET", "HEAD" ]; $P },
    { domain = "b.test"; path = "/upload"; methods = [ "POST" ]; $P },
    { domain = "ws.test"; $P },
    { domain = "nosan.test"; $P },
    { domain = "private.test"; ports = [ $HP ]; },
    { domain = "localhost"; $P }
  );
  hosts_file = "hosts";
  upstream_ca_file = "upca.pem";
  enabled = true;
  host_ports = [ 5432 ];
  unix_sockets = false;
};
plugins: { git: { protect = true; }; };
CFG

# --- command line ---
check "--help" -- "$ASB_PROXY" --help
out=$("$ASB_PROXY" --version)
ok $? "--version: $out"
check "--check accepts the config" -- "$ASB_PROXY" --config asb.cfg --check
printf 'network: {\n  allowed_domains = ( "a.test" );\n  colour = "blue";\n};\n' >bad.cfg
err=$("$ASB_PROXY" --config bad.cfg --check 2>&1)
[ $? -eq 2 ] && [[ "$err" == *"bad.cfg:3: unknown key \"colour\" in network"* ]]
ok $? "--check names file:line of an error ($err)"
printf 'network: { allowed_domains = ( { domain = "*"; methods = [ "GET" ]; } ); };\n' >star.cfg
err=$("$ASB_PROXY" --config star.cfg --check 2>&1)
[[ "$err" == *'star.cfg:1: "*" permits GET on every domain not listed'* ]]
ok $? "--check warns about \"*\""
printf 'network: { enabled = true; };\n' >open.cfg
check_fails "no allowed_domains: refuses to run" -- "$ASB_PROXY" --config open.cfg --listen 127.0.0.1:0

# --- start the proxy; --ready-fd says when it listens and the CA is written ---
mkfifo ready
"$ASB_PROXY" --config asb.cfg --listen 127.0.0.1:0 --ca-out ca.pem --log proxy.log \
    --header-timeout 2 --io-timeout 3 --ready-fd 3 3>ready 2>proxy.err &
PROXY=$!
at_exit "kill $PROXY 2>/dev/null"
read -r -t 10 -n 1 _ <ready
ok $? "--ready-fd signalled"
PP=$(sed -n 's/.*proxy: listening on 127.0.0.1:\([0-9]*\)$/\1/p' proxy.log)
[ -n "$PP" ]
ok $? "listening on port $PP"
[ "$(stat -c %a ca.pem)" = 644 ] && openssl x509 -in ca.pem -noout -text | grep -q "CA:TRUE"
ok $? "session CA written, mode 0644, a CA certificate"
openssl x509 -in ca.pem -noout -text | grep -q "prime256v1"
ok $? "session CA key is EC P-256"

X="http://127.0.0.1:$PP"
C() { curl -sS --max-time 20 -x "$X" --cacert ca.pem "$@"; }
code() { C -o /dev/null -w '%{http_code}' "$@" 2>/dev/null; }
logged() { grep -qE "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z $(printf '%s' "$1" | sed 's/[][().*+?^$|\\/]/\\&/g')\$" proxy.log; }
count_lines() { grep -cF -- "$1" proxy.log; }
CLIENT() { python3 "$HERE/client.py" "$PP" "$@"; }

# --- plain HTTP ---
[ "$(C "http://a.test:$HP/hello")" = hello ]
ok $? "HTTP GET through the proxy"
logged "allowed: GET a.test:$HP/hello"
ok $? "proxy.log: allowed: GET a.test:$HP/hello"
C "http://a.test:$HP/hello" >/dev/null
[ "$(count_lines "allowed: GET a.test:$HP/hello")" = 1 ]
ok $? "an allow is logged once per method, host and path"
C "http://a.test:$HP/hello2?token=SECRET" >/dev/null
logged "allowed: GET a.test:$HP/hello2" && ! grep -q SECRET proxy.log
ok $? "query strings are neither matched nor logged"

hdr=$(C -D - -o /dev/null "http://evil.test/")
[[ "$hdr" == "HTTP/1.1 403"* ]] && [[ "$hdr" == *"X-Proxy-Error: domain not allowed"* ]]
ok $? "unknown domain: 403 with X-Proxy-Error"
logged "blocked: GET evil.test/ (domain not allowed)"
ok $? "proxy.log: blocked: GET evil.test/ (domain not allowed)"
C "http://evil.test/" >/dev/null
[ "$(count_lines "blocked: GET evil.test/ (domain not allowed)")" = 2 ]
ok $? "every denial is logged"
[ "$(code -X POST -d x "http://b.test:$HP/x")" = 403 ] && logged "blocked: POST b.test:$HP/x (method not allowed)"
ok $? "method not allowed: 403 and logged"
[ "$(C -X POST -d abc "http://b.test:$HP/upload")" = "3 $(printf abc | sha256sum | cut -d' ' -f1)" ]
ok $? "a path rule allows POST /upload"
[ "$(C -H 'Connection: Content-Length, Host' -d abc "http://b.test:$HP/upload")" = "3 $(printf abc | sha256sum | cut -d' ' -f1)" ]
ok $? "Connection cannot strip Content-Length or Host"
[ "$(code "http://b.test:$HP/upload/")" = 403 ] && logged "blocked: GET b.test:$HP/upload/ (method not allowed)"
ok $? "the path rule replaces the domain policy for its path"
[ "$(code "http://a.test:1/")" = 403 ] && logged "blocked: GET a.test:1/ (port not allowed)"
ok $? "a port the entry does not list is refused"
[ "$(code "http://private.test:$HP/x")" = 403 ] && logged "blocked: GET private.test:$HP/x (private address)"
ok $? "a name resolving to loopback needs allow_private"
for lit in 127.0.0.1 127.1 2130706433 0x7f000001 0177.0.0.1 "[::1]" "[::ffff:127.0.0.1]"; do
    [ "$(code --path-as-is "http://$lit:$HP/")" = 403 ]
    ok $? "IP literal $lit is refused"
done
getent hosts localhost >/dev/null && [ "$(C "http://localhost:$HP/hello")" = hello ]
ok $? "a name outside hosts_file goes through the system resolver (localhost)"
t0=$(date +%s)
[ "$(code "http://a.test:$HP/hang")" = 504 ] && [ $(($(date +%s) - t0)) -lt 10 ]
ok $? "a server that does not answer: 504 after --io-timeout"
[ "$(code "http://a.test:$DEAD/")" = 502 ]
ok $? "server down: 502"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$X/")" = 403 ]
ok $? "a request aimed at the proxy itself: 403"
[ "$(C --http2 "http://a.test:$HP/headers" | grep -ci -e '^upgrade' -e 'http2-settings')" = 0 ]
ok $? "h2c upgrade headers are not forwarded"
[ "$(C -I -o /dev/null -w '%{http_code}' "http://a.test:$HP/hello")" = 200 ]
ok $? "HEAD works"
[ "$(C -0 "http://a.test:$HP/hello")" = hello ]
ok $? "an HTTP/1.0 client is served"

# --- keep-alive and pipelining: every request is checked ---
out=$(CLIENT seq "GET http://a.test:$HP/hello" "POST http://b.test:$HP/x" "GET http://b.test:$HP/x" "GET http://evil.test/" "GET http://a.test:$HP/hello")
[ "$out" = "200 403 200 403 200" ]
ok $? "keep-alive: a later request on one connection is denied, the rest served ($out)"
out=$(CLIENT pipeline "http://a.test:$HP/hello" "http://evil.test/" "http://b.test:$HP/hello")
[ "$out" = "200 403 200" ]
ok $? "pipelined requests are each checked ($out)"

# --- strict parsing on the client side ---
rawreq() { CLIENT raw "$1"; }
HOSTH="Host: a.test:$HP\\r\\n"
U="http://a.test:$HP/hello"
[[ "$(rawreq "POST $U HTTP/1.1\\r\\n${HOSTH}Content-Length: 3\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n0\\r\\n\\r\\n")" == "400 closed"* ]]
ok $? "Content-Length with Transfer-Encoding: 400 and close"
[[ "$(rawreq "GET $U HTTP/1.1\\r\\n${HOSTH}X: a\\r\\n b\\r\\n\\r\\n")" == "400 closed"* ]]
ok $? "obs-fold: 400 and close"
[[ "$(rawreq "GET $U HTTP/1.1\\n${HOSTH}\\r\\n")" == "400 closed"* ]]
ok $? "bare LF: 400 and close"
[[ "$(rawreq "GET $U HTTP/1.1\\r\\nHost: evil.test\\r\\n\\r\\n")" == "400 closed"* ]]
ok $? "absolute-URI host and Host disagree: 400"
[[ "$(rawreq "GET http://a.test@evil.test/ HTTP/1.1\\r\\nHost: evil.test\\r\\n\\r\\n")" == "400 closed"* ]]
ok $? "userinfo in the target: 400"
big=$(python3 -c 'print("X-Big: " + "a" * 40000 + "\\r\\n", end="")')
[[ "$(rawreq "GET $U HTTP/1.1\\r\\n${HOSTH}${big}\\r\\n")" == "431 closed"* ]]
ok $? "oversized head: 431"
[[ "$(rawreq "GET $U HTTP/1.1\\r\\n${HOSTH}Transfer-Encoding: gzip\\r\\n\\r\\n")" == "400 closed"* ]]
ok $? "Transfer-Encoding other than chunked: 400"
[[ "$(rawreq "GET http://b\xfccher.test/ HTTP/1.1\r\nHost: b\xfccher.test\r\n\r\n")" == "400 closed"* ]]
ok $? "a non-ASCII host: 400"
[[ "$(rawreq "GET http://a.test:$HP/../x HTTP/1.1\\r\\n${HOSTH}\\r\\n")" == "400 closed"* ]]
ok $? "dot segments in the path: 400"

# --- HTTPS: CONNECT, interception with the session CA ---
[ "$(C "https://a.test:$SP/hello")" = hello ]
ok $? "HTTPS GET through CONNECT, leaf minted by the session CA"
logged "allowed: GET a.test:$SP/hello"
ok $? "proxy.log: allowed: GET a.test:$SP/hello"
out=$(C -o /dev/null -o /dev/null -w '%{http_code} %{num_connects}\n' "https://b.test:$SP/hello" "https://b.test:$SP/upload" | tr '\n' ' ')
[ "$out" = "200 1 403 0 " ]
ok $? "inside one TLS tunnel a later request is denied ($out)"
logged "blocked: GET b.test:$SP/upload (method not allowed)"
ok $? "proxy.log: the denied request inside the tunnel"
out=$(CLIENT seq tls b.test "$SP" ca.pem "GET /hello" "POST /x" "GET /x" "POST /upload")
[ "$out" = "200 403 200 200" ]
ok $? "keep-alive inside TLS: each request checked ($out)"
C -o /dev/null "https://evil.test/" 2>/dev/null
[ $? -ne 0 ] && logged "blocked: CONNECT evil.test:443 (domain not allowed)"
ok $? "CONNECT to an unknown domain is refused and logged"
C -o /dev/null "https://[::1]/" 2>/dev/null
[ $? -ne 0 ] && logged "blocked: CONNECT [::1]:443 (domain not allowed)"
ok $? "CONNECT to an IP literal is refused"
C -o /dev/null "https://a.test:22/" 2>/dev/null
[ $? -ne 0 ] && logged "blocked: CONNECT a.test:22 (port not allowed)"
ok $? "CONNECT to a port no entry lists is refused"
[ "$(code "https://nosan.test:$SP/hello")" = 502 ] && grep -q "TLS to nosan.test failed" proxy.log
ok $? "upstream certificate not valid for the name: 502"
leaf=$(echo | openssl s_client -proxy "127.0.0.1:$PP" -connect "a.test:$SP" -servername a.test -CAfile ca.pem 2>/dev/null | openssl x509 -noout -ext subjectAltName 2>/dev/null)
[[ "$leaf" == *"DNS:a.test"* ]]
ok $? "leaf certificate carries the host in its SAN"
alpn=$(echo | openssl s_client -proxy "127.0.0.1:$PP" -connect "a.test:$SP" -alpn h2,http/1.1 -CAfile ca.pem 2>/dev/null | grep -i "ALPN protocol")
[[ "$alpn" == *"http/1.1"* ]]
ok $? "ALPN towards the client is http/1.1 ($alpn)"

# --- bodies: chunked upload, streaming, large download ---
head -c 5000000 /dev/urandom >up.bin
want="5000000 $(sha256sum <up.bin | cut -d' ' -f1)"
[ "$(C -H 'Transfer-Encoding: chunked' -T up.bin -X POST "http://b.test:$HP/upload")" = "$want" ]
ok $? "chunked upload over HTTP"
[ "$(C -H 'Transfer-Encoding: chunked' -T up.bin -X POST "https://b.test:$SP/upload")" = "$want" ]
ok $? "chunked upload over HTTPS"
[ "$(C --data-binary @up.bin "http://b.test:$HP/upload")" = "$want" ]
ok $? "Content-Length upload (Expect: 100-continue) over HTTP"
read -r first total < <(CLIENT sse "http://a.test:$HP/sse")
awk -v f="$first" -v t="$total" 'BEGIN { exit !(f < 0.8 && t >= 0.9) }'
ok $? "server-sent events stream through as they arrive (first $first s, all $total s)"

rss_peak() { awk '/VmHWM/ { print $2 }' "/proc/$PROXY/status"; }
# Sanitizers keep freed memory in quarantine: RSS means nothing there.
RSS_MAX=40000
grep -q __asan_init "$ASB_PROXY" && RSS_MAX=2000000
N=$((200 * 1024 * 1024))
before=$(rss_peak)
got=$(C -o /dev/null -w '%{size_download}' "http://a.test:$HP/big?n=$N")
after=$(rss_peak)
[ "$got" = "$N" ]
ok $? "200 MiB streamed over HTTP"
[ "$after" -lt "$RSS_MAX" ]
ok $? "proxy peak RSS stays bounded (${before} -> ${after} KiB)"
N=$((64 * 1024 * 1024))
got=$(C -o /dev/null -w '%{size_download}' "https://a.test:$SP/big?n=$N")
after=$(rss_peak)
[ "$got" = "$N" ] && [ "$after" -lt "$RSS_MAX" ]
ok $? "64 MiB streamed over intercepted HTTPS, peak RSS ${after} KiB"

# --- WebSocket ---
[ "$(CLIENT ws "http://ws.test:$HP/ws")" = "101 echo-ok" ]
ok $? "WebSocket upgrade to an all-methods domain"
[ "$(CLIENT ws tls ws.test "$SP" ca.pem /ws)" = "101 echo-ok" ]
ok $? "WebSocket inside an intercepted tunnel"
[ "$(CLIENT ws "http://b.test:$HP/ws")" = "403 websocket needs an entry allowing every method" ]
ok $? "WebSocket refused where methods are restricted, saying why"
grep -q "allowed: GET ws.test:$HP/ws (websocket)" proxy.log && grep -q "blocked: GET b.test:$HP/ws (websocket needs an entry allowing every method)" proxy.log
ok $? "proxy.log marks an allowed upgrade as one, and says why one was refused"

# --- other ways to listen: an inherited socket, a unix socket ---
python3 - "$ASB_PROXY" <<'PY' &
import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
os.set_inheritable(s.fileno(), True)
open("fdport.tmp", "w").write(str(s.getsockname()[1]))
os.rename("fdport.tmp", "fdport")
os.execv(sys.argv[1], [sys.argv[1], "--config", "asb.cfg", "--listen-fd", str(s.fileno()),
                       "--log", "fd.log"])
PY
FDPROXY=$!
at_exit "kill $FDPROXY 2>/dev/null"
for _ in $(seq 50); do [ -s fdport ] && break; sleep 0.1; done
[ "$(curl -sS --max-time 10 -x "http://127.0.0.1:$(cat fdport)" "http://a.test:$HP/hello")" = hello ]
ok $? "--listen-fd: serves on a socket handed over by the launcher"
kill "$FDPROXY" 2>/dev/null
"$ASB_PROXY" --config asb.cfg --listen "unix:$TEST_TMP/proxy.sock" --log unix.log &
UPROXY=$!
at_exit "kill $UPROXY 2>/dev/null"
for _ in $(seq 50); do [ -S proxy.sock ] && break; sleep 0.1; done
out=$(python3 - "$TEST_TMP/proxy.sock" "$HP" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"GET http://a.test:%s/hello HTTP/1.1\r\nHost: a.test:%s\r\nConnection: close\r\n\r\n" % (sys.argv[2].encode(), sys.argv[2].encode()))
data = b""
while True:
    d = s.recv(4096)
    if not d:
        break
    data += d
print(data.split(b"\r\n")[0].decode(), data.endswith(b"hello\n"))
PY
)
[ "$out" = "HTTP/1.1 200 OK True" ]
ok $? "--listen unix:PATH ($out)"
kill "$UPROXY" 2>/dev/null
wait "$UPROXY" 2>/dev/null
[ ! -e proxy.sock ]
ok $? "the unix socket is removed at exit"

# --- the system trust store (loaded on the first TLS upstream) ---
# Without upstream_ca_file, an origin is trusted only through the system
# store; SSL_CERT_FILE names that store, as it does for OpenSSL.
grep -v upstream_ca_file asb.cfg >sys.cfg
sys_proxy() { # BUNDLE -> HTTP code of an intercepted HTTPS request
    rm -f sysready
    mkfifo sysready
    SSL_CERT_FILE=$1 "$ASB_PROXY" --config sys.cfg --listen 127.0.0.1:0 --ca-out sysca.pem \
        --log sys.log --ready-fd 3 3>sysready 2>/dev/null &
    local pid=$!
    read -r -t 10 -n 1 _ <sysready
    local port
    port=$(sed -n 's/.*proxy: listening on 127.0.0.1:\([0-9]*\)$/\1/p' sys.log)
    curl -sS --max-time 20 -x "http://127.0.0.1:$port" --cacert sysca.pem -o /dev/null \
        -w '%{http_code}' "https://a.test:$SP/hello" 2>/dev/null
    kill "$pid"
    wait "$pid" 2>/dev/null
    rm -f sys.log
}
[ "$(sys_proxy "$TEST_TMP/upca.pem")" = 200 ]
ok $? "an origin signed by a CA in the system store (SSL_CERT_FILE) is trusted"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj /CN=unrelated-ca -keyout other.key -out other.pem 2>/dev/null
[ "$(sys_proxy "$TEST_TMP/other.pem")" = 502 ]
ok $? "and not trusted when the system store does not hold its CA (502)"

# --- timeouts ---
out=$(CLIENT raw "GET http://a.test:$HP/hello HTTP/1.1\\r\\n")
[[ "$out" == "408 closed"* ]]
ok $? "an incomplete request head times out with 408 ($out)"

CLIENT idle 10 >idle.out &
IDLE=$!
C -o /dev/null "http://a.test:$HP/big?n=$((512 * 1024 * 1024))" 2>/dev/null &
BIG=$!
for _ in $(seq 100); do grep -q connected idle.out && break; sleep 0.05; done
sleep 0.3 # the download under way too
kill "$PROXY"
wait "$PROXY"
ok $? "proxy stops on SIGTERM, with connections open"
wait "$IDLE" "$BIG" 2>/dev/null
[[ "$(tail -1 idle.out)" == closed* ]]
ok $? "open connections are closed at exit"
! grep -qi -e "sanitizer" -e "runtime error" proxy.err
ok $? "no sanitizer reports"

# --- the TLS contexts are made on first use, but a configured upstream_ca_file
# that does not load is still an error at start ---
printf 'not a certificate\n' >badca.pem
sed "s#upstream_ca_file = \"[^\"]*\"#upstream_ca_file = \"$PWD/badca.pem\"#" asb.cfg >badca.cfg
grep -q "badca.pem" badca.cfg
ok $? "a config with an upstream_ca_file that does not load"
err=$(timeout 10 "$ASB_PROXY" --config badca.cfg --listen 127.0.0.1:0 --ca-out badca-ca.pem 2>&1)
rc=$?
ok $([ $rc -ne 0 ] && grep -q "upstream_ca_file .*badca.pem: cannot load it" <<<"$err"; echo $?) \
    "an upstream_ca_file that does not load stops the start ($rc: $err)"

# --- --listen-fd-from: the listener arrives after the start (how the launcher
# starts the proxy early, before its session directory and the sandbox's
# namespace exist); it waits for it with its CA made, writes nothing until
# it came, and is ready only then ---
python3 - "$ASB_PROXY" "$HP" <<'PY' >late.out 2>late.err
import os, select, socket, subprocess, sys, time
proxy, hp = sys.argv[1], sys.argv[2]
def start(tag, secrets=False):
    a, b = socket.socketpair()
    r, w = os.pipe()
    sr, sw = os.pipe() if secrets else (-1, -1)
    p = subprocess.Popen([proxy, "--config", "asb.cfg", "--listen-fd-from", str(b.fileno()),
                          "--ca-out", tag + "-ca.pem", "--log", tag + ".log", "--ready-fd", str(w)]
                         + (["--secrets-fd", str(sr)] if secrets else []),
                         pass_fds=(b.fileno(), w) + ((sr,) if secrets else ()))
    b.close(); os.close(w)
    if secrets:
        os.close(sr)
    return p, a, r, sw
def waits_for_listener(p):  # blocked in recvmsg (47), after all of its start-up
    for _ in range(200):
        try:
            if open("/proc/%d/syscall" % p.pid).read().split()[0] == "47": return True
        except (OSError, IndexError): pass
        time.sleep(0.05)
    return False
p, a, r, _ = start("late")
print("waits for the listener:", waits_for_listener(p))
print("wrote before the listener:", os.path.exists("late-ca.pem") or os.path.exists("late.log"))
print("ready before the listener:", bool(select.select([r], [], [], 0.5)[0]))
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(8)
port = l.getsockname()[1]
socket.send_fds(a, [b"L"], [l.fileno()]); l.close()
print("ready after it:", bool(select.select([r], [], [], 10)[0]) and os.read(r, 1) == b"1")
c = socket.create_connection(("127.0.0.1", port), timeout=10)
c.sendall(b"GET http://a.test:%s/hello HTTP/1.1\r\nHost: a.test:%s\r\nConnection: close\r\n\r\n" % (hp.encode(), hp.encode()))
print("served:", c.recv(64).split(b"\r\n")[0].decode())
p.terminate(); print("stopped:", p.wait())
print("ca written then:", os.path.exists("late-ca.pem") and os.path.exists("late.log"))
# The launcher gives up before the sandbox exists: the channel closes, the
# proxy leaves, and nothing of it is left.
p, a, r, _ = start("gaveup")
a.close()
try: print("gave up, exit:", p.wait(timeout=10))
except subprocess.TimeoutExpired: p.kill(); print("gave up, still running")
print("gave up, left:", [f for f in ("gaveup-ca.pem", "gaveup.log") if os.path.exists(f)])
# ... or before it sent the secrets: closed unused, the proxy leaves quietly.
p, a, r, sw = start("nosecrets", secrets=True)
os.close(sw)
try: print("no secrets, exit:", p.wait(timeout=10))
except subprocess.TimeoutExpired: p.kill(); print("no secrets, still running")
print("no secrets, left:", [f for f in ("nosecrets-ca.pem", "nosecrets.log") if os.path.exists(f)])
# A "W" before the listener (the launcher's session directory exists): the
# CA and the log are written then, and ready still waits for the listener.
p, a, r, _ = start("early")
waits_for_listener(p)
a.send(b"W")
for _ in range(200):
    if os.path.exists("early-ca.pem") and os.path.exists("early.log"): break
    time.sleep(0.05)
print("early, written before the listener:", os.path.exists("early-ca.pem") and os.path.exists("early.log"))
print("early, ready before the listener:", bool(select.select([r], [], [], 0.5)[0]))
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(8)
socket.send_fds(a, [b"L"], [l.fileno()]); l.close()
print("early, ready after it:", bool(select.select([r], [], [], 10)[0]) and os.read(r, 1) == b"1")
p.terminate(); print("early, stopped:", p.wait())
PY
diag "$(cat late.out late.err)"
grep -q "^waits for the listener: True" late.out && grep -q "^wrote before the listener: False" late.out &&
    grep -q "^ready before the listener: False" late.out
ok $? "--listen-fd-from: waits for the listener with nothing written, ready is not signalled"
grep -q "^ca written then: True" late.out
ok $? "--listen-fd-from: the CA and the log are written once the listener came"
grep -q "^ready after it: True" late.out && grep -q "^served: HTTP/1.1 200" late.out && grep -q "^stopped: 0" late.out
ok $? "--listen-fd-from: ready once the listener arrived, and it serves on it"
grep -q "^gave up, exit: 0" late.out && grep -q "^gave up, left: \[\]" late.out
ok $? "--listen-fd-from: the channel closed without a listener, the proxy exits, nothing left"
grep -q "^no secrets, exit: 0" late.out && grep -q "^no secrets, left: \[\]" late.out &&
    ! grep -q "secrets-fd" late.err
ok $? "--secrets-fd closed unused: the proxy exits quietly, nothing left"
grep -q "^early, written before the listener: True" late.out &&
    grep -q "^early, ready before the listener: False" late.out &&
    grep -q "^early, ready after it: True" late.out && grep -q "^early, stopped: 0" late.out
ok $? "--listen-fd-from: a W before the listener writes the CA and the log then; ready waits for the listener"
done_testing
