"""@NAME@: a contestant for `ringside compare`, in Python's standard library alone. It answers
GET / with "Hello World!" and GET /json with {"message":"Hello, World!"} (serialised per
request), on HOST:PORT from the environment, the way ringside's checks expect (contestant.toml
says how it is started).

Written to be measured fairly, which the stock http.server is not:
- TCP_NODELAY on every connection: without it the body, written after the head, waits for the
  client's delayed ACK (Nagle's algorithm), 40 ms a request;
- the head and the body leave in one write (a write buffer), and HTTP/1.1 keeps connections open;
- a listen backlog of 4096 (the stock one is 5: at 100 connections most wait or are refused);
- no log line per request (logging to a terminal costs more than the answer).
"""
import http.server
import json
import os
import signal
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    wbufsize = 64 * 1024

    def answer(self, status, content_type, body):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def do_GET(self):
        if self.path == "/":
            self.answer(200, "text/plain", b"Hello World!")
        elif self.path == "/json":
            body = json.dumps({"message": "Hello, World!"}, separators=(",", ":")).encode()
            self.answer(200, "application/json", body)
        else:
            self.answer(404, "application/json", b'{"error":"not found"}')

    def log_message(self, format, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    request_queue_size = 4096
    daemon_threads = True


def main():
    server = Server((os.environ.get("HOST", "127.0.0.1"), int(os.environ.get("PORT", "8080"))), Handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        server.serve_forever()
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
