#!/usr/bin/env bash
# Regressions for what the hostile reviews of the filtered network got through
# (issue 11), one section per class (TAP). Origins are servers.py, as in proxy.sh;
# names resolve through hosts_file.
. "$SRC_ROOT/tests/lib.sh"
HERE="$SRC_ROOT/tests/proxy"

for t in curl python3 openssl; do
    command -v "$t" >/dev/null || skip_all "$t is not installed"
done
[ -x "$ASB_PROXY" ] || skip_all "no proxy binary at $ASB_PROXY"
cd "$TEST_TMP"
make_test_pki a.test priv.test || skip_all "openssl could not make the test certificates"

ASB_ORIGIN_LOG=$TEST_TMP/origin.log python3 "$HERE/servers.py" ports srv.pem srv.key &
SERVERS=$!
at_exit "kill $SERVERS 2>/dev/null"
for _ in $(seq 100); do [ -s ports ] && break; sleep 0.1; done
read -r HP SP <ports || { echo "Bail out! the origin servers did not start"; exit 1; }
echo "127.0.0.1 a.test paths.test priv.test" >hosts
P="ports = [ $HP, $SP ];"
cat >asb.cfg <<CFG
network: {
  allowed_domains = (
    { domain = "a.test"; $P allow_private = true; },
    { domain = "paths.test"; path = "/x"; methods = [ "GET" ]; $P allow_private = true; },
    { domain = "priv.test"; $P },
    { domain = "priv.test"; path = "/private"; $P allow_private = true; }
  );
  hosts_file = "hosts";
  upstream_ca_file = "upca.pem";
};
CFG
mkfifo ready
"$ASB_PROXY" --config asb.cfg --listen 127.0.0.1:0 --ca-out ca.pem --log proxy.log \
    --ready-fd 3 3>ready 2>proxy.err &
PROXY=$!
at_exit "kill $PROXY 2>/dev/null"
read -r -t 10 -n 1 _ <ready || { echo "Bail out! the proxy did not start"; exit 1; }
PP=$(sed -n 's/.*proxy: listening on 127.0.0.1:\([0-9]*\)$/\1/p' proxy.log)
CLIENT() { python3 "$HERE/client.py" "$PP" "$@"; }
# raw PATH [HEADERS]: GET http://paths.test:$HP PATH, Connection: close; prints "STATUS closed REASON"
raw() { CLIENT raw "GET http://paths.test:$HP$1 HTTP/1.1\\r\\nHost: paths.test:$HP\\r\\nConnection: close\\r\\n${2:-}\\r\\n"; }
logged() { grep -qF -- "$1" proxy.log; }
seen() { grep -qF -- " $1" origin.log; } # the origin received this request line

# --- path rules against how servers resolve paths ---
# paths.test allows GET under /x only; the origin serves /hello, which is not under it.
[[ "$(raw /x/hello)" == "200 "* ]] && [[ "$(raw /hello)" == "403 "* ]]
ok $? "the path rule: /x/hello served, /hello refused"
for p in '/x/..;/hello' '/x/.;/hello' '/x/..;a=b/hello' '/x/%2e%2e;/hello' '/x/..%3B/hello' \
    '/x/..\\hello' '/x\\..\\hello' '/x/..%5chello' '/x/%5C..%5Chello' '/x/%252e%252e/hello' \
    '/x/%25%32%65%25%32%65/hello' '/x/%2e%2e/hello' '/x/%2E./hello' '/x%2F..%2Fhello' '/x/.../hello' \
    '/x/..%20/hello' '/x/..%00/hello' '/x/%c0%ae%c0%ae/hello' '/x/%ef%bc%8e%ef%bc%8e/hello' \
    '/x/..%ef%bc%8fhello'; do
    out=$(raw "$p")
    [[ "$out" == "400 closed ambiguous path" ]]
    ok $? "$p: 400 ambiguous path ($out)"
done
logged "blocked: GET paths.test:$HP/x/..;/hello (ambiguous path)" &&
    logged "blocked: GET paths.test:$HP/x/..\\x5chello (ambiguous path)"
ok $? "proxy.log: blocked ... (ambiguous path), the backslash escaped"
[[ "$(raw '/x;a=b/../hello')" == "400 "* ]] && [[ "$(raw '/x;a=b')" == "403 "* ]] &&
    [[ "$(raw '/x%3Bjsessionid=1/hello')" == "403 "* ]]
ok $? "';' parameters: a segment \"x;a=b\" is not /x to most servers: refused"
[[ "$(raw '/x/hello;jsessionid=1')" == "200 "* ]]
ok $? "';' parameters inside the rule's prefix are served"
[[ "$(raw '/x%2Fhello')" == "403 "* ]] && [[ "$(raw '/x/a%2Fb')" == "200 "* ]] && seen "GET /x/a%2Fb HTTP/1.1"
ok $? "%2F: /x%2Fhello is not under /x for Node or Apache (403); /x/a%2Fb is, forwarded as sent"
[[ "$(raw '//x//hello')" == "200 "* ]] && seen "GET /x/hello HTTP/1.1" && ! grep -q " //x" origin.log
ok $? "runs of '/' are forwarded merged: //x//hello reaches the origin as /x/hello"
[[ "$(raw '/x/100%25')" == "200 "* ]] && [[ "$(raw '/x/%E2%82%AC')" == "200 "* ]]
ok $? "a plain %25 and UTF-8 escapes are served"

# --- requests inside requests: bodies on methods that have none ---
# servers.py, like many origins, ignores a GET body and answers OPTIONS without
# reading one: what it left unread would be its next request, never checked.
smuggle() { # METHOD PATH EXTRA-HEADERS: the body is a request for /smuggled-METHOD
    local body="GET /smuggled-$1 HTTP/1.1\\r\\nHost: a.test:$HP\\r\\n\\r\\n"
    local n
    n=$(printf '%b' "$body" | wc -c)
    CLIENT raw "$1 http://a.test:$HP$2 HTTP/1.1\\r\\nHost: a.test:$HP\\r\\nConnection: close\\r\\n${3:-}Content-Length: $n\\r\\n\\r\\n$body"
}
for m in GET HEAD TRACE; do
    out=$(smuggle $m /hello)
    [[ "$out" == "400 closed body on a $m request" ]]
    ok $? "$m with a body: 400 ($out)"
done
out=$(CLIENT raw "GET http://a.test:$HP/hello HTTP/1.1\\r\\nHost: a.test:$HP\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n0\\r\\n\\r\\n")
[[ "$out" == "400 closed body on a GET request" ]]
ok $? "GET with Transfer-Encoding, even an empty body: 400 ($out)"
[[ "$(CLIENT raw "GET http://a.test:$HP/hello HTTP/1.1\\r\\nHost: a.test:$HP\\r\\nConnection: close\\r\\nContent-Length: 0\\r\\n\\r\\n")" == "200 "* ]]
ok $? "GET with Content-Length: 0 is served"
grep -qF "blocked: GET a.test:$HP/hello (body on a GET request)" proxy.log
ok $? "proxy.log: blocked ... (body on a GET request)"
out=$(smuggle OPTIONS /opts)
[[ "$out" == "204 "* ]]
ok $? "OPTIONS with a body reaches the origin ($out)"
out=$(smuggle DELETE /x)
[[ "$out" == "200 "* ]]
ok $? "DELETE with a body reaches the origin ($out)"
sleep 0.5
! grep -q smuggled origin.log
ok $? "the origin never read a request out of a body ($(grep -c smuggled origin.log) seen)"
out=$(CLIENT seq "OPTIONS http://a.test:$HP/opts-seq" "GET http://a.test:$HP/conn-seq" "GET http://a.test:$HP/conn-seq")
o=$(awk '/ OPTIONS \/opts-seq / { print $1 }' origin.log)
c=$(awk '/ GET \/conn-seq / { print $1 }' origin.log | sort -u)
[ "$out" = "204 200 200" ] && [ -n "$o" ] && [ "$(echo "$c" | wc -l)" = 1 ] && [ "$o" != "$c" ]
ok $? "the server is not reused after a body it may have ignored, and is after others ($out; ports $o, $c)"

# --- connection reuse: what the dial depended on is checked again per request ---
# priv.test (127.0.0.1) may be dialled for /private (allow_private), not for the rest.
out=$(CLIENT seq "GET http://priv.test:$HP/private/1" "GET http://priv.test:$HP/conn-reuse")
[ "$out" = "404 403" ] && ! grep -q " GET /conn-reuse " origin.log
ok $? "a server kept alive for a path with allow_private does not serve one without ($out)"
grep -qF "blocked: GET priv.test:$HP/conn-reuse (private address)" proxy.log
ok $? "proxy.log: blocked ... (private address)"
out=$(CLIENT seq tls priv.test "$SP" ca.pem "GET /private/2" "GET /conn-reuse-tls")
[ "$out" = "404 403" ] && ! grep -q " GET /conn-reuse-tls " origin.log
ok $? "... inside an intercepted tunnel too ($out)"
out=$(CLIENT seq "GET http://priv.test:$HP/private/r1" "GET http://priv.test:$HP/private/r2")
r=$(awk '/ GET \/private\/r[12] / { print $1 }' origin.log | sort -u | wc -l)
[ "$out" = "404 404" ] && [ "$r" = 1 ]
ok $? "requests that could have dialled it still share one server ($out)"

# --- a request target over the proxy's old 8 KiB formatting buffer ---
# The upstream request is built whole or not at all; its request line was once
# dropped, and the origin took the first header for it.
C() { curl -sS --max-time 20 -x "http://127.0.0.1:$PP" --cacert ca.pem "$@"; }
for n in 8150 8200 8300 16500 30000; do
    q=$(head -c "$n" /dev/zero | tr '\0' a)
    [ "$(C "http://a.test:$HP/line?$q")" = "GET /line?$q HTTP/1.1" ]
    ok $? "a target with a $n-byte query reaches the origin whole"
done
q=$(head -c 8300 /dev/zero | tr '\0' a)
[ "$(C "https://a.test:$SP/line?$q")" = "GET /line?$q HTTP/1.1" ]
ok $? "... inside an intercepted tunnel too"
hdr=$(C -D - "http://a.test:$HP/longreason")
[[ "$hdr" == "HTTP/1.1 200 xxxxxxxx"* ]] && [ "$(head -1 <<<"$hdr" | wc -c)" -gt 9000 ] && [[ "$hdr" == *ok ]]
ok $? "a response whose status line is over 8 KiB is passed on whole"
q=$(head -c 33000 /dev/zero | tr '\0' a)
[ "$(C -o /dev/null -w '%{http_code}' "http://a.test:$HP/line?$q")" = 431 ]
ok $? "a head over 32 KiB: 431"

# --- log and output injection ---
# No byte a client sends may start a line in proxy.log (or a terminal), and a
# crafted path must not turn into config text through `agentsandbox allowlist`.
for req in 'GET http://a.test:'$HP'/x\x1b[2J\x07 HTTP/1.1' 'GET http://a.test:'$HP'/x\ny HTTP/1.1' \
    'GET http://a.test:'$HP'/x\ry HTTP/1.1' 'G\x01ET http://a.test:'$HP'/ HTTP/1.1' \
    'GET http://a.\x0atest:'$HP'/ HTTP/1.1' 'GET http://a.test:'$HP'/\x80\xff HTTP/1.1'; do
    CLIENT raw "$req\\r\\nHost: a.test:$HP\\r\\nConnection: close\\r\\n\\r\\n" >/dev/null
done
craft='/x";allow_private=true;},{domain="evil.test";methods=["GET"];path="/'
[[ "$(raw "$craft")" == "403 "* ]] &&
    CLIENT raw "POST http://a.test:$HP$craft HTTP/1.1\\r\\nHost: a.test:$HP\\r\\nConnection: close\\r\\nContent-Length: 0\\r\\n\\r\\n" | grep -q "^200 "
ok $? "a path that would close its string is served and logged as any other"
bad=$(LC_ALL=C grep -cvE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z (allowed|blocked|proxy): [ -~]*$' proxy.log)
[ "$bad" = 0 ]
ok $? "every line of proxy.log is one timestamped line of printable ASCII ($bad others)"
grep -qF '/x\x5c..\x5chello (ambiguous path)' proxy.log
ok $? "a backslash from a client is escaped in proxy.log"
if [ -x "${ASB:-}" ]; then
    block=$("$ASB" allowlist "$TEST_TMP" 2>&1)
    [[ "$block" != *evil.test* ]] && [[ "$block" != *allow_private* ]] &&
        [[ "$block" == *"request lines skipped"* ]] && [[ "$block" == *'domain = "a.test"'* ]]
    ok $? "agentsandbox allowlist skips the crafted lines, never echoes them"
else
    skip "agentsandbox allowlist: no launcher binary"
fi

# --- the session CA: name constraints, a bounded validity ---
nc=$(openssl x509 -in ca.pem -noout -ext nameConstraints 2>/dev/null)
[[ "$nc" == *critical* ]] && [[ "$nc" == *"Permitted:"*"DNS:a.test"*"DNS:paths.test"*"DNS:priv.test"* ]] &&
    [[ "$nc" == *"Excluded:"*"IP:0.0.0.0/0.0.0.0"* ]]
ok $? "the session CA permits only the allowed domains, and no IP address (critical nameConstraints)"
nb=$(date -d "$(openssl x509 -in ca.pem -noout -startdate | cut -d= -f2)" +%s)
na=$(date -d "$(openssl x509 -in ca.pem -noout -enddate | cut -d= -f2)" +%s)
[ $((na - nb)) -le $((169 * 3600)) ] && [ "$nb" -le "$(date +%s)" ]
ok $? "the session CA is valid for a week and an hour of clock skew ($(((na - nb) / 3600)) h)"
leaf=$(echo | openssl s_client -proxy "127.0.0.1:$PP" -connect "a.test:$SP" -servername a.test 2>/dev/null |
    openssl x509 2>/dev/null)
[ -n "$leaf" ] && openssl verify -CAfile ca.pem -purpose sslserver <(echo "$leaf") >/dev/null 2>&1
ok $? "a leaf the proxy mints for an allowed name verifies under the constraints"

# --- the host itself as a destination ---
# In a network namespace of our own, the "host" has a public-looking IPv4 and IPv6
# address on an interface (a veth pair): a name resolving to either, to a form
# embedding the IPv4 one, or an entry naming it, must not reach the origin that
# listens there, unless allow_private says so.
cat >ns.sh <<'NS'
set -u
ip link set lo up &&
    ip link add v0 type veth peer name v1 &&
    ip link set v0 up && ip link set v1 up &&
    ip addr add 203.0.114.7/24 dev v0 &&
    ip -6 addr add 2a00:1450::7/64 dev v0 nodad || { echo "SETUP-FAILED"; exit 0; }
python3 "$HERE/servers.py" nsports srv.pem srv.key :: &
SRV=$!
for _ in $(seq 100); do [ -s nsports ] && break; sleep 0.1; done
read -r HP _ <nsports
cat >ns.hosts <<HOSTS
203.0.114.7 self.test ok.test
2a00:1450::7 self6.test
::ffff:203.0.114.7 mapped.test
::ffff:0:203.0.114.7 siit.test
::203.0.114.7 compat.test
64:ff9b::203.0.114.7 nat64.test
2002:cb00:7207::1 sixtofour.test
HOSTS
cat >ns.cfg <<CFG
network: {
  allowed_domains = (
    { domain = "*"; ports = [ $HP ]; },
    { domain = "ok.test"; ports = [ $HP ]; allow_private = true; },
    { domain = "203.0.114.7"; ports = [ $HP ]; },
    { domain = "[2a00:1450::7]"; ports = [ $HP ]; }
  );
  hosts_file = "ns.hosts";
};
CFG
"$ASB_PROXY" --config ns.cfg --listen 127.0.0.1:0 --log ns.log 2>ns.err &
PX=$!
for _ in $(seq 100); do grep -q "listening on" ns.log 2>/dev/null && break; sleep 0.05; done
PP=$(sed -n 's/.*proxy: listening on 127.0.0.1:\([0-9]*\)$/\1/p' ns.log)
direct=$(curl --noproxy "*" -s -o /dev/null -w '%{http_code}' "http://203.0.114.7:$HP/hello")
echo "direct $direct"
for h in ok.test self.test self6.test mapped.test siit.test compat.test nat64.test \
    sixtofour.test 203.0.114.7 "[2a00:1450::7]"; do
    echo "$h $(curl -s -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$PP" "http://$h:$HP/hello")"
done
kill $PX $SRV
wait $PX
NS
if command -v unshare >/dev/null && command -v ip >/dev/null &&
    unshare -rn true 2>/dev/null; then
    HERE=$HERE ASB_PROXY=$ASB_PROXY unshare -rn bash ns.sh >ns.out 2>ns.stderr
    if grep -q SETUP-FAILED ns.out; then
        skip "the host's own addresses: cannot make a veth pair in a namespace"
    else
        res() { awk -v h="$1" '$1 == h { print $2 }' ns.out; }
        [ "$(res direct)" = 200 ] && [ "$(res ok.test)" = 200 ]
        ok $? "the origin on the host's own address answers (direct, and with allow_private)"
        for h in self.test self6.test mapped.test siit.test compat.test nat64.test \
            sixtofour.test 203.0.114.7 "[2a00:1450::7]"; do
            [ "$(res "$h")" = 403 ]
            ok $? "a \"*\" rule or an entry: $h (the host's own address) is refused ($(res "$h"))"
        done
        grep -q "blocked: GET self.test:[0-9]*/hello (the host's own address)" ns.log
        ok $? "proxy.log names the reason: the host's own address"
    fi
else
    skip "the host's own addresses: no unprivileged network namespace here"
fi

done_testing
