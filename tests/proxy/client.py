#!/usr/bin/env python3
"""Raw clients for what curl cannot express: keep-alive sequences on one socket,
pipelining, malformed requests, WebSocket and SSE timing through the proxy.

Usage: client.py PROXY_PORT COMMAND ARGS...  (prints results; exit 0 on success)
"""
import base64, os, socket, ssl, sys, time

PROXY = ("127.0.0.1", int(sys.argv[1]))


def connect(host=None, port=None, cafile=None):
    s = socket.create_connection(PROXY, timeout=10)
    if host is None:
        return s
    s.sendall(b"CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n" % (host.encode(), port, host.encode(), port))
    head = read_head(s)
    if not head.startswith(b"HTTP/1.1 200"):
        raise SystemExit("CONNECT refused: %r" % head)
    ctx = ssl.create_default_context(cafile=cafile)
    ctx.set_alpn_protocols(["h2", "http/1.1"])
    t = ctx.wrap_socket(s, server_hostname=host)
    if t.selected_alpn_protocol() not in (None, "http/1.1"):
        raise SystemExit("ALPN chose %s" % t.selected_alpn_protocol())
    return t


def read_head(s):
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = s.recv(1)
        if not d:
            break
        buf += d
    return buf


def read_response(s):
    """status, headers, body of one response (Content-Length bodies only)."""
    head = read_head(s)
    if not head:
        return None, {}, b""
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    hdrs = {}
    for l in lines[1:]:
        if ":" in l:
            k, v = l.split(":", 1)
            hdrs[k.strip().lower()] = v.strip()
    n = int(hdrs.get("content-length", "0"))
    body = b""
    while len(body) < n:
        d = s.recv(n - len(body))
        if not d:
            break
        body += d
    return status, hdrs, body


def requests(s, reqs):
    """Send each request, read its response; print the statuses."""
    out = []
    for r in reqs:
        s.sendall(r)
        st, h, b = read_response(s)
        out.append(str(st))
    return out


def cmd_seq(args):
    # seq [tls HOST PORT CAFILE] -- "METHOD URL" ...: one connection, in order
    cafile = None
    if args[0] == "tls":
        host, port, cafile = args[1], int(args[2]), args[3]
        s = connect(host, port, cafile)
        args = args[4:]
    else:
        s = connect()
    reqs = []
    for a in args:
        m, url = a.split(" ", 1)
        hostport = url.split("/")[2] if "://" in url else host + ":%d" % port
        body = b"abc" if m in ("POST", "PUT", "OPTIONS", "DELETE") else b""
        reqs.append(b"%s %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n\r\n%s" % (
            m.encode(), (url if cafile is None else url).encode(), hostport.encode(), len(body), body))
    print(" ".join(requests(s, reqs)))


def cmd_pipeline(args):
    # pipeline URL...: all GETs written at once, then responses read in order
    s = connect()
    blob = b""
    for url in args:
        blob += b"GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (url.encode(), url.split("/")[2].encode())
    s.sendall(blob)
    print(" ".join(str(read_response(s)[0]) for _ in args))


def cmd_raw(args):
    # raw BYTES(python-escaped): print the status of the reply and whether it closed
    s = connect()
    s.sendall(args[0].encode("latin-1").decode("unicode_escape").encode("latin-1"))
    st, h, b = read_response(s)
    s.settimeout(3)
    try:
        closed = s.recv(1) == b""
    except socket.timeout:
        closed = False
    print(st, "closed" if closed else "open", h.get("x-proxy-error", ""))


def cmd_ws(args):
    # ws URL | ws tls HOST PORT CAFILE PATH: upgrade, send one frame, expect the echo
    if args[0] == "tls":
        host, port, cafile, path = args[1], int(args[2]), args[3], args[4]
        s = connect(host, port, cafile)
        target, hostport = path, "%s:%d" % (host, port)
    else:
        s = connect()
        target, hostport = args[0], args[0].split("/")[2]
    key = base64.b64encode(os.urandom(16))
    s.sendall(b"GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (
                  target.encode(), hostport.encode(), key))
    st, h, b = read_response(s)
    if st != 101:
        print(st, h.get("x-proxy-error", ""))
        return
    msg = b"ping through the proxy"
    mask = os.urandom(4)
    s.sendall(bytes([0x81, 0x80 | len(msg)]) + mask + bytes(c ^ mask[i % 4] for i, c in enumerate(msg)))
    hdr = s.recv(2)
    data = b""
    while len(data) < hdr[1]:
        data += s.recv(hdr[1] - len(data))
    print(101, "echo-ok" if data == msg else "echo-bad %r" % data)


def cmd_sse(args):
    # sse URL: seconds until the first event arrived, and until the end
    s = connect()
    url = args[0]
    t0 = time.time()
    s.sendall(b"GET %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (url.encode(), url.split("/")[2].encode()))
    head = read_head(s)
    buf = b""
    first = None
    while b"0\r\n\r\n" not in buf:
        d = s.recv(65536)
        if not d:
            break
        buf += d
        if first is None and b"data: 0" in buf:
            first = time.time() - t0
    print("%.2f %.2f" % (first if first is not None else 99, time.time() - t0))


def cmd_idle(args):
    # idle SECONDS: a silent connection; print "connected" once it is, then how long
    # until the proxy closed it
    s = connect()
    print("connected", flush=True)
    s.settimeout(float(args[0]))
    t0 = time.time()
    try:
        s.recv(1)
        print("closed %.1f" % (time.time() - t0))
    except socket.timeout:
        print("open")


def main():
    cmd = sys.argv[2]
    globals()["cmd_" + cmd](sys.argv[3:])


if __name__ == "__main__":
    main()
