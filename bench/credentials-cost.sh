#!/usr/bin/env bash
# What network.credentials (injection and the guard) cost the proxy, in
# instructions per request: deterministic, unlike requests/s on a shared machine.
#
#   bench/credentials-cost.sh [PROXY_BINARY]   (default: build/proxy/agentsandbox-proxy)
#
# Runs the proxy under valgrind's callgrind twice per case (N and 5N requests,
# kept alive, from one client) and takes the difference, so start-up and the
# TLS handshakes of the connection drop out: HTTPS GET and 1 KiB POST (the
# placeholder of a header binding replaced in every request), plain HTTP GET
# and 1 KiB POST; without credentials, then with four bindings and twenty
# guarded secrets. Needs valgrind, python3, openssl; everything stays on
# 127.0.0.1. BENCH_N (default 200) sets N.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROXY=${1:-$ROOT/build/proxy/agentsandbox-proxy}
MKSECRETS=${BENCH_MKSECRETS:-$(dirname "$PROXY")/../tests/proxy/mksecrets}
N=${BENCH_N:-200}
for t in valgrind python3 openssl; do
    command -v "$t" >/dev/null || { echo "bench: $t is required" >&2; exit 2; }
done
[ -x "$PROXY" ] && [ -x "$MKSECRETS" ] || { echo "bench: build first ($PROXY, $MKSECRETS)" >&2; exit 2; }

W=$(mktemp -d /tmp/asb-cost.XXXXXX)
PIDS=()
cleanup() {
    for p in "${PIDS[@]+"${PIDS[@]}"}"; do kill "$p" 2>/dev/null; done
    rm -rf "$W"
}
trap cleanup EXIT
cd "$W" || exit 1
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=cost-ca \
    -keyout ca.key -out ca.pem 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=bench.test \
    -keyout srv.key -out srv.csr 2>/dev/null
printf 'subjectAltName=DNS:bench.test\n' >srv.ext
openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile srv.ext \
    -out srv.pem 2>/dev/null
python3 "$ROOT/tests/proxy/servers.py" ports srv.pem srv.key 2>/dev/null &
PIDS+=($!)
for _ in $(seq 100); do [ -s ports ] && break; sleep 0.1; done
read -r HP SP <ports
echo "127.0.0.1 bench.test" >hosts
cat >plain.cfg <<CFG
network: {
  allowed_domains = ( { domain = "bench.test"; ports = [ $HP, $SP ]; allow_private = true; } );
  hosts_file = "hosts";
  upstream_ca_file = "ca.pem";
};
CFG
KEY=sk-ant-api03-BENCHrealKEY0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU
PH=sk-ant-api03-BENCHplaceholderAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
sed 's/^};$//' plain.cfg >creds.cfg
cat >>creds.cfg <<CFG
  credentials = (
    { name = "bench"; value = "x"; domains = [ "bench.test" ]; header = "x-api-key"; env = "K"; },
    { name = "b"; value = "x"; domains = [ "b.bench.test" ]; bearer = true; env = "B"; },
    { name = "c"; value = "x"; domains = [ "c.bench.test" ]; basic = "u"; add = true; },
    { name = "d"; value = "x"; domains = [ "d.bench.test" ]; query = "key"; env = "D"; }
  );
};
CFG
recs=("bench=$KEY=$PH")
for n in b c d; do recs+=("$n=REAL${n}0123456789abcdefghijklmnopqrstuvwxyz=PH${n}AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"); done
for i in $(seq 20); do recs+=("G=guard-secret-$i-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"); done
"$MKSECRETS" creds.cfg "${recs[@]}" >secrets

cat >client.py <<'PY'
import http.client, ssl, sys
port, scheme, count, body, header = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
sp, hp, ca = sys.argv[6], sys.argv[7], sys.argv[8]
headers = dict([header.split(": ", 1)]) if header else {}
# A body like an agent's: JSON text.
text = b'{"model":"claude-sonnet","messages":[{"role":"user","content":"Refactor parse_config() in src/config.c and add a test for the empty file case; keep the error messages."}]}'
payload = (text * (body // len(text) + 1))[:body]
if scheme == "https":
    c = http.client.HTTPSConnection("127.0.0.1", port, context=ssl.create_default_context(cafile=ca))
    c.set_tunnel("bench.test", int(sp))
    target = "/hello"
else:
    c = http.client.HTTPConnection("127.0.0.1", port)
    target = "http://bench.test:%s/hello" % hp
for _ in range(count):
    if body:
        c.request("POST", target.replace("hello", "echo"), body=payload, headers=headers)
    else:
        c.request("GET", target, headers=headers)
    r = c.getresponse()
    r.read()
    assert r.status == 200, r.status
PY

# ir CONFIG [SECRETS] SCHEME BODY HEADER COUNT -> instructions the proxy ran
ir() {
    local cfg=$1 sec=$2 scheme=$3 body=$4 header=$5 count=$6 port out
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    rm -f ca-session.pem cg.out
    if [ -n "$sec" ]; then
        valgrind --tool=callgrind --callgrind-out-file=cg.out "$PROXY" --config "$cfg" \
            --listen "127.0.0.1:$port" --ca-out ca-session.pem --log /dev/null --secrets-fd 3 3<"$sec" 2>/dev/null &
    else
        valgrind --tool=callgrind --callgrind-out-file=cg.out "$PROXY" --config "$cfg" \
            --listen "127.0.0.1:$port" --ca-out ca-session.pem --log /dev/null 2>/dev/null &
    fi
    local pid=$!
    for _ in $(seq 300); do [ -s ca-session.pem ] && break; sleep 0.1; done
    cat ca-session.pem ca.pem >client-ca.pem
    python3 client.py "$port" "$scheme" "$count" "$body" "$header" "$SP" "$HP" client-ca.pem
    kill -TERM "$pid"
    wait "$pid" 2>/dev/null
    [ -n "${BENCH_KEEP_CG:-}" ] && cp cg.out "$BENCH_KEEP_CG.$count.$scheme.$body.${sec:+creds}"
    awk '/^summary:/ { print $2 }' cg.out
}
per_request() { # args of ir but COUNT: instructions per request
    local a b
    a=$(ir "$@" "$N")
    b=$(ir "$@" $((5 * N)))
    awk -v a="$a" -v b="$b" -v n=$((4 * N)) 'BEGIN { printf "%.0f", (b - a) / n }'
}
echo "# agentsandbox-proxy: instructions per request (callgrind, $((4 * N)) requests kept alive)"
printf '%-26s %14s %14s %10s\n' "" "no credentials" "credentials" "ratio"
IFS=';' read -r -a cases <<<"${BENCH_CASES:-HTTPS GET|https|0;HTTPS POST 1 KiB|https|1024;HTTP GET|http|0;HTTP POST 1 KiB|http|1024}"
for c in "${cases[@]}"; do
    IFS='|' read -r name scheme body <<<"$c"
    # The same requests both times: with credentials the header's placeholder is
    # replaced (HTTPS); plain HTTP carries no placeholder (it would be refused).
    hdr="x-api-key: $PH"
    [ "$scheme" = http ] && hdr="x-api-key: $(printf %s "$PH" | tr A-Za-z N-ZA-Mn-za-m)"
    a=$(per_request plain.cfg "" "$scheme" "$body" "$hdr")
    b=$(per_request creds.cfg secrets "$scheme" "$body" "$hdr")
    printf '%-26s %14s %14s %10s\n' "$name" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", b / a }')"
done
