#!/usr/bin/env python3
"""A mock of the model APIs the agent CLIs call, on HTTPS on 127.0.0.1, for
tests/agents/agents.sh: every answer is the text REPLY (default MOCK-OK).

Usage: mock_api.py PORTFILE CERT KEY LOG [REPLY]
Writes the port to PORTFILE once it listens; appends "METHOD PATH" of every
request to LOG.

  Anthropic  POST /v1/messages (SSE when "stream": true), /v1/messages/count_tokens
  OpenAI     POST /v1/responses (SSE), /v1/chat/completions (SSE when "stream")
  Gemini     POST /v1beta/models/M:generateContent, :streamGenerateContent (?alt=sse)
  any        GET /v1/models (a short list), anything else: 404
"""
import http.server, json, os, socketserver, ssl, sys, time, uuid

REPLY = sys.argv[5] if len(sys.argv) > 5 else "MOCK-OK"
LOG = sys.argv[4]


def sse(events):
    out = []
    for name, data in events:
        if name:
            out.append("event: %s\n" % name)
        out.append("data: %s\n\n" % (data if isinstance(data, str) else json.dumps(data)))
    return "".join(out).encode()


def anthropic_stream(model):
    mid = "msg_" + uuid.uuid4().hex[:20]
    usage = {"input_tokens": 10, "output_tokens": 0}
    return sse([
        ("message_start", {"type": "message_start", "message": {
            "id": mid, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": usage}}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
        ("ping", {"type": "ping"}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": REPLY}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta",
                           "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                           "usage": {"output_tokens": 3}}),
        ("message_stop", {"type": "message_stop"}),
    ])


def anthropic_message(model):
    return {"id": "msg_" + uuid.uuid4().hex[:20], "type": "message", "role": "assistant",
            "model": model, "content": [{"type": "text", "text": REPLY}],
            "stop_reason": "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 3}}


def responses_stream(model):
    rid = "resp_" + uuid.uuid4().hex[:20]
    iid = "msg_" + uuid.uuid4().hex[:20]
    now = int(time.time())
    item = {"type": "message", "id": iid, "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": REPLY, "annotations": []}]}
    base = {"id": rid, "object": "response", "created_at": now, "model": model,
            "output": [], "status": "in_progress"}
    done = dict(base, status="completed", output=[item],
                usage={"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                       "output_tokens": 3, "output_tokens_details": {"reasoning_tokens": 0},
                       "total_tokens": 13})
    return sse([
        ("response.created", {"type": "response.created", "sequence_number": 0, "response": base}),
        ("response.in_progress", {"type": "response.in_progress", "sequence_number": 1,
                                  "response": base}),
        ("response.output_item.added", {"type": "response.output_item.added", "sequence_number": 2,
                                        "output_index": 0, "item": dict(item, status="in_progress",
                                                                        content=[])}),
        ("response.content_part.added", {"type": "response.content_part.added",
                                         "sequence_number": 3, "item_id": iid, "output_index": 0,
                                         "content_index": 0,
                                         "part": {"type": "output_text", "text": "",
                                                  "annotations": []}}),
        ("response.output_text.delta", {"type": "response.output_text.delta", "sequence_number": 4,
                                        "item_id": iid, "output_index": 0, "content_index": 0,
                                        "delta": REPLY}),
        ("response.output_text.done", {"type": "response.output_text.done", "sequence_number": 5,
                                       "item_id": iid, "output_index": 0, "content_index": 0,
                                       "text": REPLY}),
        ("response.content_part.done", {"type": "response.content_part.done",
                                        "sequence_number": 6, "item_id": iid, "output_index": 0,
                                        "content_index": 0,
                                        "part": {"type": "output_text", "text": REPLY,
                                                 "annotations": []}}),
        ("response.output_item.done", {"type": "response.output_item.done", "sequence_number": 7,
                                       "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed", "sequence_number": 8,
                                "response": done}),
    ])


def chat_stream(model):
    cid = "chatcmpl-" + uuid.uuid4().hex[:20]
    now = int(time.time())

    def chunk(delta, finish=None, usage=None):
        c = {"id": cid, "object": "chat.completion.chunk", "created": now, "model": model,
             "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        if usage:
            c["usage"] = usage
        return (None, c)
    return sse([chunk({"role": "assistant", "content": ""}), chunk({"content": REPLY}),
                chunk({}, "stop", {"prompt_tokens": 10, "completion_tokens": 3,
                                   "total_tokens": 13}),
                (None, "[DONE]")])


def chat_message(model):
    return {"id": "chatcmpl-" + uuid.uuid4().hex[:20], "object": "chat.completion",
            "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": REPLY},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}}


def fake_json(schema):
    """A value of the JSON schema's shape (Gemini's router asks for one)."""
    t = str(schema.get("type", "string")).lower()
    if t == "object":
        props = schema.get("properties", {})
        return {k: fake_json(v) for k, v in props.items()}
    if t == "array":
        return [fake_json(schema.get("items", {}))]
    if t in ("integer", "number"):
        return 10
    if t == "boolean":
        return False
    if "enum" in schema:
        return schema["enum"][0]
    return "mock"


def gemini_response(req=None):
    gc = (req or {}).get("generationConfig") or {}
    schema = gc.get("responseJsonSchema") or gc.get("responseSchema")
    text = json.dumps(fake_json(schema)) if gc.get("responseMimeType") == "application/json" \
        and schema else REPLY
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 3,
                              "totalTokenCount": 13},
            "modelVersion": "gemini-mock"}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def note(self):
        with open(LOG, "a") as f:
            f.write("%s %s\n" % (self.command, self.path.split("?")[0]))

    def send(self, code, body, ctype="application/json", close=False):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if close:
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    break
                data += self.rfile.read(size)
                self.rfile.readline()
        else:
            data = self.rfile.read(n) if n else b""
        try:
            return json.loads(data or b"{}")
        except ValueError:
            return {}

    def do_GET(self):
        self.note()
        path = self.path.split("?")[0]
        if path.endswith("/models"):
            self.send(200, {"object": "list", "data": [
                {"id": "mock-model", "object": "model", "created": 0, "owned_by": "mock",
                 "type": "model", "display_name": "Mock"}], "has_more": False,
                "models": [{"name": "models/gemini-mock", "supportedGenerationMethods":
                            ["generateContent"]}]})
        else:
            self.send(404, {"error": {"message": "not found: " + path}})

    def do_HEAD(self):
        self.note()
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        self.note()
        path = self.path.split("?")[0]
        req = self.body()
        if os.environ.get("MOCK_BODIES"):
            with open(os.environ["MOCK_BODIES"], "a") as f:
                f.write(self.path + " " + json.dumps(req) + "\n")
        model = req.get("model", "mock-model") if isinstance(req, dict) else "mock-model"
        stream = isinstance(req, dict) and req.get("stream")
        if path.endswith("/messages/count_tokens"):
            self.send(200, {"input_tokens": 10})
        elif path.endswith("/messages"):
            if stream:
                self.send(200, anthropic_stream(model), "text/event-stream")
            else:
                self.send(200, anthropic_message(model))
        elif path.endswith("/responses"):
            self.send(200, responses_stream(model), "text/event-stream")
        elif path.endswith("/chat/completions"):
            if stream:
                self.send(200, chat_stream(model), "text/event-stream")
            else:
                self.send(200, chat_message(model))
        elif ":streamGenerateContent" in path:
            self.send(200, sse([(None, gemini_response(req))]), "text/event-stream")
        elif ":generateContent" in path:
            self.send(200, gemini_response(req))
        elif ":countTokens" in path:
            self.send(200, {"totalTokens": 10})
        else:
            self.send(404, {"error": {"message": "not found: " + path}})


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    srv = Server(("127.0.0.1", 0), Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[2], sys.argv[3])
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    srv.serve_forever()


if __name__ == "__main__":
    main()
