"""A contestant that misbehaves on demand, for testing contestants/check.py itself.

    PORT=N FAKE_MODE=MODE python3 fake_contestant.py

MODE: ok (serves / and /json correctly), no-date (no Date header), bad-json (/json's body is not
the expected object), close (Connection: close on every response), deaf (ignores SIGTERM),
orphan (on SIGTERM exits but leaves a child process in its group running).
"""
import json
import os
import signal
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = os.environ.get("FAKE_MODE", "ok")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        if self.path == "/":
            body, kind = b"Hello World!", "text/plain"
        elif self.path == "/json":
            message = "Hello, World?" if MODE == "bad-json" else "Hello, World!"
            body, kind = json.dumps({"message": message}).encode(), "application/json"
        else:
            body, kind = b"no route\n", "text/plain"
        self.send_response_only(200 if body != b"no route\n" else 404)
        if MODE != "no-date":
            self.send_header("Date", self.date_time_string())
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        if MODE == "close":
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def main():
    server = ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler)
    server.daemon_threads = True
    if MODE == "deaf":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    elif MODE == "orphan":
        child = [sys.executable, "-c", "import time; time.sleep(120)"]
        subprocess.Popen(child)  # same process group, never waited for

        def leave(*_):
            os._exit(0)
        signal.signal(signal.SIGTERM, leave)
    server.serve_forever()


if __name__ == "__main__":
    main()
