#!/usr/bin/env bash
# Benchmark agentsandbox-proxy against a direct connection, tinyproxy and squid,
# side by side in one run, with an nginx origin on loopback.
#
#   bench/proxy.sh [PROXY_BINARY [BASELINE_BINARY]]   (default: build/proxy/agentsandbox-proxy)
#
# With BASELINE_BINARY (another build of agentsandbox-proxy, e.g. from main), it is
# measured in the same run, in the same way, and the ratios to it are printed.
#
# Measures: 1 GiB download over plain HTTP and over HTTPS (CONNECT: intercepted
# by agentsandbox-proxy, tunnelled by the others), 1 KiB requests/s and p99
# latency with keep-alive (wrk, absolute-form requests), and RSS with 1,000
# idle keep-alive connections; requests/s with network.credentials (injection
# and the guard) against the same binary without, and the proxy's RSS idle
# after start, with and without credentials. Needs nginx, curl, wrk,
# python3, openssl;
# tinyproxy and squid are measured when installed. The proxy of
# @anthropic-ai/sandbox-runtime (npm) is not measured here: it needs network
# access to install. Everything is bounded in time; nothing leaves 127.0.0.1.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROXY=${1:-$ROOT/build/proxy/agentsandbox-proxy}
BASE=${2:-}
SIZE=${BENCH_SIZE:-1G}
WRK_SECS=${BENCH_WRK_SECS:-5}
for t in nginx curl wrk python3 openssl; do
    command -v "$t" >/dev/null || { echo "bench: $t is required" >&2; exit 2; }
done
[ -x "$PROXY" ] || { echo "bench: no proxy at $PROXY (build first)" >&2; exit 2; }

W=$(mktemp -d /tmp/asb-bench.XXXXXX)
chmod 755 "$W"
PIDS=()
cleanup() {
    for p in "${PIDS[@]+"${PIDS[@]}"}"; do kill "$p" 2>/dev/null; done
    [ -f "$W/nginx.pid" ] && kill "$(cat "$W/nginx.pid")" 2>/dev/null
    [ -f "$W/squid.pid" ] && kill "$(cat "$W/squid.pid")" 2>/dev/null
    sleep 1
    for p in "${PIDS[@]+"${PIDS[@]}"}"; do kill -9 "$p" 2>/dev/null; done
    rm -rf "$W" /dev/shm/squid-asbbench$$*
}
[ -n "${BENCH_KEEP:-}" ] || trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# VmRSS and VmHWM of a process, KiB: "RSS/peak"
mem() { awk '/^VmRSS/ { r = $2 } /^VmHWM/ { h = $2 } END { print r "/" h }' "/proc/$1/status" 2>/dev/null; }
cd "$W"

# --- origin: nginx with a sparse 1 GiB file and a 1 KiB one, HTTP and HTTPS ---
mkdir -p www
truncate -s "$SIZE" www/big
head -c 1024 /dev/urandom >www/1k
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=bench-ca \
    -keyout ca.key -out ca.pem 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=bench.test \
    -keyout srv.key -out srv.csr 2>/dev/null
printf 'subjectAltName=DNS:bench.test,IP:127.0.0.1\n' >srv.ext
openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile srv.ext \
    -out srv.pem 2>/dev/null
NH=$(port) NS=$(port)
cat >nginx.conf <<NGX
worker_processes 1;
pid $W/nginx.pid;
error_log $W/nginx.err;
events { worker_connections 8192; }
http {
  access_log off;
  sendfile on;
  keepalive_requests 1000000;
  keepalive_timeout 120;
  client_body_temp_path $W/tmp; proxy_temp_path $W/tmp; fastcgi_temp_path $W/tmp;
  uwsgi_temp_path $W/tmp; scgi_temp_path $W/tmp;
  server { listen 127.0.0.1:$NH; root $W/www; }
  server { listen 127.0.0.1:$NS ssl; root $W/www;
           ssl_certificate $W/srv.pem; ssl_certificate_key $W/srv.key; }
}
NGX
mkdir -p tmp
nginx -c "$W/nginx.conf" -e "$W/nginx.err" 2>/dev/null || nginx -c "$W/nginx.conf"
sleep 0.3

# --- the proxies ---
echo "127.0.0.1 bench.test" >hosts
cat >asb.cfg <<CFG
network: {
  allowed_domains = ( { domain = "bench.test"; ports = [ $NH, $NS ]; allow_private = true; } );
  hosts_file = "hosts";
  upstream_ca_file = "ca.pem";
};
CFG
AP=$(port)
# --max-conns: the 1,000 idle connections below are over the default limit (256)
"$PROXY" --config asb.cfg --listen "127.0.0.1:$AP" --ca-out session-ca.pem --log asb.log --max-conns 4096 &
PIDS+=($!)
ASB_PID=$!
for _ in $(seq 50); do [ -s session-ca.pem ] && break; sleep 0.1; done
sleep 0.2
IDLE_A=$(mem "$ASB_PID")
cat session-ca.pem ca.pem >client-ca.pem
BP=
if [ -n "$BASE" ]; then
    BP=$(port)
    "$BASE" --config asb.cfg --listen "127.0.0.1:$BP" --ca-out base-ca.pem --log base.log --max-conns 4096 &
    PIDS+=($!)
    BASE_PID=$!
    for _ in $(seq 50); do [ -s base-ca.pem ] && break; sleep 0.1; done
    cat base-ca.pem ca.pem >base-client-ca.pem
fi

TP= SP=
if command -v tinyproxy >/dev/null; then
    TP=$(port)
    cat >tinyproxy.conf <<TPC
Port $TP
Listen 127.0.0.1
Timeout 600
MaxClients 4000
Allow 127.0.0.1
ConnectPort $NS
LogLevel Critical
TPC
    tinyproxy -d -c tinyproxy.conf >/dev/null 2>&1 &
    PIDS+=($!)
    TP_PID=$!
fi
if command -v squid >/dev/null; then
    SP=$(port)
    cat >squid.conf <<SQC
http_port 127.0.0.1:$SP
acl SSL_ports port $NS
acl CONNECT method CONNECT
http_access deny CONNECT !SSL_ports
http_access allow localhost
http_access deny all
cache deny all
cache_mem 8 MB
pid_filename $W/squid.pid
access_log none
cache_log $W/squid.log
coredump_dir $W
max_filedescriptors 16384
shutdown_lifetime 0 seconds
SQC
    if [ "$(id -u)" = 0 ]; then # squid drops to its own user, which must write here
        chown proxy "$W" 2>/dev/null || chmod 777 "$W"
    fi
    squid -N -n "asbbench$$" -f "$W/squid.conf" >/dev/null 2>&1 &
    PIDS+=($!)
    SQ_PID=$!
fi
sleep 1.5
cat www/big >/dev/null # page cache warm before anything is timed

speed() { # curl ARGS... -> MB/s, best of three
    for _ in 1 2 3; do
        curl -s -o /dev/null --max-time 120 -w '%{speed_download}\n' "$@"
    done | sort -n | tail -1 | awk '{ printf "%.0f", $1 / 1048576 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }

echo "# agentsandbox-proxy benchmark: $(nproc) CPUs, $(uname -r), $SIZE transfers, nginx origin on loopback"
D_H=$(speed "http://127.0.0.1:$NH/big")
D_S=$(speed --cacert ca.pem "https://127.0.0.1:$NS/big")
A_H=$(speed -x "http://127.0.0.1:$AP" "http://bench.test:$NH/big")
A_S=$(speed -x "http://127.0.0.1:$AP" --cacert client-ca.pem "https://bench.test:$NS/big")
printf '%-22s %12s %12s %14s %14s\n' "" "HTTP MB/s" "(x direct)" "HTTPS MB/s" "(x direct TLS)"
printf '%-22s %12s %12s %14s %14s\n' direct "$D_H" 1.00 "$D_S" 1.00
printf '%-22s %12s %12s %14s %14s\n' "agentsandbox-proxy" "$A_H" "$(ratio "$A_H" "$D_H")" "$A_S" "$(ratio "$A_S" "$D_S") (intercepted)"
if [ -n "$BP" ]; then
    B_H=$(speed -x "http://127.0.0.1:$BP" "http://bench.test:$NH/big")
    B_S=$(speed -x "http://127.0.0.1:$BP" --cacert base-client-ca.pem "https://bench.test:$NS/big")
    printf '%-22s %12s %12s %14s %14s\n' "baseline" "$B_H" "$(ratio "$B_H" "$D_H")" "$B_S" "$(ratio "$B_S" "$D_S") (intercepted)"
    echo "# agentsandbox-proxy / baseline: HTTP $(ratio "$A_H" "$B_H"), HTTPS $(ratio "$A_S" "$B_S")"
fi
if [ -n "$TP" ]; then
    T_H=$(speed -x "http://127.0.0.1:$TP" "http://127.0.0.1:$NH/big")
    T_S=$(speed -x "http://127.0.0.1:$TP" --cacert ca.pem "https://127.0.0.1:$NS/big")
    printf '%-22s %12s %12s %14s %14s\n' tinyproxy "$T_H" "$(ratio "$T_H" "$D_H")" "$T_S" "$(ratio "$T_S" "$D_S") (tunnel)"
fi
if [ -n "$SP" ]; then
    S_H=$(speed -x "http://127.0.0.1:$SP" "http://127.0.0.1:$NH/big")
    S_S=$(speed -x "http://127.0.0.1:$SP" --cacert ca.pem "https://127.0.0.1:$NS/big")
    printf '%-22s %12s %12s %14s %14s\n' squid "$S_H" "$(ratio "$S_H" "$D_H")" "$S_S" "$(ratio "$S_S" "$D_S") (tunnel)"
fi
echo "# peak RSS of agentsandbox-proxy after the transfers: $(awk '/VmHWM/ { print $2 }' /proc/$ASB_PID/status) KiB"

# --- requests/s and p99 with keep-alive: 1 KiB responses, absolute-form through proxies ---
cat >abs.lua <<'LUA'
local target = os.getenv("BENCH_TARGET")
request = function() return wrk.format("GET", target, { Host = os.getenv("BENCH_HOST") }) end
done = function(summary, latency, requests)
  io.write(string.format("RESULT %.0f %.2f\n", summary.requests / (summary.duration / 1e6),
                         latency:percentile(99) / 1000))
end
LUA
rps() { # ADDR TARGET HOST
    BENCH_TARGET=$2 BENCH_HOST=$3 wrk -t 2 -c 50 -d "${WRK_SECS}s" -s abs.lua "http://$1/" 2>/dev/null |
        awk '/^RESULT/ { printf "%s %s", $2, $3 }'
}
printf '\n%-22s %12s %12s\n' "1 KiB, 50 conns" "requests/s" "p99 ms"
printf '%-22s %12s %12s\n' direct $(rps "127.0.0.1:$NH" /1k "127.0.0.1:$NH")
A_R=$(rps "127.0.0.1:$AP" "http://bench.test:$NH/1k" "bench.test:$NH")
printf '%-22s %12s %12s\n' agentsandbox-proxy $A_R
if [ -n "$BP" ]; then
    B_R=$(rps "127.0.0.1:$BP" "http://bench.test:$NH/1k" "bench.test:$NH")
    printf '%-22s %12s %12s\n' baseline $B_R
    A_R2=$(rps "127.0.0.1:$AP" "http://bench.test:$NH/1k" "bench.test:$NH") # again, after: drift shows
    printf '%-22s %12s %12s\n' "agentsandbox-proxy (2)" $A_R2
    echo "# requests/s, agentsandbox-proxy / baseline: $(ratio "${A_R%% *}" "${B_R%% *}"), $(ratio "${A_R2%% *}" "${B_R%% *}") (second run)"
fi
[ -n "$TP" ] && printf '%-22s %12s %12s\n' tinyproxy $(rps "127.0.0.1:$TP" "http://127.0.0.1:$NH/1k" "127.0.0.1:$NH")
[ -n "$SP" ] && printf '%-22s %12s %12s\n' squid $(rps "127.0.0.1:$SP" "http://127.0.0.1:$NH/1k" "127.0.0.1:$NH")

# --- credentials: injection and the guard (network.credentials) ---
# The same proxy binary again, with four bindings (one for bench.test, whose
# placeholder every HTTPS request carries and gets replaced) and 20 guard-file
# secrets: every head and body is scanned. Compared with the binary without them
# (and the baseline), HTTPS through tls_rps (CONNECT + TLS, kept alive), plain
# HTTP through wrk, GETs and 1 KiB POSTs.
MKSECRETS=${BENCH_MKSECRETS:-$(dirname "$PROXY")/../tests/proxy/mksecrets}
if [ -x "$MKSECRETS" ] && cc -O2 -o tls_rps "$ROOT/bench/tls_rps.c" -lssl -lcrypto -lpthread 2>/dev/null; then
    KEY=sk-ant-api03-BENCHrealKEY0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU
    PH=sk-ant-api03-BENCHplaceholderAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA
    sed 's/^};$//' asb.cfg >creds.cfg
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
    CP=$(port)
    "$PROXY" --config creds.cfg --listen "127.0.0.1:$CP" --ca-out creds-ca.pem --log creds.log \
        --max-conns 4096 --secrets-fd 3 3<secrets &
    PIDS+=($!)
    for _ in $(seq 50); do [ -s creds-ca.pem ] && break; sleep 0.1; done
    sleep 0.2
    IDLE_C=$(mem "${PIDS[-1]}")
    cat creds-ca.pem ca.pem >creds-client-ca.pem
    tls() { # PORT CA [HEADER [BODY]]
        ./tls_rps "$1" bench.test "$NS" "$2" /1k "$WRK_SECS" 16 "${3:-}" "${4:-}" | awk '/^RESULT/ { print $2 }'
    }
    rps1() { rps "$@" | cut -d' ' -f1; }
    cat >post.lua <<'LUA'
local target = os.getenv("BENCH_TARGET")
local body = string.rep("a", 1024)
request = function() return wrk.format("POST", target, { Host = os.getenv("BENCH_HOST") }, body) end
done = function(summary, latency, requests)
  io.write(string.format("RESULT %.0f %.2f\n", summary.requests / (summary.duration / 1e6),
                         latency:percentile(99) / 1000))
end
LUA
    rps_post() { BENCH_TARGET=$2 BENCH_HOST=$3 wrk -t 2 -c 50 -d "${WRK_SECS}s" -s post.lua "http://$1/" 2>/dev/null | awk '/^RESULT/ { print $2 }'; }
    # The proxy's CPU time per request is what the machine's other load disturbs
    # least: requests/s follow it wherever the proxy is the bottleneck.
    ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
    HZ=$(getconf CLK_TCK)
    one() { # PID CMD... -> "requests/s CPU-microseconds-per-request"
        local pid=$1 t0 t1 r
        shift
        t0=$(ticks "$pid")
        r=$("$@")
        t1=$(ticks "$pid")
        awk -v r="$r" -v d=$((t1 - t0)) -v hz="$HZ" -v s="$WRK_SECS" \
            'BEGIN { printf "%d %.1f", r, (r > 0 ? d * 1e6 / hz / (r * s) : 0) }'
    }
    measure() { # PORT PID CA HEADER -> requests/s of the four, then their CPU us/request
        local a b c d
        a=$(one "$2" tls "$1" "$3" "$4")
        b=$(one "$2" tls "$1" "$3" "$4" 1024)
        c=$(one "$2" rps1 "127.0.0.1:$1" "http://bench.test:$NH/1k" "bench.test:$NH")
        d=$(one "$2" rps_post "127.0.0.1:$1" "http://bench.test:$NH/1k" "bench.test:$NH")
        echo "${a% *} ${b% *} ${c% *} ${d% *} ${a#* } ${b#* } ${c#* } ${d#* }"
    }
    show() { printf '%-34s %12s %12s %12s %12s\n' "$1" $2; }
    ratios() { awk -v a="$1" -v b="$2" -v from="$3" 'BEGIN { n = split(a, x, " "); split(b, y, " ");
        for (i = from; i < from + 4; i++) printf "%s%.2f", (i > from ? " " : ""), (y[i] > 0 ? x[i] / y[i] : 0) }'; }
    median() { # lines of numbers -> the median of each column
        awk '{ for (i = 1; i <= NF; i++) v[i, NR] = $i; n = NF }
             END { for (i = 1; i <= n; i++) {
                   for (r = 1; r <= NR; r++) a[r] = v[i, r] + 0
                   for (r = 1; r <= NR; r++) for (q = r + 1; q <= NR; q++) if (a[q] < a[r]) { t = a[r]; a[r] = a[q]; a[q] = t }
                   printf "%s%s", (i > 1 ? " " : ""), a[int((NR + 1) / 2)] } }'
    }
    half() { cut -d' ' -f"$1" <<<"$2"; }
    CRED_PID=${PIDS[-1]}
    # Alternating rounds (the host's load drifts), medians.
    N_ALL= C_ALL= B_ALL=
    for _ in $(seq "${BENCH_ROUNDS:-3}"); do
        N_ALL+="$(measure "$AP" "$ASB_PID" client-ca.pem "")"$'\n'
        C_ALL+="$(measure "$CP" "$CRED_PID" creds-client-ca.pem "x-api-key: $PH")"$'\n'
        [ -n "$BP" ] && B_ALL+="$(measure "$BP" "$BASE_PID" base-client-ca.pem "")"$'\n'
    done
    N1=$(printf '%s' "$N_ALL" | median)
    C1=$(printf '%s' "$C_ALL" | median)
    [ -n "$BP" ] && B1=$(printf '%s' "$B_ALL" | median)
    printf '\n%-34s %12s %12s %12s %12s\n' "median of ${BENCH_ROUNDS:-3} rounds" "HTTPS GET" "HTTPS POST 1K" "HTTP GET" "HTTP POST 1K"
    show "requests/s: agentsandbox-proxy" "$(half 1-4 "$N1")"
    show "... with credentials and guard" "$(half 1-4 "$C1")"
    [ -n "$BP" ] && show "baseline" "$(half 1-4 "$B1")"
    show "CPU us/request: agentsandbox-proxy" "$(half 5-8 "$N1")"
    show "... with credentials and guard" "$(half 5-8 "$C1")"
    [ -n "$BP" ] && show "baseline" "$(half 5-8 "$B1")"
    echo "# with credentials / without: requests/s $(ratios "$C1" "$N1" 1); CPU per request $(ratios "$C1" "$N1" 5)"
    echo "# (the goal: injection and the guard cost at most 10% of requests/s, a ratio of 0.90 or more)"
    [ -n "$BP" ] && echo "# with credentials / baseline: requests/s $(ratios "$C1" "$B1" 1); CPU per request $(ratios "$C1" "$B1" 5)"
    grep -q "injected: bench into GET bench.test:$NS/1k" creds.log || echo "# (warning: no injection was logged)"
else
    echo "# credentials: skipped (needs $MKSECRETS and a C compiler with OpenSSL)"
fi

# --- RSS with 1,000 idle keep-alive connections (one request each) ---
cat >idle.py <<'PY'
import asyncio, resource, sys
port, target, host, pid = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
def rss(p):
    try:
        return sum(int(l.split()[1]) for l in open("/proc/%d/status" % p) if l.startswith("VmRSS:"))
    except OSError:
        return -1
async def main():
    s, h = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (h, h))
    conns, sem = [], asyncio.Semaphore(200)
    async def one():
        async with sem:
            r, w = await asyncio.open_connection("127.0.0.1", port)
            w.write(b"GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target.encode(), host.encode()))
            await w.drain()
            head = await r.readuntil(b"\r\n\r\n")
            await r.readexactly(1024)
            conns.append(w)
    await asyncio.wait_for(asyncio.gather(*(one() for _ in range(1000)), return_exceptions=True), 60)
    await asyncio.sleep(1)
    print(len(conns), rss(pid))
    for w in conns:
        w.close()
asyncio.run(main())
PY
idle() { python3 idle.py "$1" "$2" "$3" "$4"; }
printf '\n%-22s %12s %12s\n' "1,000 idle keep-alive" "connections" "RSS KiB"
printf '%-22s %12s %12s\n' agentsandbox-proxy $(idle "$AP" "http://bench.test:$NH/1k" "bench.test:$NH" "$ASB_PID")
[ -n "$BP" ] && printf '%-22s %12s %12s\n' baseline $(idle "$BP" "http://bench.test:$NH/1k" "bench.test:$NH" "$BASE_PID")
[ -n "$TP" ] && printf '%-22s %12s %12s\n' tinyproxy $(idle "$TP" "http://127.0.0.1:$NH/1k" "127.0.0.1:$NH" "$TP_PID")
[ -n "$SP" ] && printf '%-22s %12s %12s\n' squid $(idle "$SP" "http://127.0.0.1:$NH/1k" "127.0.0.1:$NH" "$(cat squid.pid 2>/dev/null || echo "$SQ_PID")")
echo "# (tinyproxy forks a process per connection; its number is the parent's only)"
echo "# agentsandbox-proxy idle after start, VmRSS/VmHWM KiB: $IDLE_A without credentials${IDLE_C:+, $IDLE_C with credentials (four bindings, twenty guarded secrets)}"
