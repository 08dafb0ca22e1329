"""HTTP/1.1 behaviour of `ringside serve` over raw sockets: routes, headers, keep-alive rules,
pipelining, request bodies and Expect: 100-continue."""
import json
import re
import unittest

from ringside_testlib import ResponseReader, Server, get, wait_until

IMF_FIXDATE = re.compile(r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep"
                         r"|Oct|Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT$")


class HttpTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server("--max-body", "1000").__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)

    def exchange(self, *requests, head=False):
        with self.server.connect() as sock:
            sock.sendall(b"".join(requests))
            reader = ResponseReader(sock)
            return [reader.next(head_request=head) for _ in requests]

    def test_routes_answer_with_the_documented_bodies(self):
        cases = [("/", "text/plain", b"Hello World!"),
                 ("/plaintext", "text/plain", b"Hello, World!"),
                 ("/json", "application/json", b'{"message":"Hello, World!"}'),
                 ("/health", "text/plain", b"ok\n"),
                 ("/?query=ignored", "text/plain", b"Hello World!")]
        for path, content_type, body in cases:
            with self.subTest(path=path):
                (response,) = self.exchange(get(path))
                self.assertEqual(response.status, 200)
                self.assertEqual(response.body, body)
                self.assertEqual(response.header("content-type"), content_type)
                self.assertEqual(response.header("content-length"), str(len(body)))
        (response,) = self.exchange(get("/json"))
        self.assertEqual(json.loads(response.body), {"message": "Hello, World!"})

    def test_absolute_form_target_is_served_like_its_path(self):
        # RFC 9112 section 3.2.2: a server MUST accept an absolute-form target (nginx answers 200).
        port = self.server.port
        cases = [(f"http://127.0.0.1:{port}/", b"Hello World!"),
                 (f"http://127.0.0.1:{port}", b"Hello World!"),  # an empty path means "/"
                 (f"HTTP://localhost:{port}/plaintext?x=1", b"Hello, World!")]
        for target, body in cases:
            with self.subTest(target=target):
                request = f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
                # Pipelined with an origin-form request: the connection stays in step.
                first, second = self.exchange(request, get("/json"))
                self.assertEqual(first.status, 200, first.raw[:200])
                self.assertEqual(first.body, body)
                self.assertEqual(second.status, 200)

    def test_every_response_has_server_date_type_and_length(self):
        for request in (get("/"), get("/missing"), b"DELETE / HTTP/1.1\r\nHost: x\r\n\r\n"):
            (response,) = self.exchange(request)
            self.assertEqual(response.header("server"), "ringside")
            self.assertRegex(response.header("date"), IMF_FIXDATE)
            self.assertIsNotNone(response.header("content-type"))
            self.assertEqual(int(response.header("content-length")), len(response.body))

    def test_date_header_changes_as_time_passes(self):
        first = self.exchange(get("/"))[0].header("date")
        changed = wait_until(lambda: self.exchange(get("/"))[0].header("date") != first, timeout=3.0,
                             interval=0.1)
        self.assertTrue(changed, "Date stayed the same for 3 s")

    def test_unknown_path_is_404_and_wrong_method_is_405_with_allow(self):
        (missing,) = self.exchange(get("/nope"))
        self.assertEqual(missing.status, 404)
        self.assertTrue(missing.body)
        (wrong,) = self.exchange(b"POST /json HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        self.assertEqual(wrong.status, 405)
        self.assertEqual(wrong.header("allow"), "GET, HEAD")

    def test_head_sends_headers_with_the_get_length_and_no_body(self):
        with self.server.connect() as sock:
            sock.sendall(b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n" + get("/plaintext"))
            reader = ResponseReader(sock)
            head = reader.next(head_request=True)
            self.assertEqual(head.status, 200)
            self.assertEqual(head.header("content-length"), "12")
            self.assertEqual(head.body, b"")
            # The next bytes are the next response, proving HEAD sent no body.
            self.assertEqual(reader.next().body, b"Hello, World!")

    def test_sixteen_pipelined_requests_in_one_write_are_answered_in_order(self):
        paths = ["/", "/plaintext", "/json", "/health"] * 4
        responses = self.exchange(*[get(p) for p in paths])
        expected = {"/": b"Hello World!", "/plaintext": b"Hello, World!",
                    "/json": b'{"message":"Hello, World!"}', "/health": b"ok\n"}
        self.assertEqual([r.body for r in responses], [expected[p] for p in paths])

    def test_http10_closes_by_default_and_keeps_alive_when_asked(self):
        with self.server.connect() as sock:
            sock.sendall(b"GET / HTTP/1.0\r\n\r\n")
            reader = ResponseReader(sock)
            response = reader.next()
            self.assertEqual(response.header("connection"), "close")
            self.assertTrue(reader.closed_within(5))
        with self.server.connect() as sock:
            reader = ResponseReader(sock)
            for _ in range(3):
                sock.sendall(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                response = reader.next()
                self.assertEqual(response.status, 200)
                self.assertEqual(response.header("connection"), "keep-alive")

    def test_connection_close_answers_then_closes_and_ignores_what_follows(self):
        with self.server.connect() as sock:
            sock.sendall(get("/", extra="Connection: close\r\n") + get("/json"))
            reader = ResponseReader(sock)
            self.assertEqual(reader.next().header("connection"), "close")
            self.assertTrue(reader.closed_within(5))
            self.assertEqual(reader.buffer, b"")

    def test_content_length_body_is_consumed_and_the_connection_stays_in_sync(self):
        body = b"x" * 600
        post = b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 600\r\n\r\n" + body
        responses = self.exchange(post, get("/plaintext"))
        self.assertEqual([r.status for r in responses], [405, 200])
        self.assertEqual(responses[1].body, b"Hello, World!")

    def test_chunked_body_is_decoded_and_the_connection_stays_in_sync(self):
        post = (b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                b"5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: yes\r\n\r\n")
        responses = self.exchange(post, get("/plaintext"))
        self.assertEqual([r.status for r in responses], [405, 200])

    def test_body_split_across_many_writes(self):
        with self.server.connect() as sock:
            reader = ResponseReader(sock)
            sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            for part in (b"3\r\n", b"abc", b"\r\n", b"0\r\n", b"\r\n"):
                sock.sendall(part)
            self.assertEqual(reader.next().status, 405)
            sock.sendall(get("/"))
            self.assertEqual(reader.next().status, 200)

    def test_expect_100_continue_gets_an_interim_response_before_the_body(self):
        with self.server.connect() as sock:
            reader = ResponseReader(sock)
            sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
                         b"Expect: 100-continue\r\n\r\n")
            interim = reader.next()
            self.assertEqual(interim.status, 100)
            sock.sendall(b"hello")
            self.assertEqual(reader.next().status, 405)

    def test_body_over_max_body_is_413_and_closes(self):
        for request in (b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1001\r\n\r\n",
                        b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                        b"3e9\r\n" + b"y" * 1001 + b"\r\n0\r\n\r\n"):
            with self.subTest(request=request[:60]):
                with self.server.connect() as sock:
                    sock.sendall(request)
                    reader = ResponseReader(sock)
                    response = reader.next()
                    self.assertEqual(response.status, 413)
                    self.assertEqual(response.header("connection"), "close")
                    self.assertTrue(reader.closed_within(5))


if __name__ == "__main__":
    unittest.main()
