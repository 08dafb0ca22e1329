"""Graceful shutdown: SIGTERM, SIGINT or SIGHUP stops accepting, finishes responses in flight,
answers each connection's next request with "Connection: close" (closing those still idle only at
--drain-timeout) and exits 0 within it, with no request lost; and a rolling restart, a second server
sharing the port with --reuse-port while the first drains, with no failed request."""
import os
import re
import signal
import socket
import subprocess
import threading
import time
import unittest

from ringside_testlib import (ResponseReader, Server, accepts, get, needs_tools, run_load,
                              wait_until)


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
        self.check_request_in_flight_is_finished(signal.SIGINT)

    def test_sighup_drains_like_sigterm(self):
        # A closed terminal or `kill -HUP` used to kill the server outright, cutting this request.
        self.check_request_in_flight_is_finished(signal.SIGHUP)

    def check_request_in_flight_is_finished(self, signum):
        server = Server("--drain-timeout", "5")
        with server, server.connect() as sock:
            reader = ResponseReader(sock)
            sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345")
            server.process.send_signal(signum)
            # Draining has begun once the listener is closed: new connections are refused.
            self.assertTrue(wait_until(lambda: not accepts(server.port), 5))
            sock.sendall(b"67890")  # the rest of the body, after the signal
            response = reader.next()
            self.assertEqual(response.status, 405)
            self.assertEqual(response.header("connection"), "close")
            self.assertTrue(reader.closed_within(5))
            server.process.wait(timeout=10)
            self.assertEqual(server.process.returncode, 0)

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



class DrainAcceptsTheWholeQueueTest(unittest.TestCase):
    """Connections the kernel has queued but the server has not accepted yet, each with a request
    already sent, when SIGTERM arrives: closing the listener would reset every one still queued,
    so the drain must accept them all (the old drain took one wakeup's worth, 64)."""

    QUEUED = 400  # well over 64, well under net.core.somaxconn (4096 by default)

    def test_sigterm_answers_every_queued_connection_and_resets_none(self):
        server = Server("--drain-timeout", "10", threads=1)
        socks = []
        with server:
            try:
                # Stopped, the server accepts nothing while the kernel completes the handshakes
                # and buffers the requests; SIGTERM stays pending until SIGCONT, so the drain
                # begins with the whole queue waiting.
                server.process.send_signal(signal.SIGSTOP)
                try:
                    self.assertTrue(wait_until(lambda: self.stopped(server.process.pid), 10))
                    for _ in range(self.QUEUED):
                        sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
                        socks.append(sock)
                        sock.sendall(get("/"))
                    self.assertTrue(
                        wait_until(lambda: self.queued(server.port) >= self.QUEUED, 10),
                        f"only {self.queued(server.port)} connections queued")
                    server.process.send_signal(signal.SIGTERM)
                finally:
                    server.process.send_signal(signal.SIGCONT)
                outcomes = [self.outcome(sock) for sock in socks]
            finally:
                for sock in socks:
                    sock.close()
            server.process.wait(timeout=20)
            self.assertEqual(server.process.returncode, 0)
            counts = {kind: outcomes.count(kind) for kind in set(outcomes)}
            self.assertEqual(counts.get("reset", 0), 0, counts)
            self.assertEqual(counts, {"answered": self.QUEUED})

    @staticmethod
    def outcome(sock):
        """'answered' (a whole response, then a clean close), 'closed' (a clean close and no
        response), 'reset' (ECONNRESET at any point) or 'timeout'."""
        sock.settimeout(15)
        reader = ResponseReader(sock)
        try:
            response = reader.next()
        except ConnectionResetError:
            return "reset"
        except ConnectionError:
            return "closed"
        except socket.timeout:
            return "timeout"
        if response.status != 200:
            return f"status {response.status}"
        try:
            while sock.recv(65536):
                pass
        except ConnectionResetError:
            return "reset"
        except socket.timeout:
            return "timeout"
        return "answered"

    @staticmethod
    def stopped(pid):
        """True once every thread of the process is stopped (a signal is delivered later than
        kill() returns)."""
        try:
            states = []
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/stat") as stat:
                    states.append(stat.read().rsplit(")", 1)[1].split()[0])
            return bool(states) and all(state == "T" for state in states)
        except FileNotFoundError:
            return False

    @staticmethod
    def queued(port):
        """Connections waiting in the listener's accept queue (ss shows it as Recv-Q)."""
        output = subprocess.run(["ss", "-Hltn", f"( sport = :{port} )"], stdout=subprocess.PIPE,
                                text=True, timeout=10).stdout
        return sum(int(line.split()[1]) for line in output.splitlines() if line.strip())


class DrainKeepsIdleConnectionsTest(unittest.TestCase):
    """A keep-alive connection idle when the drain begins: its client may be writing its next
    request at that very moment, and a close racing with it loses the request (the client sees a
    reset or a close after writing it). So the server keeps it open, answers that request with
    "Connection: close", and closes the connections still idle only at --drain-timeout."""

    def test_a_request_after_a_long_idle_during_the_drain_is_answered_with_close(self):
        server = Server("--drain-timeout", "10", "--db", "none", threads=1)
        with server:
            sock = server.connect()
            reader = ResponseReader(sock)
            sock.sendall(get("/"))
            self.assertEqual(reader.next().status, 200)
            server.process.send_signal(signal.SIGTERM)
            self.assertTrue(wait_until(lambda: not accepts(server.port), 5))
            time.sleep(1.0)  # test input: idle well past the 250 ms the drain used to allow
            try:
                sock.sendall(get("/"))
                response = reader.next()
            except OSError as error:
                self.fail(f"the idle connection was closed during the drain: {error!r}")
            self.assertEqual(response.status, 200)
            self.assertEqual(response.header("connection"), "close")
            self.assertTrue(reader.closed_within(5))
            sock.close()
            # Its last connection gone, the server exits without waiting for the drain timeout.
            started = time.monotonic()
            server.process.wait(timeout=15)
            self.assertLess(time.monotonic() - started, 5)
            self.assertEqual(server.process.returncode, 0)


class RollingRestartTest(unittest.TestCase):
    """`--reuse-port` starts a second server on the first one's port (one SO_REUSEPORT group);
    SIGTERM to the first under keep-alive load then fails no request: its clients get
    "Connection: close" and reconnect to the second. (New connections completing their handshake
    on the old listener in the instant between its last accept and its close are the kernel's to
    reset unless net.ipv4.tcp_migrate_req is 1: the torture suite's rolling-restart attack covers
    connection churn in a network namespace where it is.)"""

    @needs_tools("ss")
    def test_sigterm_to_the_old_server_under_keep_alive_load_fails_no_request(self):
        old = Server("--drain-timeout", "5", "--db", "none", threads=1)
        with old:
            new = Server("--drain-timeout", "5", "--db", "none", "--reuse-port", threads=1)
            new.args[new.args.index("--port") + 1] = str(old.port)
            with new:
                self.assertEqual(new.port, old.port)
                outcome = {}

                def load():
                    outcome["result"] = run_load("-c", "32", "-t", "1", "-d", "4s", "--timeout",
                                                 "5s", old.url("/"), timeout=60)
                loader = threading.Thread(target=load)
                loader.start()
                self.assertTrue(wait_until(
                    lambda: ShutdownTest.established_connections(old.port) >= 32, 20))
                old.process.send_signal(signal.SIGTERM)
                old.process.wait(timeout=15)
                loader.join(90)
                self.assertEqual(old.process.returncode, 0)
                result = outcome["result"]
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertEqual(result.doc["requests"]["failed"], 0, result.doc["errors"])
                self.assertEqual(set(result.doc["status"]["codes"]), {"200"})
                self.assertIsNone(new.process.poll(), "the new server stopped")

    def test_without_reuse_port_a_busy_port_is_refused(self):
        with Server("--db", "none", threads=1) as old:
            result = subprocess.run([old.args[0], "serve", "--port", str(old.port), "--db", "none"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
            self.assertEqual(result.returncode, 1)
            self.assertIn(b"--reuse-port", result.stderr)


if __name__ == "__main__":
    unittest.main()
