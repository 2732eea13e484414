#!/usr/bin/env python3
"""Listen on each unix socket path given; every connection reads
"hello <path>\\n". Writes the first argument (a file) once listening."""
import os, socket, sys, threading

ready, paths = sys.argv[1], sys.argv[2:]
def serve(s, p):
    while True:
        c, _ = s.accept()
        c.sendall(("hello %s\n" % os.path.basename(p)).encode())
        c.close()
for p in paths:
    os.makedirs(os.path.dirname(p), exist_ok=True)
    s = socket.socket(socket.AF_UNIX)
    s.bind(p)
    s.listen(8)
    threading.Thread(target=serve, args=(s, p), daemon=True).start()
open(ready, "w").write("ready\n")
threading.Event().wait()
