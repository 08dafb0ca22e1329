"""Malformed and smuggling requests get the right 4xx/5xx, a body saying why, and a clean close."""
import unittest

from ringside_testlib import ResponseReader, Server

HOST = b"Host: x\r\n"
CASES = [
    ("content-length and transfer-encoding", 400,
     b"POST / HTTP/1.1\r\n" + HOST + b"Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
    ("differing content-lengths", 400,
     b"POST / HTTP/1.1\r\n" + HOST + b"Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"),
    ("content-length list that differs", 400,
     b"POST / HTTP/1.1\r\n" + HOST + b"Content-Length: 3, 4\r\n\r\nabcd"),
    ("invalid content-length", 400, b"POST / HTTP/1.1\r\n" + HOST + b"Content-Length: 3x\r\n\r\nabc"),
    ("negative content-length", 400, b"POST / HTTP/1.1\r\n" + HOST + b"Content-Length: -1\r\n\r\n"),
    ("transfer-encoding gzip", 501,
     b"POST / HTTP/1.1\r\n" + HOST + b"Transfer-Encoding: gzip\r\n\r\n"),
    ("chunked not last", 400,
     b"POST / HTTP/1.1\r\n" + HOST + b"Transfer-Encoding: chunked, gzip\r\n\r\n"),
    ("transfer-encoding in HTTP/1.0", 400,
     b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
    ("obsolete line folding", 400, b"GET / HTTP/1.1\r\n" + HOST + b"X-A: 1\r\n  folded\r\n\r\n"),
    ("space before colon", 400, b"GET / HTTP/1.1\r\n" + HOST + b"X-A : 1\r\n\r\n"),
    ("control character in value", 400, b"GET / HTTP/1.1\r\n" + HOST + b"X-A: a\x01b\r\n\r\n"),
    ("bare LF", 400, b"GET / HTTP/1.1\n" + HOST + b"\n"),
    ("missing host", 400, b"GET / HTTP/1.1\r\n\r\n"),
    ("two hosts", 400, b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
    ("garbage request line", 400, b"HELLO\r\n\r\n"),
    ("space in target", 400, b"GET /a b HTTP/1.1\r\n" + HOST + b"\r\n"),
    ("HTTP/2.0", 505, b"GET / HTTP/2.0\r\n" + HOST + b"\r\n"),
    ("unsupported expectation", 417, b"GET / HTTP/1.1\r\n" + HOST + b"Expect: teapot\r\n\r\n"),
    ("malformed chunk", 400,
     b"POST / HTTP/1.1\r\n" + HOST + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n"),
    ("request line over 16 KiB", 414, b"GET /" + b"a" * 17000 + b" HTTP/1.1\r\n" + HOST + b"\r\n"),
    ("headers over 16 KiB", 431, b"GET / HTTP/1.1\r\n" + HOST + b"X-Big: " + b"b" * 17000 + b"\r\n\r\n"),
    ("host with a space", 400, b"GET / HTTP/1.1\r\nHost: a b\r\n\r\n"),
    ("host with a slash", 400, b"GET / HTTP/1.1\r\nHost: a/b\r\n\r\n"),
    ("host with an unclosed IPv6 literal", 400, b"GET / HTTP/1.1\r\nHost: [::1\r\n\r\n"),
    ("asterisk-form OPTIONS", 400, b"OPTIONS * HTTP/1.1\r\n" + HOST + b"\r\n"),
    ("target without a slash", 400, b"GET foo HTTP/1.1\r\n" + HOST + b"\r\n"),
    ("authority-form CONNECT", 400, b"CONNECT example.com:443 HTTP/1.1\r\n" + HOST + b"\r\n"),
    ("absolute-form with userinfo", 400, b"GET http://u@x/ HTTP/1.1\r\n" + HOST + b"\r\n"),
    ("https target on plain HTTP", 421, b"GET https://x/ HTTP/1.1\r\n" + HOST + b"\r\n"),
    ("chunk-size line of whitespace", 400,
     b"POST / HTTP/1.1\r\n" + HOST + b"Transfer-Encoding: chunked\r\n\r\n5" + b" " * 5000
     + b"\r\n"),
    ("101 headers", 431,
     b"GET / HTTP/1.1\r\n" + HOST + b"".join(b"X-%d: v\r\n" % i for i in range(100)) + b"\r\n"),
]


class MalformedRequestTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server().__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)

    def test_each_malformed_request_gets_its_status_a_reason_and_a_close(self):
        for name, status, request in CASES:
            with self.subTest(name):
                with self.server.connect() as sock:
                    sock.sendall(request)
                    reader = ResponseReader(sock)
                    response = reader.next()
                    self.assertEqual(response.status, status, response.raw[:200])
                    self.assertEqual(response.header("connection"), "close")
                    self.assertGreater(len(response.body), 10, "the body should say what was wrong")
                    self.assertTrue(reader.closed_within(5), "connection left open after an error")

    def test_a_valid_request_pipelined_after_an_error_is_not_answered(self):
        with self.server.connect() as sock:
            sock.sendall(b"GET / HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
            reader = ResponseReader(sock)
            self.assertEqual(reader.next().status, 400)
            self.assertTrue(reader.closed_within(5))
            self.assertEqual(reader.buffer, b"")

    def test_server_keeps_serving_after_malformed_input(self):
        with self.server.connect() as sock:
            sock.sendall(b"\x00\xff\x10garbage\r\n\r\n")
            self.assertEqual(ResponseReader(sock).next().status, 400)
        with self.server.connect() as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            self.assertEqual(ResponseReader(sock).next().status, 200)


if __name__ == "__main__":
    unittest.main()
