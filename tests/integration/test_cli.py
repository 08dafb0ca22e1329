"""`ringside serve` flags: --help shows defaults; a bad flag or value is one line naming it and
exit code 2; a busy port is a clear error."""
import signal
import subprocess
import unittest

from ringside_testlib import ResponseReader, Server, BIN, accepts, get, wait_until


def run(*args):
    result = subprocess.run([BIN, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=10)
    return result.returncode, result.stdout.decode(), result.stderr.decode()


class CliTest(unittest.TestCase):
    def test_help_lists_every_flag_with_its_default(self):
        code, out, _ = run("serve", "--help")
        self.assertEqual(code, 0)
        for flag, default in [("--host", "127.0.0.1"), ("--port", "8080"), ("--threads", ""),
                              ("--max-connections", "16384"), ("--header-timeout", "10"),
                              ("--idle-timeout", "60"), ("--drain-timeout", "5"),
                              ("--max-body", "1048576")]:
            line = next((l for l in out.splitlines() if flag in l), "")
            self.assertTrue(line, f"{flag} missing from --help")
            self.assertIn(default, line)

    def test_bad_flags_and_values_exit_2_with_one_line_naming_them(self):
        cases = [(["--port", "abc"], "--port"), (["--port", "70000"], "--port"),
                 (["--threads", "0"], "--threads"), (["--header-timeout", "-1"], "--header-timeout"),
                 (["--idle-timeout", "0"], "--idle-timeout"), (["--max-body", "lots"], "--max-body"),
                 (["--bogus"], "--bogus"), (["--host", "api..internal"], "--host"), (["--max-connections", "0"], "--max-connections"),
                 (["--h2-max-streams", "0"], "--h2-max-streams"),
                 (["--h2-max-streams", "10001"], "--h2-max-streams"),
                 (["--h2-max-header-list", "100"], "--h2-max-header-list"),
                 (["--h2-initial-window", "2147483648"], "--h2-initial-window"),
                 (["--h2-reset-burst", "0"], "--h2-reset-burst"),
                 (["--h2-reset-rate", "x"], "--h2-reset-rate")]
        for args, name in cases:
            with self.subTest(args=args):
                code, _, err = run("serve", *args)
                self.assertEqual(code, 2, err)
                self.assertEqual(len(err.strip().splitlines()), 1, err)
                self.assertIn(name, err)

    def test_values_that_used_to_pass_and_break_the_server_are_refused(self):
        # Each of these once passed validation: 1e10 s overflowed seconds -> nanoseconds (every
        # connection dropped, keep-alive closed after one response, drain ended at once), nan
        # compared false everywhere, and -5 wrapped to "no limit".
        cases = [(["--header-timeout", "1e10"], "--header-timeout"),
                 (["--header-timeout", "nan"], "--header-timeout"),
                 (["--header-timeout", "inf"], "--header-timeout"),
                 (["--header-timeout", "0"], "--header-timeout"),
                 (["--header-timeout", "2h"], "--header-timeout"),
                 (["--idle-timeout", "1e10"], "--idle-timeout"),
                 (["--idle-timeout", "-inf"], "--idle-timeout"),
                 (["--idle-timeout", "1e400"], "--idle-timeout"),
                 (["--idle-timeout", "25h"], "--idle-timeout"),
                 (["--drain-timeout", "1e10"], "--drain-timeout"),
                 (["--drain-timeout", "nan"], "--drain-timeout"),
                 (["--drain-timeout", "-1"], "--drain-timeout"),
                 (["--max-body", "-5"], "--max-body"), (["--max-body", "-5k"], "--max-body"),
                 (["--max-body", "2t"], "--max-body"), (["--max-body", "1.5m"], "--max-body"),
                 (["--threads", "-1"], "--threads"), (["--threads", "1025"], "--threads"),
                 (["--max-connections", "-5"], "--max-connections"),
                 (["--max-connections", "10000001"], "--max-connections"),
                 (["--port", "-1"], "--port")]
        for args, name in cases:
            with self.subTest(args=args):
                code, _, err = run("serve", *args)
                self.assertEqual(code, 2, err)
                self.assertEqual(len(err.strip().splitlines()), 1, err)
                self.assertIn(name, err)
                self.assertLess(len(err), 250, "limits are written humanly")

    def test_largest_timeouts_still_serve_and_drain(self):
        # The upper ends of the ranges convert to nanoseconds without overflow: requests are
        # answered, keep-alive holds, and the drain waits for the request in flight.
        server = Server("--header-timeout", "1h", "--idle-timeout", "24h", "--drain-timeout", "1h",
                        "--max-body", "4k")
        with server:
            with server.connect() as sock:
                reader = ResponseReader(sock)
                for _ in range(3):
                    sock.sendall(get("/"))
                    self.assertEqual(reader.next().status, 200)
                sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n")
                self.assertEqual(reader.next().status, 413)  # --max-body 4k is 4096 bytes
            with server.connect() as sock:
                reader = ResponseReader(sock)
                sock.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345")
                server.process.send_signal(signal.SIGTERM)
                self.assertTrue(wait_until(lambda: not accepts(server.port), 5))
                self.assertIsNone(server.process.poll(), "the drain must wait for the request")
                sock.sendall(b"67890")
                self.assertEqual(reader.next().status, 405)
                self.assertTrue(reader.closed_within(5))
                server.process.wait(timeout=10)
                self.assertEqual(server.process.returncode, 0)

    def test_durations_take_units(self):
        with Server("--header-timeout", "500ms", "--idle-timeout", "1m", "--drain-timeout", "0") as server:
            with server.connect() as sock:
                sock.sendall(get("/"))
                self.assertEqual(ResponseReader(sock).next().status, 200)

    def test_unknown_command_exits_2(self):
        code, _, err = run("serv")
        self.assertEqual(code, 2)
        self.assertIn("serv", err)

    def test_port_in_use_is_a_clear_error(self):
        with Server() as first:
            code, _, err = run("serve", "--port", str(first.port))
            self.assertEqual(code, 1)
            self.assertIn(str(first.port), err)
            self.assertIn("--port", err)


if __name__ == "__main__":
    unittest.main()
