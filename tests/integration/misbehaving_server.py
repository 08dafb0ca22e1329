"""A deliberately bad HTTP server for testing `ringside load`'s error accounting.

Modes (one per server): ok (a good keep-alive server), reset (reads a request, answers with a TCP
reset), silent (reads requests, never answers), garbage (answers with bytes that are not HTTP),
close (reads a request and closes without answering), close_each (answers, then closes),
stall_once (answers at once, except that one period of `stall_seconds`, starting after
`stall_after` requests, answers nothing; then catches up), until_close (answers HTTP/1.0 with no
Content-Length, the body ending where the server closes), short_body (promises a longer body than
it sends, then closes).

until_close and short_body put their last bytes and their FIN in one TCP segment, so the client
learns of both from one readiness event: a client that takes a short read to mean "drained" never
sees the close (issue 6, defect 1).

Modes for the torture suite's hostile-servers attack (tests/torture): half_head (half a response
head, then a close), endless_head (header lines that never end), endless_chunked (a chunked body
whose chunks never end), endless_length (a Content-Length of a terabyte, streamed slowly),
endless_until_close (an HTTP/1.0 body framed by a close that never comes), accept_ten (a good
server that accepts 10 connections, then never calls accept again, its listen queue small). The
endless ones send a kilobyte every STREAM_PAUSE_S, so they stay cheap for as long as the client
keeps reading (endless_head starts with 72 KiB, then 8 KiB a pause).

`python3 misbehaving_server.py MODE` serves one mode until killed, after printing `port N`.
"""
import socket
import struct
import threading
import time

from ringside_testlib import send_then_fin

RESPONSE = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok"
CLOSE_RESPONSE = (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n"
                  b"Content-Type: text/plain\r\n\r\nok")
UNTIL_CLOSE_RESPONSE = (b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n"
                        b"the body ends at the close")
SHORT_BODY_RESPONSE = (b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\nContent-Type: text/plain\r\n\r\n"
                       b"only this")
HALF_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: text/pl"
STREAM_PAUSE_S = 0.01
ACCEPTED_BEFORE_STALL = 10
STALLED_BACKLOG = 4
PAD_LINE = b"X-Pad: " + b"p" * 1015 + b"\r\n"  # a 1 KiB header line
# What an endless mode sends first, then what it repeats for as long as the client reads.
ENDLESS = {
    # 72 KiB at once, past the client's 64 KiB cap on a head however slow the machine, then more.
    "endless_head": (b"HTTP/1.1 200 OK\r\n" + PAD_LINE * 72, PAD_LINE * 8),
    "endless_chunked": (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
                        b"400\r\n" + b"c" * 1024 + b"\r\n"),
    "endless_length": (b"HTTP/1.1 200 OK\r\nContent-Length: 1000000000000\r\n\r\n", b"l" * 1024),
    "endless_until_close": (b"HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n", b"u" * 1024),
}


class MisbehavingServer:
    def __init__(self, mode, stall_after=0, stall_seconds=0.0):
        self.mode, self.stall_after, self.stall_seconds = mode, stall_after, stall_seconds
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(STALLED_BACKLOG if mode == "accept_ten" else 1024)
        self.port = self.listener.getsockname()[1]
        self.requests = 0
        self.lock = threading.Lock()
        self.stall_until = None
        self.closing = False

    def __enter__(self):
        threading.Thread(target=self._accept, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.closing = True
        self.listener.close()

    def url(self, path="/"):
        return f"http://127.0.0.1:{self.port}{path}"

    def _accept(self):
        accepted = 0
        while not self.closing:
            if self.mode == "accept_ten" and accepted == ACCEPTED_BEFORE_STALL:
                return  # the listener stays open: connects queue until its backlog is full
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            accepted += 1
            threading.Thread(target=self._serve, args=(sock,), daemon=True).start()

    def _count(self):
        with self.lock:
            self.requests += 1
            if self.mode == "stall_once" and self.requests == self.stall_after:
                self.stall_until = time.monotonic() + self.stall_seconds
            return self.stall_until

    def _serve(self, sock):
        buffer = b""
        with sock:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            while True:
                while b"\r\n\r\n" not in buffer:
                    try:
                        chunk = sock.recv(65536)
                    except OSError:
                        return
                    if not chunk:
                        return
                    buffer += chunk
                _, _, buffer = buffer.partition(b"\r\n\r\n")
                stall_until = self._count()
                if self.mode == "reset":
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    return
                if self.mode == "silent":
                    continue
                if self.mode == "close":
                    return
                if self.mode == "garbage":
                    sock.sendall(b"this is not HTTP\r\n\r\n")
                    continue
                if self.mode == "half_head":
                    send_then_fin(sock, HALF_HEAD)
                    return
                if self.mode in ENDLESS:
                    self._stream(sock, *ENDLESS[self.mode])
                    return
                if self.mode == "close_each":
                    sock.sendall(CLOSE_RESPONSE)
                    return
                if self.mode in ("until_close", "short_body"):
                    try:
                        send_then_fin(sock, UNTIL_CLOSE_RESPONSE if self.mode == "until_close"
                                      else SHORT_BODY_RESPONSE)
                    except OSError:
                        pass
                    return
                if stall_until is not None:
                    delay = stall_until - time.monotonic()
                    if delay > 0:
                        time.sleep(delay)
                try:
                    sock.sendall(RESPONSE)
                except OSError:
                    return

    def _stream(self, sock, first, repeated):
        """Sends `first`, then `repeated` every STREAM_PAUSE_S until the client goes away."""
        try:
            sock.sendall(first)
            while not self.closing:
                sock.sendall(repeated)
                time.sleep(STREAM_PAUSE_S)
        except OSError:
            pass


def main():
    """Serves one mode until killed; prints `port N` once listening (a child process of the torture
    suite, which reads the port from its output)."""
    import sys
    with MisbehavingServer(sys.argv[1]) as server:
        print(f"port {server.port}", flush=True)
        threading.Event().wait()


if __name__ == "__main__":
    main()
