"""Graceful shutdown: SIGTERM or SIGINT stops accepting, finishes responses in flight, closes idle
connections and exits 0 within --drain-timeout, with no request lost."""
import re
import signal
import socket
import subprocess
import threading
import time
import unittest

from ringside_testlib import ResponseReader, Server, get, needs_tools, wait_until


class KeepAliveClient(threading.Thread):
    """Sends requests back to back; reconnects only when told to ('Connection: close').

    A request that was sent and got no complete response is a failure. A refused connection after
    the server closed its listener is not: no request was sent on it."""

    def __init__(self, port):
        super().__init__(daemon=True)
        self.port, self.completed, self.failed, self.refused = port, 0, 0, 0
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            try:
                sock = socket.create_connection(("127.0.0.1", self.port), timeout=5)
            except OSError:
                self.refused += 1
                return
            with sock:
                reader = ResponseReader(sock)
                while not self.stop.is_set():
                    try:
                        sock.sendall(get("/"))
                        response = reader.next()
                    except OSError:
                        self.failed += 1
                        return
                    self.completed += 1
                    if response.header("connection") == "close":
                        break


class ShutdownTest(unittest.TestCase):
    def test_sigterm_under_load_loses_no_request_and_exits_zero(self):
        server = Server("--drain-timeout", "5")
        with server:
            clients = [KeepAliveClient(server.port) for _ in range(8)]
            for client in clients:
                client.start()
            self.assertTrue(wait_until(lambda: sum(c.completed for c in clients) > 2000, 20))
            start = time.monotonic()
            server.process.send_signal(signal.SIGTERM)
            server.process.wait(timeout=10)
            elapsed = time.monotonic() - start
            for client in clients:
                client.stop.set()
                client.join(timeout=10)
            self.assertEqual(server.process.returncode, 0)
            self.assertLess(elapsed, 5.5)
            self.assertEqual(sum(c.failed for c in clients), 0)

    @needs_tools("wrk", "ss")
    def test_sigterm_during_wrk_load_gives_no_failed_request(self):
        server = Server("--drain-timeout", "5")
        with server:
            wrk = subprocess.Popen(["wrk", "-t1", "-c32", "-d6s", server.url("/")],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            established = lambda: self.established_connections(server.port) >= 32
            self.assertTrue(wait_until(established, 10))
            server.process.send_signal(signal.SIGTERM)
            server.process.wait(timeout=10)
            output = wrk.communicate(timeout=30)[0].decode()
            self.assertEqual(server.process.returncode, 0)
            self.assertNotIn("Non-2xx", output)
            # wrk counts a reconnect refused after the listener closed as a "write" error (a
            # non-blocking connect fails at the first write), so writes are not lost requests.
            # A read error or timeout would be: a request sent and never answered.
            errors = re.search(r"Socket errors: connect \d+, read (\d+), write \d+, timeout (\d+)",
                               output)
            if errors:
                self.assertEqual(errors.groups(), ("0", "0"), output)
            self.assertGreater(int(re.search(r"(\d+) requests in", output).group(1)), 0, output)

    def test_request_in_flight_is_finished_during_the_drain(self):
        server = Server("--drain-timeout", "5")
        with server, server.connect() as sock:
            reader = ResponseReader(sock)
            sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345")
            server.process.send_signal(signal.SIGINT)
            # Draining has begun once the listener is closed: new connections are refused.
            self.assertTrue(wait_until(lambda: not self.accepts(server.port), 5))
            sock.sendall(b"67890")  # the rest of the body, after the signal
            response = reader.next()
            self.assertEqual(response.status, 405)
            self.assertEqual(response.header("connection"), "close")
            self.assertTrue(reader.closed_within(5))
            server.process.wait(timeout=10)
            self.assertEqual(server.process.returncode, 0)

    @staticmethod
    def accepts(port):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            return False

    def test_idle_connections_are_closed_and_a_stuck_one_is_cut_at_the_drain_timeout(self):
        server = Server("--drain-timeout", "1")
        with server:
            idle = server.connect()
            ResponseReader(idle)
            idle.sendall(get("/"))
            self.assertEqual(ResponseReader(idle).next().status, 200)
            stuck = server.connect()
            stuck.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # never finished
            self.assertTrue(wait_until(lambda: self.established_connections(server.port) >= 2, 5))
            start = time.monotonic()
            server.process.send_signal(signal.SIGTERM)
            self.assertTrue(ResponseReader(idle).closed_within(5))
            server.process.wait(timeout=10)
            self.assertEqual(server.process.returncode, 0)
            self.assertLess(time.monotonic() - start, 2.5)
            idle.close()
            stuck.close()

    @staticmethod
    def established_connections(port):
        output = subprocess.run(["ss", "-Htn", "state", "established", f"( sport = :{port} )"],
                                stdout=subprocess.PIPE, text=True, timeout=10).stdout
        return len([line for line in output.splitlines() if line.strip()])


if __name__ == "__main__":
    unittest.main()
