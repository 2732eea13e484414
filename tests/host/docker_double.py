#!/usr/bin/env python3
"""A Docker Engine API double on a unix socket, for tests/host/docker.sh
(no dockerd can run where the tests run). It answers what the docker CLI
and the tests ask of a daemon: ping, version, info, containers (create,
inspect, list with label filters, start, stop, kill, wait, attach: an echo
of stdin, exec: create, inspect, start, delete), image inspect and pulls.
Every request it receives is a JSON line in RECORD: method, path, query,
body, so a test sees what the filter let through and what it did not.
A container "hostbox" (not the session's) exists from the start.

usage: docker_double.py SOCKET RECORD READY"""
import json, os, socket, socketserver, sys, threading, uuid
from http.server import BaseHTTPRequestHandler
from urllib.parse import urlsplit, parse_qs

sock_path, record_path, ready_path = sys.argv[1:4]
lock = threading.Lock()
containers = {}  # id -> {"Id", "Name", "Config": {"Labels"}, "HostConfig"}
execs = {}       # id -> container id


def add(name, labels, hostconfig=None, body=None):
    cid = uuid.uuid4().hex + uuid.uuid4().hex
    containers[cid] = {"Id": cid, "Name": "/" + name, "Config": {"Labels": labels or {},
                       "Image": (body or {}).get("Image", "")}, "HostConfig": hostconfig or {},
                       "State": {"Running": False}}
    return cid


add("hostbox", {"owner": "the user"}, {"Privileged": True})


def find(ref):
    for cid, c in containers.items():
        if cid == ref or c["Name"] == "/" + ref or (len(ref) >= 6 and cid.startswith(ref)):
            return c
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def record(self, body):
        u = urlsplit(self.path)
        path = u.path
        if path.startswith("/v1.") or path.startswith("/v2."):
            path = "/" + path.split("/", 2)[2]
        with lock, open(record_path, "a") as f:
            f.write(json.dumps({"method": self.command, "path": path, "raw": self.path,
                                "query": parse_qs(u.query), "body": body,
                                "connection": self.headers.get("Connection", "")}) + "\n")
        return path, parse_qs(u.query)

    def read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
            return data
        return self.rfile.read(n) if n else b""

    def send(self, code, obj=None, raw=None, ctype="application/json"):
        data = raw if raw is not None else (json.dumps(obj).encode() if obj is not None else b"")
        self.send_response(code)
        self.send_header("Api-Version", "1.43")
        self.send_header("Ostype", "linux")
        self.send_header("Docker-Experimental", "false")
        if data or code not in (204, 304):
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if data and self.command != "HEAD":
            self.wfile.write(data)

    def hijack(self, payload=None, stdin=False):
        """attach / exec start: 101, then the stream (stdout frames, as for
        a container without a tty): the payload, or stdin echoed."""
        self.send_response(101, "UPGRADED")
        self.send_header("Content-Type", "application/vnd.docker.raw-stream")
        self.send_header("Connection", "Upgrade")
        self.send_header("Upgrade", "tcp")
        self.end_headers()
        self.wfile.flush()
        def frame(data):
            return b"\x01\x00\x00\x00" + len(data).to_bytes(4, "big") + data
        if payload is not None:
            self.wfile.write(frame(payload))
            self.wfile.flush()
        if stdin:  # echo stdin until it ends
            while True:
                chunk = self.connection.recv(65536)
                if not chunk:
                    break
                self.connection.sendall(frame(b"echo:" + chunk))
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def handle_any(self):
        raw = self.read_body()
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("latin-1")
        path, q = self.record(body)
        parts = path.strip("/").split("/")
        if path == "/_ping":
            return self.send(200, raw=b"OK", ctype="text/plain")
        if path == "/version":
            return self.send(200, {"Version": "24.0.0-double", "ApiVersion": "1.43",
                                   "MinAPIVersion": "1.12", "Os": "linux", "Arch": "amd64",
                                   "KernelVersion": "6", "Components": []})
        if path == "/info":
            return self.send(200, {"ID": "double", "Containers": len(containers)})
        if path == "/containers/create":
            name = q.get("name", ["c" + uuid.uuid4().hex[:8]])[0]
            cid = add(name, (body or {}).get("Labels"), (body or {}).get("HostConfig"), body)
            return self.send(201, {"Id": cid, "Warnings": []})
        if path == "/containers/json":
            want = []
            if "filters" in q:
                f = json.loads(q["filters"][0])
                lab = f.get("label", [])
                want = list(lab) if isinstance(lab, (list, dict)) else []
            out = []
            for c in containers.values():
                labels = c["Config"]["Labels"]
                if all(("=" in w and labels.get(w.split("=", 1)[0]) == w.split("=", 1)[1]) or
                       ("=" not in w and w in labels) for w in want):
                    out.append({"Id": c["Id"], "Names": [c["Name"]], "Labels": labels,
                                "Image": c["Config"]["Image"], "State": "created"})
            return self.send(200, out)
        if path == "/images/json":
            return self.send(200, [])
        if path.startswith("/images/") and path.endswith("/json"):
            return self.send(200, {"Id": "sha256:" + "0" * 64, "RepoTags": ["alpine:latest"],
                                   "Config": {}, "Os": "linux", "Architecture": "amd64"})
        if path == "/images/create":
            return self.send(200, raw=b'{"status":"pulled"}\n')
        if len(parts) >= 2 and parts[0] == "containers":
            c = find(parts[1])
            if not c:
                return self.send(404, {"message": "No such container: " + parts[1]})
            op = parts[2] if len(parts) > 2 else ""
            if self.command == "DELETE" and not op:
                with lock:
                    containers.pop(c["Id"], None)
                return self.send(204)
            if op == "json":
                return self.send(200, c)
            if op in ("start", "stop", "kill", "restart", "pause", "unpause", "resize"):
                return self.send(204)
            if op == "wait":
                return self.send(200, {"StatusCode": 0})
            if op == "attach":
                stdin = q.get("stdin", ["0"])[0] in ("1", "true")
                return self.hijack(None if stdin else b"hello from the double\n", stdin)
            if op == "exec":
                eid = uuid.uuid4().hex
                execs[eid] = c["Id"]
                return self.send(201, {"Id": eid})
            return self.send(200, {})
        if len(parts) >= 3 and parts[0] == "exec":
            cid = execs.get(parts[1])
            if not cid:
                return self.send(404, {"message": "No such exec instance"})
            if parts[2] == "json":
                return self.send(200, {"ID": parts[1], "ContainerID": cid, "Running": False})
            if parts[2] == "start":
                return self.hijack(b"exec-output\n")
            return self.send(201)
        # anything else would be answered by a real daemon: the record shows it came
        return self.send(200, {"double": "answered " + path})

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = handle_any


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def get_request(self):
        conn, _ = self.socket.accept()
        return conn, ("double", 0)


if os.path.exists(sock_path):
    os.unlink(sock_path)
srv = Server(sock_path, Handler)
open(ready_path, "w").write("ready\n")
srv.serve_forever()
