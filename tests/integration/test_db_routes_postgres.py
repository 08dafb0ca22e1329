"""The database routes of `ringside serve --db postgres://...` against a real, throwaway
PostgreSQL (`ringside db temp`): every route's status, headers and body; TechEmpower's clamping and
query counts as their verifier takes them from pg_stat_statements; pipelined answers in order; a
client that leaves while its queries run; and the faults: a database that is down at start, a
query error, a query that hangs past --db-timeout, and PostgreSQL killed and restarted under load."""
import json
import os
import re
import select
import signal
import socket
import subprocess
import threading
import time
import unittest

from ringside_testlib import Server, needs_tools, run_load, wait_until
from test_db import STOP_TIMEOUT, expected_fortunes_html, psql, start_temp

WORLD_STATEMENT = "SELECT id, randomnumber FROM world WHERE id = $1"
UPDATE_STATEMENT_PREFIX = "UPDATE world SET randomnumber"


def request(port, path, timeout=10.0):
    """One GET on a fresh connection; returns (status, headers dict lower-cased, body bytes)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, body


def read_bodies(sock, count, timeout):
    """Reads `count` pipelined responses framed by Content-Length; returns (status, body) pairs."""
    deadline = time.monotonic() + timeout
    buffer = b""
    answers = []
    while len(answers) < count and time.monotonic() < deadline:
        end = buffer.find(b"\r\n\r\n")
        if end >= 0:
            head = buffer[:end].decode("latin-1")
            length = int(re.search(r"(?im)^content-length:\s*(\d+)", head).group(1))
            if len(buffer) >= end + 4 + length:
                answers.append((int(head.split()[1]), buffer[end + 4:end + 4 + length]))
                buffer = buffer[end + 4 + length:]
                continue
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        chunk = sock.recv(65536)
        if not chunk:
            break
        buffer += chunk
    return answers


def statement_stats(url, prefix):
    """(calls, rows) summed over pg_stat_statements entries whose query starts with prefix."""
    rows = psql(url, "SELECT coalesce(sum(calls), 0), coalesce(sum(rows), 0) FROM pg_stat_statements "
                     f"WHERE query LIKE '{prefix}%'")
    return int(rows[0][0]), int(rows[0][1])


class TempDatabase:
    """`ringside db temp` for a test class; kill() and restart() make outages."""

    def __init__(self):
        self.process, self.url = start_temp()

    def signal_and_wait(self, signum, announcement, timeout=60.0):
        self.process.send_signal(signum)
        data = b""
        deadline = time.monotonic() + timeout
        while announcement not in data:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"db temp did not announce {announcement!r}: {data!r}")
            ready, _, _ = select.select([self.process.stderr], [], [], remaining)
            if ready:
                chunk = os.read(self.process.stderr.fileno(), 4096)
                if not chunk:
                    raise AssertionError(f"db temp exited: {data!r}")
                data += chunk

    def kill(self):
        self.signal_and_wait(signal.SIGUSR1, b"PostgreSQL killed")

    def restart(self):
        self.signal_and_wait(signal.SIGUSR2, b"PostgreSQL restarted")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=STOP_TIMEOUT)
        self.process.stdout.close()
        self.process.stderr.close()


@needs_tools("psql")
class PostgresRoutesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.db = TempDatabase()
        cls.server = Server("--db", cls.db.url, threads=2)
        cls.server.__enter__()

    @classmethod
    def tearDownClass(cls):
        try:
            cls.server.__exit__(None, None, None)
        finally:
            cls.db.stop()

    def get(self, path):
        return request(self.server.port, path)

    def assert_common_headers(self, headers, content_type, body):
        self.assertEqual(headers.get("server"), "ringside")
        self.assertRegex(headers.get("date", ""), r"^\w{3}, \d\d \w{3} \d{4} \d\d:\d\d:\d\d GMT$")
        self.assertEqual(headers.get("content-type"), content_type)
        self.assertEqual(int(headers.get("content-length", "-1")), len(body))

    def test_user_found(self):
        for user_id in (1, 42, 10000):
            status, headers, body = self.get(f"/users/{user_id}")
            self.assertEqual(status, 200, body)
            self.assert_common_headers(headers, "application/json", body)
            seconds = 1704067200 + user_id
            self.assertEqual(json.loads(body), {
                "id": user_id, "name": f"User {user_id}", "email": f"user{user_id}@example.com",
                "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))})

    def test_user_not_found_is_404_json(self):
        for path in ("/users/10001", "/users/2147483648", "/users/9223372036854775807"):
            status, headers, body = self.get(path)
            self.assertEqual(status, 404, path)
            self.assert_common_headers(headers, "application/json", body)
            self.assertIn("error", json.loads(body))

    def test_bad_user_id_is_400_json(self):
        for path in ("/users/0", "/users/-1", "/users/abc", "/users/1x", "/users/01",
                     "/users/9223372036854775808", "/users/99999999999999999999"):
            status, headers, body = self.get(path)
            self.assertEqual(status, 400, path)
            self.assertIn("error", json.loads(body))

    def test_db_is_one_world_object(self):
        status, headers, body = self.get("/db")
        self.assertEqual(status, 200, body)
        self.assert_common_headers(headers, "application/json", body)
        row = json.loads(body)
        self.assertEqual(set(row), {"id", "randomNumber"})
        self.assertTrue(1 <= row["id"] <= 10000 and 1 <= row["randomNumber"] <= 10000, row)

    def test_queries_clamping(self):
        for given, count in (("2", 2), ("0", 1), ("-1", 1), ("foo", 1), ("", 1), ("501", 500),
                             ("500", 500), ("20", 20)):
            status, headers, body = self.get(f"/queries?queries={given}")
            self.assertEqual(status, 200, (given, body[:200]))
            rows = json.loads(body)
            self.assertIsInstance(rows, list)
            self.assertEqual(len(rows), count, given)
            for row in rows:
                self.assertEqual(set(row), {"id", "randomNumber"})
        status, _, body = self.get("/queries")
        self.assertEqual((status, len(json.loads(body))), (200, 1))

    def test_fortunes_exact_html(self):
        status, headers, body = self.get("/fortunes")
        self.assertEqual(status, 200)
        self.assert_common_headers(headers, "text/html; charset=utf-8", body)
        self.assertEqual(body, expected_fortunes_html())

    def test_updates_write_what_they_answer(self):
        status, _, body = self.get("/updates?queries=20")
        self.assertEqual(status, 200, body)
        rows = json.loads(body)
        self.assertEqual(len(rows), 20)
        self.assertEqual(len({row["id"] for row in rows}), 20, "ids within a request are distinct")
        ids = ",".join(str(row["id"]) for row in rows)
        stored = dict((int(i), int(n)) for i, n in psql(
            self.db.url, f"SELECT id, randomnumber FROM world WHERE id IN ({ids})"))
        self.assertEqual(stored, {row["id"]: row["randomNumber"] for row in rows})
        for given, count in (("0", 1), ("foo", 1), ("501", 500)):
            status, _, body = self.get(f"/updates?queries={given}")
            self.assertEqual((status, len(json.loads(body))), (200, count), given)

    def test_query_counts_as_the_verifier_takes_them(self):
        psql(self.db.url, "SELECT pg_stat_statements_reset()")
        # 512 concurrent requests to /db: at least 512 queries.
        results = []

        def fetch():
            results.append(self.get("/db")[0])
        threads = [threading.Thread(target=fetch) for _ in range(512)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        self.assertEqual(results.count(200), 512)
        calls, _ = statement_stats(self.db.url, WORLD_STATEMENT)
        self.assertGreaterEqual(calls, 512)

        psql(self.db.url, "SELECT pg_stat_statements_reset()")
        for _ in range(10):
            self.assertEqual(self.get("/queries?queries=20")[0], 200)
        calls, _ = statement_stats(self.db.url, WORLD_STATEMENT)
        self.assertGreaterEqual(calls, 200)

        psql(self.db.url, "SELECT pg_stat_statements_reset()")
        for _ in range(10):
            self.assertEqual(self.get("/updates?queries=20")[0], 200)
        reads, _ = statement_stats(self.db.url, WORLD_STATEMENT)
        updates, changed = statement_stats(self.db.url, UPDATE_STATEMENT_PREFIX)
        self.assertGreaterEqual(reads, 200)
        self.assertGreaterEqual(updates, 10)
        self.assertGreaterEqual(changed, 0.95 * 200, "rows really changed by /updates")

    def test_pipelined_requests_answered_in_order(self):
        # Alternate routes so that answers of different speed (and sizes) would overtake.
        paths = []
        for i in range(1, 17):
            paths.append(f"/users/{i}" if i % 2 else "/queries?queries=50")
        with self.server.connect() as sock:
            sock.sendall("".join(f"GET {p} HTTP/1.1\r\nHost: t\r\n\r\n" for p in paths).encode())
            answers = read_bodies(sock, len(paths), timeout=30)
        self.assertEqual(len(answers), len(paths))
        for path, (status, body) in zip(paths, answers):
            self.assertEqual(status, 200, path)
            doc = json.loads(body)
            if path.startswith("/users/"):
                self.assertEqual(doc["id"], int(path.rsplit("/", 1)[1]))
            else:
                self.assertEqual(len(doc), 50)

    def test_client_leaving_while_queries_run(self):
        # Many heavy requests whose clients close at once: the answers arrive for nobody.
        for _ in range(20):
            sock = self.server.connect()
            sock.sendall(b"GET /queries?queries=500 HTTP/1.1\r\nHost: t\r\n\r\n" * 4)
            sock.close()
        # The server is unharmed and still answers on every worker. It may first spend a while on
        # the 40,000 abandoned queries (on a loaded machine, under the sanitizers, longer than
        # --db-timeout: a request queued behind them then gets 503 "database busy"), so wait,
        # with a bound, for eight 200s in a row: each worker drains its own backlog, so one
        # worker's first 200 may come while another's connections are still busy (failed once
        # that way under ASan in a fresh-clone run).
        deadline = time.monotonic() + 120
        in_a_row = 0
        while in_a_row < 8:
            status = self.get("/users/7")[0]
            self.assertIn(status, (200, 503), "only 503 (database busy) may precede recovery")
            in_a_row = in_a_row + 1 if status == 200 else 0
            self.assertIsNone(self.server.process.poll(), "the server died")
            self.assertLess(time.monotonic(), deadline, "never answered 200 eight times in a row after its clients left")
        self.assertIsNone(self.server.process.poll())

    def test_query_error_is_500_and_the_connection_stays_usable(self):
        with Server("--db", self.db.url, "--db-pool", "1", threads=1) as server:
            self.assertEqual(request(server.port, "/fortunes")[0], 200)
            psql(self.db.url, "ALTER TABLE fortune RENAME TO fortune_away")
            try:
                status, headers, body = request(server.port, "/fortunes")
                self.assertEqual(status, 500, body)
                self.assertEqual(headers.get("content-type"), "application/json")
                self.assertIn("fortune", json.loads(body)["detail"])
                # The same (only) connection answers the next query.
                self.assertEqual(request(server.port, "/users/3")[0], 200)
            finally:
                psql(self.db.url, "ALTER TABLE fortune_away RENAME TO fortune")
            self.assertEqual(request(server.port, "/fortunes")[0], 200)

    def test_hung_query_times_out_with_503(self):
        with Server("--db", self.db.url, "--db-pool", "1", "--db-timeout", "1s", threads=1) as server:
            self.assertEqual(request(server.port, "/users/5")[0], 200)
            # Another session holds a lock the user query needs, until we let go.
            locker = subprocess.Popen(["psql", "-X", "-q", "-d", self.db.url], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            try:
                locker.stdin.write(b"BEGIN; LOCK TABLE users IN ACCESS EXCLUSIVE MODE; SELECT 'locked';\n")
                locker.stdin.flush()
                self.assertTrue(wait_until(lambda: psql(
                    self.db.url, "SELECT count(*) FROM pg_locks WHERE relation = 'users'::regclass "
                                 "AND mode = 'AccessExclusiveLock' AND granted")[0][0] == "1", 30))
                started = time.monotonic()
                status, headers, body = request(server.port, "/users/5", timeout=30)
                waited = time.monotonic() - started
                self.assertEqual(status, 503, body)
                self.assertEqual(headers.get("retry-after"), "1")
                self.assertIn("error", json.loads(body))
                self.assertGreaterEqual(waited, 0.9)
                self.assertLess(waited, 10)
            finally:
                locker.stdin.write(b"COMMIT;\n")
                locker.stdin.close()
                locker.wait(timeout=30)
                locker.stdout.close()
                locker.stderr.close()
            self.assertTrue(wait_until(lambda: request(server.port, "/users/5")[0] == 200, 10))


@needs_tools("psql")
class PostgresOutageTest(unittest.TestCase):
    def test_database_down_at_start_gives_503_then_recovers(self):
        # A port nothing listens on: the server starts anyway and answers 503 with Retry-After.
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        with Server("--db", f"postgres://postgres@127.0.0.1:{port}/ringside", threads=1) as server:
            status, headers, body = request(server.port, "/users/1")
            self.assertEqual(status, 503, body)
            self.assertEqual(headers.get("retry-after"), "1")
            self.assertEqual(headers.get("content-type"), "application/json")
            self.assertIn("unavailable", json.loads(body)["error"])
            self.assertEqual(request(server.port, "/json")[0], 200)

    def test_killed_under_load_gives_only_503_and_recovers_within_2s(self):
        db = TempDatabase()
        try:
            with Server("--db", db.url, threads=2) as server:
                self.assertEqual(request(server.port, "/users/1")[0], 200)
                outcome = {}

                def load():
                    outcome["result"] = run_load("-c", "20", "-t", "1", "-d", "8s", "--timeout", "5s",
                                                 server.url("/users/1"), timeout=60)
                loader = threading.Thread(target=load)
                loader.start()
                time.sleep(1.5)  # test input: the outage starts after 1.5 s of normal load
                db.kill()
                self.assertTrue(wait_until(lambda: request(server.port, "/users/2")[0] == 503, 10))
                time.sleep(2)  # test input: the database stays down for 2 s more
                db.restart()
                back = time.monotonic()
                self.assertTrue(wait_until(lambda: request(server.port, "/users/3")[0] == 200, 10))
                self.assertLess(time.monotonic() - back, 2.0, "full service within 2 s")
                loader.join(90)
                result = outcome["result"]
                self.assertEqual(result.returncode, 0, result.stderr)
                statuses = result.doc["status"]["codes"]
                self.assertEqual(set(statuses) - {"200", "503"}, set(), statuses)
                self.assertGreater(statuses.get("503", 0), 0)
                self.assertGreater(statuses.get("200", 0), 0)
                self.assertEqual(result.doc["requests"]["failed"], 0, result.doc["errors"])
                self.assertEqual(request(server.port, "/db")[0], 200)
        finally:
            db.stop()


if __name__ == "__main__":
    unittest.main()
