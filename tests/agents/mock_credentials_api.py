#!/usr/bin/env python3
"""A stand-in for the model APIs agents call, over HTTPS on 127.0.0.1, recording
what it gets (the tests check which key reached it).

Usage: mock_credentials_api.py PORTFILE CERT KEY RECORD

Anthropic: POST /v1/messages (JSON, or SSE when "stream" is set, as Claude Code
asks), /v1/messages/count_tokens, the OAuth token endpoint /v1/oauth/token
(answers with $MOCK_NEW_ACCESS / $MOCK_NEW_REFRESH) and /api/oauth/profile.
OpenAI: POST /v1/responses (SSE, what Codex speaks), /v1/chat/completions,
GET /v1/models. Everything else: an empty JSON object (200), so an agent's
side calls (telemetry, settings) do not fail it.

Each request is appended to RECORD as one JSON line: method, path, host,
headers, body (text). The reply text is "MOCK-REPLY".
"""
import http.server, json, os, socketserver, ssl, sys, threading, time

REPLY = "MOCK-REPLY"


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

    def record(self, body):
        with open(sys.argv[4], "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path,
                                "host": self.headers.get("Host", ""),
                                "headers": dict(self.headers.items()),
                                "body": body.decode("utf-8", "replace")}) + "\n")

    def send_json(self, code, obj):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def sse(self, events):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for name, data in events:
            chunk = ("event: %s\ndata: %s\n\n" % (name, json.dumps(data))).encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def anthropic(self, req):
        model = req.get("model", "claude-mock")
        usage = {"input_tokens": 10, "output_tokens": 3, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0}
        msg = {"id": "msg_mock", "type": "message", "role": "assistant", "model": model,
               "content": [{"type": "text", "text": REPLY}], "stop_reason": "end_turn",
               "stop_sequence": None, "usage": usage}
        if not req.get("stream"):
            return self.send_json(200, msg)
        start = dict(msg, content=[], stop_reason=None, usage=dict(usage, output_tokens=1))
        self.sse([
            ("message_start", {"type": "message_start", "message": start}),
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                     "delta": {"type": "text_delta", "text": REPLY}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta",
                               "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                               "usage": {"output_tokens": 3}}),
            ("message_stop", {"type": "message_stop"}),
        ])

    def openai_responses(self, req):
        rid, mid = "resp_mock", "msg_mock"
        item = {"type": "message", "id": mid, "status": "completed", "role": "assistant",
                "content": [{"type": "output_text", "text": REPLY, "annotations": []}]}
        resp = {"id": rid, "object": "response", "created_at": int(time.time()),
                "status": "in_progress", "model": req.get("model", "gpt-mock"), "output": []}
        done = dict(resp, status="completed", output=[item],
                    usage={"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                           "output_tokens": 3, "output_tokens_details": {"reasoning_tokens": 0},
                           "total_tokens": 13})
        self.sse([
            ("response.created", {"type": "response.created", "response": resp}),
            ("response.output_item.added", {"type": "response.output_item.added",
                                            "output_index": 0,
                                            "item": dict(item, status="in_progress", content=[])}),
            ("response.output_text.delta", {"type": "response.output_text.delta", "item_id": mid,
                                            "output_index": 0, "content_index": 0,
                                            "delta": REPLY}),
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0,
                                           "item": item}),
            ("response.completed", {"type": "response.completed", "response": done}),
        ])

    def chat(self, req):
        base = {"id": "chatcmpl-mock", "object": "chat.completion.chunk",
                "created": int(time.time()), "model": req.get("model", "gpt-mock")}
        if not req.get("stream"):
            return self.send_json(200, dict(base, object="chat.completion", choices=[
                {"index": 0, "message": {"role": "assistant", "content": REPLY},
                 "finish_reason": "stop"}]))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for ch in ({"delta": {"role": "assistant", "content": REPLY}, "finish_reason": None},
                   {"delta": {}, "finish_reason": "stop"}):
            chunk = ("data: %s\n\n" % json.dumps(dict(base, choices=[dict(ch, index=0)]))).encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        end = b"data: [DONE]\n\n"
        self.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(end), end))
        self.wfile.flush()

    def handle_any(self):
        body = self.body() if self.command in ("POST", "PUT", "PATCH") else b""
        self.record(body)
        try:
            req = json.loads(body) if body else {}
        except ValueError:
            req = {}
        path = self.path.split("?")[0]
        if path.endswith("/v1/messages") and self.command == "POST":
            return self.anthropic(req)
        if path.endswith("/v1/messages/count_tokens"):
            return self.send_json(200, {"input_tokens": 10})
        if path.endswith("/oauth/token") and self.command == "POST":
            return self.send_json(200, {"token_type": "Bearer",
                                        "access_token": os.environ.get("MOCK_NEW_ACCESS", ""),
                                        "refresh_token": os.environ.get("MOCK_NEW_REFRESH", ""),
                                        "expires_in": 28800,
                                        "scope": "user:inference user:profile"})
        if path.endswith("/api/oauth/profile"):
            return self.send_json(200, {"account": {"uuid": "00000000-0000-4000-8000-000000000001",
                                                    "email": "mock@example.test",
                                                    "display_name": "Mock"},
                                        "organization": {"uuid": "00000000-0000-4000-8000-000000000002",
                                                         "organization_type": "claude_max",
                                                         "rate_limit_tier": "default_claude_max_20x"}})
        if path.endswith("/v1/responses") and self.command == "POST":
            return self.openai_responses(req)
        if path.endswith("/chat/completions") and self.command == "POST":
            return self.chat(req)
        if path.endswith("/models"):
            return self.send_json(200, {"object": "list", "data": [], "models": []})
        self.send_json(200, {})

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
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
