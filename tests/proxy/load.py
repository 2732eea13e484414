#!/usr/bin/env python3
"""Load test of agentsandbox-proxy (TAP): many concurrent keep-alive connections
plus slowloris clients; the proxy keeps serving and its RSS stays bounded.

Usage: load.py PROXY_BINARY WORKDIR [CONNECTIONS]
Everything runs on 127.0.0.1 and is bounded in count and time.
"""
import asyncio, os, re, resource, subprocess, sys, time

PROXY, WORK = sys.argv[1], sys.argv[2]
WANT = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
SANITIZED = b"__asan_init" in open(PROXY, "rb").read()

n_test = 0
failed = 0


def ok(cond, desc):
    global n_test, failed
    n_test += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", n_test, desc), flush=True)
    if not cond:
        failed += 1


def rss_kib(pid, field="VmRSS"):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return -1


async def origin(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            if not head:
                break
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhello\n")
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError,
            asyncio.CancelledError):
        pass
    writer.close()


async def request(reader, writer, url):
    writer.write(b"GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (url.encode(), url.split("/")[2].encode()))
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    m = re.search(rb"Content-Length: (\d+)", head, re.I)
    await reader.readexactly(int(m.group(1)) if m else 0)
    return int(head.split()[1])


async def main():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    # this process holds both ends of every origin connection and the client end
    n = min(WANT, max(100, (hard - 200) // 2))
    if n < WANT:
        print("# RLIMIT_NOFILE %d: %d connections instead of %d" % (hard, n, WANT))

    server = await asyncio.start_server(origin, "127.0.0.1", 0, backlog=4096)
    oport = server.sockets[0].getsockname()[1]
    with open(os.path.join(WORK, "hosts"), "w") as f:
        f.write("127.0.0.1 load.test\n")
    cfg = os.path.join(WORK, "load.cfg")
    with open(cfg, "w") as f:
        f.write('network: { allowed_domains = ( { domain = "load.test"; ports = [ %d ]; '
                'allow_private = true; } ); hosts_file = "hosts"; };\n' % oport)
    log = os.path.join(WORK, "load.log")
    proc = subprocess.Popen([PROXY, "--config", cfg, "--listen", "127.0.0.1:0", "--log", log,
                             "--header-timeout", "3", "--max-conns", str(n + 300)],
                            stderr=open(os.path.join(WORK, "load.err"), "w"))
    pport = None
    for _ in range(100):
        await asyncio.sleep(0.05)
        if os.path.exists(log):
            m = re.search(r"listening on 127\.0\.0\.1:(\d+)", open(log).read())
            if m:
                pport = int(m.group(1))
                break
    ok(pport is not None, "proxy started")
    if pport is None:
        proc.kill()
        return
    url = "http://load.test:%d/x" % oport
    base_rss = rss_kib(proc.pid)

    # 1. n concurrent connections, one request each, then kept alive and idle
    conns = []
    sem = asyncio.Semaphore(500)  # bound the connect burst, not the concurrency

    async def one():
        async with sem:
            r, w = await asyncio.open_connection("127.0.0.1", pport)
        st = await request(r, w, url)
        conns.append((r, w))
        return st

    t0 = time.time()
    res = await asyncio.wait_for(asyncio.gather(*(one() for _ in range(n)), return_exceptions=True), 60)
    good = sum(1 for x in res if x == 200)
    ok(good == n, "%d concurrent connections served (%d ok) in %.1f s" % (n, good, time.time() - t0))
    await asyncio.sleep(0.5)
    idle_rss = rss_kib(proc.pid)
    limit = 5 * 1024 * n // 1000 + base_rss  # 5 KiB per idle connection
    print("# proxy RSS: %d KiB at start, %d KiB with %d idle keep-alive connections" % (base_rss, idle_rss, len(conns)))
    if SANITIZED:
        ok(True, "# SKIP RSS bound under sanitizers")
    else:
        ok(idle_rss < limit, "RSS with %d idle keep-alive connections: %d KiB (< %d)" % (len(conns), idle_rss, limit))

    # 2. slowloris: heads trickle in a byte at a time; others are still served
    lorises = []
    for _ in range(200):
        r, w = await asyncio.open_connection("127.0.0.1", pport)
        lorises.append((r, w))
    head = b"GET %s HTTP/1.1\r\nHost: load.test\r\nX-Slow: " % url.encode()

    async def trickle(r, w):
        async def writer():
            try:
                for i in range(40):
                    w.write(head[i % len(head):i % len(head) + 1])
                    await w.drain()
                    await asyncio.sleep(0.25)
            except (ConnectionError, asyncio.CancelledError):
                pass
        t = time.time()
        wt = asyncio.ensure_future(writer())
        try:
            data = await asyncio.wait_for(r.read(64), 10)
        except (asyncio.TimeoutError, ConnectionError):
            data = b""
        wt.cancel()
        return data, time.time() - t

    lt = [asyncio.ensure_future(trickle(r, w)) for r, w in lorises]
    await asyncio.sleep(0.5)
    t0 = time.time()
    r, w = await asyncio.open_connection("127.0.0.1", pport)
    st = await asyncio.wait_for(request(r, w, url), 5)
    lat = time.time() - t0
    w.close()
    ok(st == 200 and lat < 1.0, "served during a slowloris attack (%.3f s)" % lat)
    out = await asyncio.wait_for(asyncio.gather(*lt), 30)
    timed_out = sum(1 for d, t in out if d.startswith(b"HTTP/1.1 408") and t < 6)
    ok(timed_out == len(lorises), "slowloris heads cut off with 408 after the header timeout (%d/%d)" % (timed_out, len(lorises)))
    for r, w in lorises:
        w.close()

    # 3. the kept-alive connections still work
    async def again(r, w):
        return await request(r, w, url)
    res = await asyncio.wait_for(asyncio.gather(*(again(r, w) for r, w in conns), return_exceptions=True), 60)
    good = sum(1 for x in res if x == 200)
    ok(good == len(conns), "a second request on each kept-alive connection (%d ok)" % good)
    peak = rss_kib(proc.pid, "VmHWM")
    print("# proxy peak RSS: %d KiB" % peak)
    for r, w in conns:
        w.close()
    await asyncio.sleep(0.5)
    ok(proc.poll() is None, "proxy still running")
    proc.terminate()
    proc.wait(10)
    err = open(os.path.join(WORK, "load.err")).read()
    ok("Sanitizer" not in err and "runtime error" not in err, "no sanitizer reports")
    server.close()


asyncio.run(main())
print("1..%d" % n_test)
sys.exit(1 if failed else 0)
