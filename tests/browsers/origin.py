#!/usr/bin/env python3
"""An HTTPS origin for the filtered-mode tests, on 127.0.0.1.

Usage: origin.py PORTFILE CERT KEY
Serves a page titled "asb https origin" at every path; writes its port to
PORTFILE once it listens. Requests are logged to stderr."""
import http.server
import ssl
import sys

PAGE = b"<!doctype html><title>asb https origin</title><p>through the proxy</p>\n"


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)


def main():
    portfile, cert, key = sys.argv[1:4]
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    with open(portfile + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    import os
    os.rename(portfile + ".tmp", portfile)
    srv.serve_forever()


if __name__ == "__main__":
    main()
