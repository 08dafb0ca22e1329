"""Timeouts and connection limits: slowloris, idle keep-alive, silent connections, the
--max-connections cap."""
import select
import time
import unittest

from ringside_testlib import ResponseReader, Server, get


class TimeoutTest(unittest.TestCase):
    def test_slowloris_is_cut_off_at_the_header_timeout(self):
        with Server("--header-timeout", "1") as server, server.connect() as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
            start = time.monotonic()
            reader = ResponseReader(sock)
            # Trickle a header byte every 200 ms: progress must not extend the deadline.
            while time.monotonic() - start < 4:
                readable, _, _ = select.select([sock], [], [], 0.2)
                if readable:
                    break
                try:
                    sock.sendall(b"X")
                except (BrokenPipeError, ConnectionResetError):
                    break
            response = reader.next()
            elapsed = time.monotonic() - start
            self.assertEqual(response.status, 408)
            self.assertTrue(reader.closed_within(5))
            self.assertGreater(elapsed, 0.8)
            self.assertLess(elapsed, 3.0)

    def test_connection_that_sends_nothing_is_closed_at_the_header_timeout(self):
        with Server("--header-timeout", "1") as server, server.connect() as sock:
            start = time.monotonic()
            reader = ResponseReader(sock)
            self.assertTrue(reader.closed_within(5))
            self.assertEqual(reader.buffer, b"")
            self.assertGreater(time.monotonic() - start, 0.8)

    def test_idle_keep_alive_connection_is_closed_at_the_idle_timeout(self):
        with Server("--idle-timeout", "1") as server, server.connect() as sock:
            reader = ResponseReader(sock)
            sock.sendall(get("/"))
            self.assertEqual(reader.next().status, 200)
            start = time.monotonic()
            self.assertTrue(reader.closed_within(5))
            self.assertGreater(time.monotonic() - start, 0.8)

    def test_keep_alive_connection_in_use_is_not_closed(self):
        with Server("--idle-timeout", "1") as server, server.connect() as sock:
            reader = ResponseReader(sock)
            start = time.monotonic()
            while time.monotonic() - start < 2.0:  # twice the idle timeout, busy all along
                sock.sendall(get("/"))
                self.assertEqual(reader.next().status, 200)


class MaxConnectionsTest(unittest.TestCase):
    def test_connections_over_the_cap_wait_until_one_closes(self):
        with Server("--max-connections", "2", threads=1) as server:
            first, second = server.connect(), server.connect()
            for sock in (first, second):
                sock.sendall(get("/"))
                self.assertEqual(ResponseReader(sock).next().status, 200)
            third = server.connect()  # the kernel completes the handshake; we do not accept yet
            third.sendall(get("/"))
            readable, _, _ = select.select([third], [], [], 0.5)
            self.assertEqual(readable, [], "a connection over --max-connections was served")
            first.close()
            readable, _, _ = select.select([third], [], [], 5)
            self.assertEqual(readable, [third])
            self.assertEqual(ResponseReader(third).next().status, 200)
            second.close()
            third.close()


if __name__ == "__main__":
    unittest.main()
