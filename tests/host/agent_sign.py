#!/usr/bin/env python3
"""Ask the agent at $SSH_AUTH_SOCK to sign with the key of a .pub file,
straight through the protocol (no client-side checks): prints the reply's
message type (14: a signature, 5: failure)."""
import base64, os, socket, struct, sys

blob = base64.b64decode(open(sys.argv[1]).read().split()[1])
def s(b): return struct.pack(">I", len(b)) + b
msg = bytes([13]) + s(blob) + s(b"data to sign") + struct.pack(">I", 0)
c = socket.socket(socket.AF_UNIX)
c.connect(os.environ["SSH_AUTH_SOCK"])
c.sendall(struct.pack(">I", len(msg)) + msg)
n = struct.unpack(">I", c.recv(4))[0]
print(c.recv(n)[0])
