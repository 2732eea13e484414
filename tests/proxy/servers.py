#!/usr/bin/env python3
"""Local origin servers for the proxy tests: plain HTTP and HTTPS on 127.0.0.1.

Usage: servers.py PORTFILE CERT KEY [BIND]
Writes "HTTP_PORT HTTPS_PORT" to PORTFILE once both listen. BIND is the address to
listen on (default 127.0.0.1; "::" listens on every IPv4 and IPv6 address).

Endpoints: /hello, /echo (POST: "LEN SHA256" of the body), /big?n=BYTES
(streamed), /sse (two chunks one second apart), /hang (answers after 20 s), /ws (WebSocket echo of one
frame), /headers (the request headers it received), /line (the request line it
received), /longreason (a 9,000-byte reason phrase), /conn (which connection served the request: the proxy's port),
/redirect?to=URL (302 to URL), /record (any method: the request line, headers and body
appended to $ASB_RECORD), /v1/oauth/token (POST, recorded too: answers $ASB_TOKEN_RESPONSE),
anything else: 404.
Every request line received is appended to the file $ASB_ORIGIN_LOG, when set.
"""
import base64, hashlib, http.server, os, socket, socketserver, ssl, sys, threading, time
from urllib.parse import urlsplit, parse_qs

BLOCK = bytes(range(256)) * 256  # 64 KiB


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def parse_request(self):
        ok = super().parse_request()
        log = os.environ.get("ASB_ORIGIN_LOG")
        if log:
            with open(log, "a") as f:
                f.write("%d %s\n" % (self.client_address[1], self.requestline))
        return ok

    def reply(self, code, body, ctype="text/plain"):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def read_body(self):
        h = hashlib.sha256()
        n = 0
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b""):
                        pass
                    break
                left = size
                while left:
                    d = self.rfile.read(min(left, 1 << 16))
                    h.update(d)
                    left -= len(d)
                    n += len(d)
                self.rfile.readline()
        else:
            left = int(self.headers.get("Content-Length", "0"))
            while left:
                d = self.rfile.read(min(left, 1 << 16))
                if not d:
                    break
                h.update(d)
                left -= len(d)
                n += len(d)
        return n, h.hexdigest()

    def record(self):
        body = b""
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                line = self.rfile.readline()
                if not line:
                    break
                size = int(line.split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b""):
                        pass
                    break
                body += self.rfile.read(size)
                self.rfile.readline()
        else:
            left = int(self.headers.get("Content-Length", "0"))
            while left:
                d = self.rfile.read(min(left, 1 << 16))
                if not d:
                    break
                body += d
                left -= len(d)
        path = os.environ.get("ASB_RECORD")
        if path:
            with open(path, "ab") as f:
                f.write(self.requestline.encode() + b"\n" + str(self.headers).encode() + body + b"\n")
        return body

    def routed(self):
        u = urlsplit(self.path)
        if u.path == "/record":
            self.record()
            self.reply(200, b"recorded\n")
            return True
        if u.path == "/v1/oauth/token" and self.command == "POST":
            self.record()
            self.reply(200, os.environ.get("ASB_TOKEN_RESPONSE", "{}").encode(), "application/json")
            return True
        if u.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", parse_qs(u.query).get("to", ["/"])[0])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return True
        return False

    def do_GET(self):
        if self.routed():
            return
        u = urlsplit(self.path)
        if u.path == "/ws" and self.headers.get("Upgrade", "").lower() == "websocket":
            return self.websocket()
        if u.path == "/big":
            n = int(parse_qs(u.query).get("n", ["0"])[0])
            self.send_response(200)
            self.send_header("Content-Length", str(n))
            self.end_headers()
            while n:
                k = min(n, len(BLOCK))
                self.wfile.write(BLOCK[:k])
                n -= k
            return
        if u.path == "/sse":
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(2):
                data = b"data: %d %f\n\n" % (i, time.time())
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
                time.sleep(1)
            self.wfile.write(b"0\r\n\r\n")
            return
        if u.path == "/hang":
            time.sleep(20)
            return self.reply(200, b"late\n")
        if u.path == "/headers":
            return self.reply(200, str(self.headers).encode())
        if u.path == "/longreason":  # a status line over 8 KiB
            self.send_response(200, "x" * 9000)
            self.send_header("Content-Length", "3")
            self.end_headers()
            self.wfile.write(b"ok\n")
            return
        if u.path == "/line":
            return self.reply(200, self.requestline.encode() + b"\n")
        if u.path.startswith("/conn"):
            return self.reply(200, b"%d\n" % self.client_address[1])
        if u.path.startswith("/hello") or u.path.startswith("/x") or u.path == "/":
            return self.reply(200, b"hello\n")
        self.reply(404, b"not found\n")

    do_HEAD = do_GET

    def do_POST(self):
        if self.routed():
            return
        n, digest = self.read_body()
        self.reply(200, b"%d %s\n" % (n, digest.encode()))

    do_PUT = do_POST
    do_DELETE = do_POST

    def do_OPTIONS(self):
        # Like many CORS preflight handlers: answered without reading a body.
        self.send_response(204)
        self.send_header("Allow", "GET, POST, OPTIONS")
        self.end_headers()

    def websocket(self):
        key = self.headers["Sec-WebSocket-Key"]
        accept = base64.b64encode(
            hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
        self.send_response(101)
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept.decode())
        self.end_headers()
        self.wfile.flush()
        hdr = self.rfile.read(2)
        ln = hdr[1] & 0x7F
        mask = self.rfile.read(4)
        data = bytes(b ^ mask[i % 4] for i, b in enumerate(self.rfile.read(ln)))
        self.wfile.write(bytes([0x81, len(data)]) + data)
        self.wfile.flush()
        self.close_connection = True


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


class Server6(Server):
    address_family = socket.AF_INET6

    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "localhost", self.server_address[1]


def main():
    portfile, cert, key = sys.argv[1:4]
    bind = sys.argv[4] if len(sys.argv) > 4 else "127.0.0.1"
    cls = Server6 if ":" in bind else Server
    plain = cls((bind, 0), Handler)
    tls = cls((bind, 0), Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    tls.socket = ctx.wrap_socket(tls.socket, server_side=True)
    for s in (plain, tls):
        threading.Thread(target=s.serve_forever, daemon=True).start()
    with open(portfile + ".tmp", "w") as f:
        f.write("%d %d\n" % (plain.server_address[1], tls.server_address[1]))
    import os
    os.rename(portfile + ".tmp", portfile)
    threading.Event().wait()


if __name__ == "__main__":
    main()
