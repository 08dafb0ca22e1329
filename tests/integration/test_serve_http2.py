"""`ringside serve` speaking HTTP/2: h2c with prior knowledge on --port, h2 by ALPN on --tls-port,
the same routes and answers as HTTP/1.1 (parked database requests answered on their own streams,
in whatever order), the limits its flags set, and --no-http2. Frames are read with python3-h2
(tests/integration/h2_client.py); h2load, curl and `ringside load --http2` check whole runs by
their counts."""
import json
import os
import re
import socket
import struct
import tempfile
import time
import unittest

import h2.errors
import h2.settings

from h2_client import H2Client
from ringside_testlib import Server, needs_tools, run_load, run_tool

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
EMPTY_SETTINGS = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def frame(frame_type, flags, stream_id, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([frame_type, flags]) + \
        struct.pack(">I", stream_id) + payload


# GET / on stream 1, HPACK from the static table alone: :method GET, :scheme http, :path /, then
# :authority "t" as a literal without indexing.
GET_ROOT = frame(0x1, 0x5, 1, b"\x82\x86\x84\x01\x01t")


def recv_until_closed(sock, limit=1 << 20):
    data = b""
    while len(data) < limit:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def recv_until_closed_or_goaway(sock):
    data = b""
    while not any(f[0] == 0x7 for f in frames_of(data)):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return frames_of(data)


def frames_of(data):
    """(type, flags, stream id, payload) of each whole frame in data."""
    out = []
    while len(data) >= 9:
        length = int.from_bytes(data[:3], "big")
        if len(data) < 9 + length:
            break
        stream_id = int.from_bytes(data[5:9], "big") & 0x7fffffff
        out.append((data[3], data[4], stream_id, data[9:9 + length]))
        data = data[9 + length:]
    return out


class H2cRoutes(unittest.TestCase):
    """The hello routes and the router's own answers, over h2c."""

    @classmethod
    def setUpClass(cls):
        cls.server = Server("--db", "none").__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)

    def test_hello_bytes_and_fields(self):
        with H2Client(self.server.port) as client:
            stream = client.get("/")
            self.assertEqual(stream.headers[":status"], "200")
            self.assertEqual(stream.body, b"Hello World!")
            self.assertEqual(stream.headers["content-length"], "12")
            self.assertEqual(stream.headers["content-type"], "text/plain")
            self.assertRegex(stream.headers["date"], r"^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$")
            json_stream = client.get("/json")
            self.assertEqual(json.loads(json_stream.body), {"message": "Hello, World!"})
            self.assertEqual(json_stream.headers["content-type"], "application/json")

    def test_head_has_length_and_no_body(self):
        with H2Client(self.server.port) as client:
            stream = client.get("/", method="HEAD")
            self.assertEqual(stream.headers[":status"], "200")
            self.assertEqual(stream.headers["content-length"], "12")
            self.assertEqual(stream.body, b"")

    def test_unknown_path_and_wrong_method(self):
        with H2Client(self.server.port) as client:
            self.assertEqual(client.get("/nope").headers[":status"], "404")
            wrong = client.get("/", method="POST", body=b"x" * 10)
            self.assertEqual(wrong.headers[":status"], "405")
            self.assertEqual(wrong.headers["allow"], "GET, HEAD")

    def test_many_streams_on_one_connection(self):
        with H2Client(self.server.port) as client:
            ids = [client.request("/plaintext") for _ in range(60)]
            client.wait(lambda: all(client.done(i) for i in ids), "60 answers")
            for i in ids:
                self.assertEqual(client.streams[i].headers[":status"], "200")
                self.assertEqual(client.streams[i].body, b"Hello, World!")

    def test_preface_in_pieces(self):
        # The preface split over several reads: the first bytes alone do not decide the protocol.
        with self.server.connect() as sock:
            for piece in (PREFACE[:3], PREFACE[3:11], PREFACE[11:], EMPTY_SETTINGS + GET_ROOT):
                sock.sendall(piece)
            sock.shutdown(socket.SHUT_WR)
            frames = frames_of(recv_until_closed(sock))
        data = [f for f in frames if f[0] == 0x0 and f[2] == 1]
        self.assertEqual(b"".join(f[3] for f in data), b"Hello World!")
        self.assertTrue(data[-1][1] & 0x1, "END_STREAM on the last DATA frame")

    def test_frame_on_stream_zero_is_a_connection_error(self):
        with self.server.connect() as sock:
            sock.sendall(PREFACE + EMPTY_SETTINGS + frame(0x0, 0x1, 0, b"oops"))
            frames = frames_of(recv_until_closed(sock))
        goaways = [f for f in frames if f[0] == 0x7]
        self.assertEqual(len(goaways), 1, frames)
        self.assertEqual(int.from_bytes(goaways[0][3][4:8], "big"), h2.errors.ErrorCodes.PROTOCOL_ERROR)
        # And the server is still there for the next client.
        with H2Client(self.server.port) as client:
            self.assertEqual(client.get("/").headers[":status"], "200")

    def test_http11_still_served_on_the_same_port(self):
        with self.server.connect() as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            response = recv_until_closed(sock)
        self.assertTrue(response.startswith(b"HTTP/1.1 200 OK\r\n"), response)
        self.assertTrue(response.endswith(b"Hello World!"))


class H2Limits(unittest.TestCase):
    def test_settings_say_the_limits(self):
        with Server("--db", "none", "--h2-max-streams", "7", "--h2-max-header-list", "4096",
                    "--h2-initial-window", "100000") as server, H2Client(server.port) as client:
            client.get("/")
            self.assertEqual(client.remote_settings[h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS], 7)
            self.assertEqual(client.remote_settings[h2.settings.SettingCodes.MAX_HEADER_LIST_SIZE], 4096)
            self.assertEqual(client.remote_settings[h2.settings.SettingCodes.INITIAL_WINDOW_SIZE], 100000)

    def test_streams_beyond_the_limit_are_refused(self):
        with Server("--db", "none", "--h2-max-streams", "4") as server, \
                H2Client(server.port) as client:
            # Six at once, before the server's SETTINGS can have reached the client.
            ids = [client.request("/", flush=False) for _ in range(6)]
            client.flush()
            client.wait(lambda: all(client.done(i) for i in ids), "six streams ended")
            answered = [i for i in ids if client.streams[i].ended]
            refused = [i for i in ids if client.streams[i].reset == h2.errors.ErrorCodes.REFUSED_STREAM]
            self.assertEqual((len(answered), len(refused)), (4, 2))
            # Refused streams were never processed: a new one is answered.
            self.assertEqual(client.get("/").headers[":status"], "200")

    def test_fields_over_the_limit_get_431(self):
        with Server("--db", "none", "--h2-max-header-list", "2048") as server, \
                H2Client(server.port) as client:
            big = client.get("/", headers=[("x-big", "a" * 3000)])
            self.assertEqual(big.headers[":status"], "431")
            self.assertEqual(client.get("/").headers[":status"], "200")

    def test_server_side_resets_spend_the_budget_too(self):
        # MadeYouReset: a request whose header block holds an upper-case field name is malformed
        # (RFC 9113 section 8.2.1), a stream error, so the server resets that stream; repeated, the
        # server's own resets end the connection as the client's would.
        with Server("--db", "none", "--h2-reset-burst", "10", "--h2-reset-rate", "1") as server:
            with server.connect() as sock:
                sock.sendall(PREFACE + EMPTY_SETTINGS)
                stream = 1
                attack = b""
                for _ in range(40):
                    # GET / with a literal field "X: y" (a new name, not indexed).
                    attack += frame(0x1, 0x5, stream, b"\x82\x86\x84\x01\x01t\x00\x01X\x01y")
                    stream += 2
                try:
                    sock.sendall(attack)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                frames = frames_of(recv_until_closed(sock))
            resets = [f for f in frames if f[0] == 0x3]
            goaways = [f for f in frames if f[0] == 0x7]
            self.assertGreaterEqual(len(resets), 10, frames)
            self.assertEqual(len(goaways), 1, frames)
            self.assertEqual(int.from_bytes(goaways[0][3][4:8], "big"),
                             h2.errors.ErrorCodes.ENHANCE_YOUR_CALM)
            with H2Client(server.port) as client:
                self.assertEqual(client.get("/").headers[":status"], "200")

    def test_empty_data_frames_spend_the_budget(self):
        # Zero-length DATA frames on an open stream, none ending it: each costs a frame's work
        # and carries nothing (CVE-2019-9518).
        with Server("--db", "none", "--h2-reset-burst", "10", "--h2-reset-rate", "1") as server:
            with server.connect() as sock:
                attack = PREFACE + EMPTY_SETTINGS + frame(0x1, 0x4, 1, b"\x83\x86\x84\x01\x01t")
                attack += frame(0x0, 0x0, 1) * 100
                try:
                    sock.sendall(attack)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                frames = frames_of(recv_until_closed(sock))
            goaways = [f for f in frames if f[0] == 0x7]
            self.assertEqual(len(goaways), 1, frames)
            self.assertEqual(int.from_bytes(goaways[0][3][4:8], "big"),
                             h2.errors.ErrorCodes.ENHANCE_YOUR_CALM)

    def test_head_gets_no_body_even_in_an_error(self):
        with Server("--db", "none", "--h2-max-header-list", "2048") as server, \
                H2Client(server.port) as client:
            big = client.get("/", method="HEAD", headers=[("x-big", "a" * 3000)])
            self.assertEqual(big.headers[":status"], "431")
            self.assertEqual(big.body, b"")
            self.assertNotEqual(big.headers["content-length"], "0")

    def test_body_over_max_body_gets_413(self):
        with Server("--db", "none", "--max-body", "100") as server, H2Client(server.port) as client:
            stream = client.get("/", method="POST", body=b"x" * 1000)
            self.assertEqual(stream.headers[":status"], "413")
            self.assertEqual(client.get("/").headers[":status"], "200")

    def test_rapid_reset_ends_the_connection(self):
        with Server("--db", "none", "--h2-reset-burst", "10", "--h2-reset-rate", "1") as server:
            with H2Client(server.port) as client:
                for _ in range(200):
                    stream_id = client.request("/", flush=False)
                    client.conn.reset_stream(stream_id)
                client.flush()
                client.wait(lambda: client.goaway is not None, "GOAWAY")
                self.assertEqual(client.goaway[0], h2.errors.ErrorCodes.ENHANCE_YOUR_CALM)
            with H2Client(server.port) as client:
                self.assertEqual(client.get("/").headers[":status"], "200")


# SETTINGS with SETTINGS_INITIAL_WINDOW_SIZE (0x4) = 0: no stream may be sent a DATA byte until
# the client opens its window.
WINDOW_ZERO_SETTINGS = frame(0x4, 0x0, 0, struct.pack(">HI", 0x4, 0))
PACE_S = 0.2  # between the client's frames: 5 a second, well within the budget's 33


class HeldAnswers(unittest.TestCase):
    """An answer the client's flow-control window holds back: the idle clock runs from the last
    body byte let through, whatever else the client sends (RFC 9113 leaves the policy to the
    server; without it, PINGs within budget would hold a stream's buffers for ever)."""

    def exchange(self, server, each_turn, limit_s=15.0):
        """Opens h2c with window 0 and asks GET /; then, every PACE_S, sends each_turn(the frames
        read so far) until it says None, the server closes, or limit_s: returns the frames."""
        with server.connect() as sock:
            sock.sendall(PREFACE + WINDOW_ZERO_SETTINGS + GET_ROOT)
            data = b""
            now = time.monotonic()
            deadline, next_turn = now + limit_s, now + PACE_S
            while now < deadline:
                if now >= next_turn:
                    out = each_turn(frames_of(data))
                    if out is None:
                        break
                    try:
                        sock.sendall(out)
                    except (BrokenPipeError, ConnectionResetError):
                        break
                    next_turn += PACE_S
                sock.settimeout(max(next_turn - time.monotonic(), 0.001))
                try:
                    chunk = sock.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                except socket.timeout:
                    pass
                now = time.monotonic()
            return frames_of(data)

    def test_a_window_never_opened_is_timed_out_however_much_the_client_pings(self):
        with Server("--db", "none", "--idle-timeout", "1") as server:
            frames = self.exchange(server, lambda _: frame(0x6, 0x0, 0, b"p" * 8))
            heads = [f for f in frames if f[0] == 0x1 and f[2] == 1]
            pongs = [f for f in frames if f[0] == 0x6 and f[1] & 0x1]
            goaways = [f for f in frames if f[0] == 0x7]
            self.assertEqual(len(heads), 1, frames)
            self.assertFalse([f for f in frames if f[0] == 0x0 and f[3]], "no body byte went out")
            self.assertGreaterEqual(len(pongs), 2, "the client was heard all along")
            self.assertEqual(len(goaways), 1, f"the connection was not ended: {frames}")
            self.assertEqual(int.from_bytes(goaways[0][3][4:8], "big"), h2.errors.ErrorCodes.NO_ERROR)
            with H2Client(server.port) as client:
                self.assertEqual(client.get("/").headers[":status"], "200")

    def test_a_window_opened_a_byte_at_a_time_gets_the_whole_body(self):
        # One byte of window every PACE_S: the body takes longer than --idle-timeout, but every
        # byte let through starts the clock again.
        with Server("--db", "none", "--idle-timeout", "1") as server:
            with H2Client(server.port) as client:
                expected = client.get("/").body
            self.assertGreater(len(expected) * PACE_S, 1.5, "the body must outlast the timeout")

            def body(frames):
                return b"".join(f[3] for f in frames if f[0] == 0x0 and f[2] == 1)

            def one_more_byte(frames):
                if len(body(frames)) == len(expected):
                    return None
                return frame(0x8, 0x0, 1, struct.pack(">I", 1))

            frames = self.exchange(server, one_more_byte)
            self.assertEqual(body(frames), expected)
            self.assertFalse([f for f in frames if f[0] == 0x7], f"ended early: {frames}")


class StreamIds(unittest.TestCase):
    """RFC 9113 section 5.1.1 (nghttp2 1.52 alone ignores a HEADERS on a lower stream id)."""

    def read_frames_until(self, sock, done):
        data = b""
        while not done(frames_of(data)):
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
        return frames_of(data)

    def test_a_stream_id_going_down_is_a_connection_error(self):
        with Server("--db", "none") as server, server.connect() as sock:
            sock.sendall(PREFACE + EMPTY_SETTINGS + frame(0x1, 0x5, 5, b"\x82\x86\x84\x01\x01t")
                         + frame(0x1, 0x5, 3, b"\x82\x86\x84\x01\x01t"))
            frames = recv_until_closed_or_goaway(sock)
            goaways = [f for f in frames if f[0] == 0x7]
            self.assertEqual(len(goaways), 1, frames)
            self.assertEqual(int.from_bytes(goaways[0][3][4:8], "big"),
                             h2.errors.ErrorCodes.PROTOCOL_ERROR)

    def test_trailers_on_a_stream_the_server_reset_are_ignored(self):
        # POST / with a body over --max-body: 413, then RST_STREAM NO_ERROR. Trailers the client
        # sends on that stream afterwards are late frames on a stream the server reset (section
        # 5.1: ignored), not a stream id going down.
        with Server("--db", "none", "--max-body", "16") as server, server.connect() as sock:
            post = frame(0x1, 0x4, 1, b"\x83\x86\x84\x01\x01t")
            sock.sendall(PREFACE + EMPTY_SETTINGS + post + frame(0x0, 0x0, 1, b"b" * 100))
            frames = self.read_frames_until(
                sock, lambda got: any(f[0] == 0x3 and f[2] == 1 for f in got))
            self.assertIn((0x3, 1), [(f[0], f[2]) for f in frames], frames)
            trailers = frame(0x1, 0x5, 1, b"\x00\x03x-t\x011")
            sock.sendall(trailers + frame(0x1, 0x5, 3, b"\x82\x86\x84\x01\x01t"))
            frames = self.read_frames_until(
                sock, lambda got: any(f[0] in (0x1, 0x7) and f[2] in (0, 3) for f in got))
            self.assertFalse([f for f in frames if f[0] == 0x7], frames)
            heads = [f for f in frames if f[0] == 0x1 and f[2] == 3]
            self.assertEqual(len(heads), 1, frames)
            self.assertEqual(heads[0][3][:1], b"\x88", "GET / on stream 3: :status 200")


class ParkedRequests(unittest.TestCase):
    def test_database_answers_on_their_own_streams(self):
        with tempfile.TemporaryDirectory() as folder:
            with Server("--db", f"sqlite:{os.path.join(folder, 'h2.db')}") as server, \
                    H2Client(server.port) as client:
                ids = {client.request(f"/users/{n}"): n for n in range(1, 41)}
                client.wait(lambda: all(client.done(i) for i in ids), "40 users")
                for stream_id, n in ids.items():
                    stream = client.streams[stream_id]
                    self.assertEqual(stream.headers[":status"], "200")
                    self.assertEqual(json.loads(stream.body)["id"], n)
                    self.assertEqual(int(stream.headers["content-length"]), len(stream.body))

    @needs_tools("h2load")
    def test_h2load_counts(self):
        with tempfile.TemporaryDirectory() as folder:
            with Server("--db", f"sqlite:{os.path.join(folder, 'h2.db')}") as server:
                for path, total in (("/", 20000), ("/users/5", 4000)):
                    code, out = run_tool(["h2load", "-c", "4", "-m", "20", "-n", str(total),
                                          server.url(path)], timeout=120)
                    self.assertEqual(code, 0, out)
                    self.assertIn(f"requests: {total} total, {total} started, {total} done, "
                                  f"{total} succeeded, 0 failed", out)
                    self.assertIn(f"status codes: {total} 2xx", out)


class RingsideLoad(unittest.TestCase):
    def test_load_http2_against_serve(self):
        with Server("--db", "none") as server:
            result = run_load("--http2", "--streams", "10", "-c", "4", "-n", "5000", server.url("/"))
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(result.doc["requests"]["completed"], 5000)
            self.assertEqual(result.doc["status"]["codes"], {"200": 5000})
            self.assertEqual(result.doc["config"]["protocol"], "h2c")


@needs_tools("curl")
class Tls(unittest.TestCase):
    def test_alpn_picks_h2_and_still_speaks_http11(self):
        with Server("--db", "none", "--tls-port", "0", "--tls-self-signed") as server:
            url = server.https_url("/json")
            code, out = run_tool(["curl", "-sk", "--http2", "-w", "|%{http_version}", url])
            self.assertEqual((code, out), (0, '{"message":"Hello, World!"}|2'))
            code, out = run_tool(["curl", "-sk", "--http1.1", "-w", "|%{http_version}", url])
            self.assertEqual((code, out), (0, '{"message":"Hello, World!"}|1.1'))

    def test_no_http2(self):
        with Server("--db", "none", "--no-http2", "--tls-port", "0", "--tls-self-signed") as server:
            self.assertNotIn(b"HTTP/2", server.startup_output)
            code, out = run_tool(["curl", "-sk", "--http2", "-w", "|%{http_version}",
                                  server.https_url("/")])
            self.assertEqual((code, out), (0, "Hello World!|1.1"))
            # The preface is then just a bad HTTP/1.1 request.
            with server.connect() as sock:
                sock.sendall(PREFACE + EMPTY_SETTINGS + GET_ROOT)
                response = recv_until_closed(sock)
            self.assertRegex(response, rb"^HTTP/1.1 (400|505) ")


if __name__ == "__main__":
    unittest.main()
