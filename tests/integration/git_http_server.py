#!/usr/bin/env python3
"""A smart-HTTP git server over HTTPS on 127.0.0.1 (git http-backend as CGI) that
wants HTTP Basic credentials, like a forge: user $GIT_USER, password $GIT_TOKEN.

Usage: git_http_server.py PORTFILE CERT KEY PROJECT_ROOT RECORD

Without the right credentials: 401 with WWW-Authenticate. Every Authorization
header received is appended to RECORD (one line each, "-" when there was none),
so the test can say which token reached the server.
"""
import base64, http.server, os, socketserver, ssl, subprocess, sys, threading
from urllib.parse import urlsplit

BACKEND = next((p for p in ("/usr/lib/git-core/git-http-backend",
                            "/usr/libexec/git-core/git-http-backend") if os.path.exists(p)), None)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b""):
                        pass
                    return out
                out += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))

    def handle_git(self):
        auth = self.headers.get("Authorization")
        with open(sys.argv[5], "a") as f:
            f.write((auth or "-") + "\n")
        body = self.body() if self.command == "POST" else b""
        want = "Basic " + base64.b64encode(
            ("%s:%s" % (os.environ["GIT_USER"], os.environ["GIT_TOKEN"])).encode()).decode()
        if auth != want:
            msg = b"credentials needed\n"
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="git"')
            self.send_header("Content-Length", str(len(msg)))
            self.end_headers()
            self.wfile.write(msg)
            return
        u = urlsplit(self.path)
        env = {"GIT_PROJECT_ROOT": sys.argv[4], "GIT_HTTP_EXPORT_ALL": "1",
               "REQUEST_METHOD": self.command, "PATH_INFO": u.path, "QUERY_STRING": u.query,
               "CONTENT_TYPE": self.headers.get("Content-Type", ""),
               "CONTENT_LENGTH": str(len(body)), "REMOTE_USER": os.environ["GIT_USER"],
               "REMOTE_ADDR": "127.0.0.1", "PATH": "/usr/bin:/bin",
               "HTTP_GIT_PROTOCOL": self.headers.get("Git-Protocol", "")}
        if self.headers.get("Content-Encoding") == "gzip":
            env["HTTP_CONTENT_ENCODING"] = "gzip"
        out = subprocess.run([BACKEND], input=body, env=env, capture_output=True).stdout
        head, _, payload = out.partition(b"\r\n\r\n")
        if not _:
            head, _, payload = out.partition(b"\n\n")
        status = 200
        headers = []
        for line in head.replace(b"\r\n", b"\n").split(b"\n"):
            if not line:
                continue
            k, _, v = line.decode().partition(":")
            if k.lower() == "status":
                status = int(v.strip().split()[0])
            else:
                headers.append((k, v.strip()))
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = handle_git


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main():
    if not BACKEND:
        sys.exit("git http-backend not found")
    portfile, cert, key = sys.argv[1:4]
    srv = Server(("127.0.0.1", 0), Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(portfile + ".tmp", portfile)
    threading.Event().wait()


if __name__ == "__main__":
    main()
