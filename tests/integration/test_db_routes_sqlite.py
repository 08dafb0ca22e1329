"""The database routes on the embedded SQLite backend, through the real binary: every route's status,
headers and body (JSON parsed, fortunes' exact HTML), the clamping rules, /updates really written to
the file (read back with Python's sqlite3), pipelining, writers from two worker threads contending
for SQLite's one write lock (only 200 or 503, never a hang or a 500), the lock held by another
process (503 with Retry-After after --db-timeout, 200 once it is free), the file made unwritable
under a running server (503, then 200 again), `ringside db init` on a file, and files the server
cannot use at start (exit 2, one line naming the file)."""
import json
import os
import re
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import threading
import time
import unittest

from ringside_testlib import BIN, ResponseReader, Server, get, read_responses, wait_until
from test_db import FORTUNES, expected_fortunes_html

DATE = re.compile(r"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|"
                  r"Nov|Dec) \d{4} \d\d:\d\d:\d\d GMT$")
JSON = "application/json"
# Seeding and the sanitizer build on a loaded 2-core machine.
RUN_TIMEOUT = 120


def file_numbers(path, ids):
    """randomnumber of each id, as the file holds it now."""
    with sqlite3.connect(path, timeout=30) as db:
        marks = ",".join("?" * len(ids))
        return dict(db.execute(f"SELECT id, randomnumber FROM world WHERE id IN ({marks})", ids))


def dump(path):
    """Every row of the three tables, in id order."""
    db = sqlite3.connect(path, timeout=30)
    try:
        return [list(db.execute(f"SELECT * FROM {table} ORDER BY id"))
                for table in ("users", "world", "fortune")]
    finally:
        db.close()


def exchange(server, *paths, timeout=30):
    """Sends the requests on one connection, pipelined; returns their responses in order."""
    with server.connect(timeout=timeout) as sock:
        sock.sendall(b"".join(get(path) for path in paths))
        reader = ResponseReader(sock)
        return [reader.next() for _ in paths]


class Routes:
    """Every route on a server over `self.db_path`; a subclass starts the server."""

    def fetch(self, path):
        return exchange(self.server, path)[0]

    def check_headers(self, response, content_type):
        self.assertTrue(response.header("server"), response.raw[:300])
        self.assertRegex(response.header("date") or "", DATE)
        self.assertEqual(response.header("content-type"), content_type)
        self.assertEqual(int(response.header("content-length")), len(response.body))

    def json_of(self, path, status=200):
        response = self.fetch(path)
        self.assertEqual(response.status, status, (path, response.body))
        self.check_headers(response, JSON)
        return json.loads(response.body)

    def test_user_1_is_the_exact_object(self):
        self.assertEqual(self.json_of("/users/1"),
                         {"id": 1, "name": "User 1", "email": "user1@example.com",
                          "created_at": "2024-01-01T00:00:01Z"})
        self.assertEqual(self.json_of("/users/10000")["created_at"], "2024-01-01T02:46:40Z")

    def test_unknown_user_is_404_json(self):
        self.assertIn("error", self.json_of("/users/10001", status=404))

    def test_ids_that_are_not_positive_integers_are_400(self):
        for id in ("0", "-1", "abc", "99999999999999999999", "1x", "01"):
            with self.subTest(id=id):
                self.assertIn("error", self.json_of(f"/users/{id}", status=400))

    def test_db_is_one_world_row_as_stored(self):
        for _ in range(5):
            row = self.json_of("/db")
            self.assertEqual(sorted(row), ["id", "randomNumber"])
            self.assertTrue(1 <= row["id"] <= 10000, row)
            self.assertTrue(1 <= row["randomNumber"] <= 10000, row)
            self.assertEqual(file_numbers(self.db_path, [row["id"]]), {row["id"]: row["randomNumber"]})

    def test_queries_are_clamped_as_techempower_wants(self):
        for query, count in (("?queries=2", 2), ("?queries=0", 1), ("?queries=-1", 1),
                             ("?queries=foo", 1), ("?queries=", 1), ("", 1), ("?queries=501", 500),
                             ("?queries=20", 20)):
            with self.subTest(query=query):
                rows = self.json_of(f"/queries{query}")
                self.assertIsInstance(rows, list)
                self.assertEqual(len(rows), count)
                for row in rows:
                    self.assertEqual(sorted(row), ["id", "randomNumber"])
                    self.assertTrue(1 <= row["id"] <= 10000 and 1 <= row["randomNumber"] <= 10000)
                stored = file_numbers(self.db_path, [row["id"] for row in rows])
                self.assertEqual({row["id"]: row["randomNumber"] for row in rows}, stored)

    def test_fortunes_are_the_exact_html(self):
        response = self.fetch("/fortunes")
        self.assertEqual(response.status, 200)
        self.check_headers(response, "text/html; charset=utf-8")
        self.assertEqual(response.body, expected_fortunes_html())
        self.assertEqual(response.body.count(b"<tr><td>"), 13)

    def test_updates_write_their_rows_to_the_file(self):
        for _ in range(3):
            rows = self.json_of("/updates?queries=20")
            self.assertEqual(len(rows), 20)
            ids = [row["id"] for row in rows]
            self.assertEqual(len(set(ids)), 20, "ids repeat")
            self.assertEqual(file_numbers(self.db_path, ids),
                             {row["id"]: row["randomNumber"] for row in rows})
        self.assertEqual(len(self.json_of("/updates?queries=foo")), 1)
        self.assertEqual(len(self.json_of("/updates?queries=501")), 500)

    def test_pipelined_requests_are_answered_in_order(self):
        paths = ["/users/1", "/db", "/fortunes", "/users/10001", "/queries?queries=3",
                 "/updates?queries=2", "/users/2", "/", "/users/abc"] * 3
        responses = exchange(self.server, *paths)
        for path, response in zip(paths, responses):
            with self.subTest(path=path):
                if path == "/users/1" or path == "/users/2":
                    self.assertEqual(json.loads(response.body)["id"], int(path[7:]))
                elif path == "/db":
                    self.assertEqual(sorted(json.loads(response.body)), ["id", "randomNumber"])
                elif path == "/fortunes":
                    self.assertEqual(response.body, expected_fortunes_html())
                elif path == "/users/10001":
                    self.assertEqual(response.status, 404)
                elif path.startswith("/queries"):
                    self.assertEqual(len(json.loads(response.body)), 3)
                elif path.startswith("/updates"):
                    self.assertEqual(len(json.loads(response.body)), 2)
                elif path == "/":
                    self.assertEqual(response.body, b"Hello World!")
                elif path == "/users/abc":
                    self.assertEqual(response.status, 400)
                if path not in ("/users/10001", "/users/abc"):
                    self.assertEqual(response.status, 200, response.body)


class SqliteFileTest(Routes, unittest.TestCase):
    """--db sqlite:<tmp>/x.db: created, seeded and served."""

    @classmethod
    def setUpClass(cls):
        cls.directory = tempfile.mkdtemp(prefix="ringside-sqlite-")
        cls.db_path = os.path.join(cls.directory, "x.db")
        cls.server = Server("--db", f"sqlite:{cls.db_path}", threads=2).__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)
        shutil.rmtree(cls.directory)


class DefaultFileTest(Routes, unittest.TestCase):
    """No --db: ./ringside.db in the directory the server starts in."""

    @classmethod
    def setUpClass(cls):
        cls.directory = tempfile.mkdtemp(prefix="ringside-sqlite-")
        cls.db_path = os.path.join(cls.directory, "ringside.db")
        cls.server = Server(threads=1, preexec_fn=lambda: os.chdir(cls.directory)).__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)
        shutil.rmtree(cls.directory)

    def test_the_file_was_created_and_seeded(self):
        users, world, fortune = dump(self.db_path)
        self.assertEqual(len(users), 10000)
        self.assertEqual(users[0], (1, "User 1", "user1@example.com", "2024-01-01T00:00:01Z"))
        self.assertEqual(len(world), 10000)
        self.assertEqual([message for _, message in fortune], FORTUNES)


class NoDatabaseTest(unittest.TestCase):
    """--db none: the database routes answer 503 and no file is created where the server runs."""

    def test_routes_say_503_and_no_file_appears(self):
        directory = tempfile.mkdtemp(prefix="ringside-nodb-")
        try:
            with Server("--db", "none", threads=1, preexec_fn=lambda: os.chdir(directory)) as server:
                for path in ("/users/1", "/db", "/fortunes"):
                    with server.connect() as sock:
                        sock.sendall(get(path))
                        self.assertEqual(read_responses(sock, 1, timeout=10), [503], path)
                with server.connect() as sock:
                    sock.sendall(get("/json"))
                    self.assertEqual(read_responses(sock, 1, timeout=10), [200])
            self.assertEqual(os.listdir(directory), [])
        finally:
            shutil.rmtree(directory)


def hammer_updates(port, connections, requests, statuses, errors):
    """`connections` threads, each sending `requests` /updates?queries=20 on one keep-alive
    connection; collects every status, and anything that went wrong (a timeout is a hang)."""
    def one_connection():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
                for _ in range(requests):
                    sock.sendall(get("/updates?queries=20"))
                    got = read_responses(sock, 1, timeout=60)
                    if not got:
                        errors.append("no answer within 60 s")
                        return
                    statuses.extend(got)
        except OSError as error:
            errors.append(repr(error))

    threads = [threading.Thread(target=one_connection) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    return not any(thread.is_alive() for thread in threads)


class WriteLockTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="ringside-sqlite-")
        self.db_path = os.path.join(self.directory, "lock.db")

    def tearDown(self):
        shutil.rmtree(self.directory)

    def test_writers_on_two_threads_get_200_or_503_and_never_hang(self):
        with Server("--db", f"sqlite:{self.db_path}", threads=2) as server:
            statuses, errors = [], []
            self.assertTrue(hammer_updates(server.port, 16, 15, statuses, errors), "threads hung")
            self.assertEqual(errors, [])
            self.assertEqual(len(statuses), 16 * 15)
            self.assertEqual(set(statuses) - {200, 503}, set(), statuses)
            self.assertGreater(statuses.count(200), 0)
            # Still serving afterwards.
            self.assertEqual(exchange(server, "/updates?queries=5")[0].status, 200)

    def test_a_lock_held_past_the_timeout_gives_503_and_reads_go_on(self):
        with Server("--db", f"sqlite:{self.db_path}", "--db-timeout", "300ms", threads=1) as server:
            holder = sqlite3.connect(self.db_path, isolation_level=None)
            holder.execute("BEGIN IMMEDIATE")
            try:
                with server.connect(timeout=30) as sock:
                    sock.sendall(get("/updates?queries=3"))
                    # While the write waits for the lock the loop goes on: reads on another
                    # connection are answered.
                    for path in ("/db", "/users/3", "/fortunes"):
                        self.assertEqual(exchange(server, path)[0].status, 200, path)
                    started = time.monotonic()
                    busy = ResponseReader(sock).next()
                    self.assertEqual(busy.status, 503, busy.body)
                    self.assertEqual(busy.header("retry-after"), "1")
                    self.assertEqual(busy.header("content-type"), JSON)
                    self.assertEqual(json.loads(busy.body)["error"], "database busy")
                    self.assertLess(time.monotonic() - started, 30)
            finally:
                holder.execute("ROLLBACK")
                holder.close()
            self.assertEqual(exchange(server, "/updates?queries=3")[0].status, 200)

    def test_a_write_waiting_for_the_lock_completes_when_it_is_freed(self):
        with Server("--db", f"sqlite:{self.db_path}", "--db-timeout", "60s", threads=1) as server:
            holder = sqlite3.connect(self.db_path, isolation_level=None)
            holder.execute("BEGIN IMMEDIATE")
            with server.connect(timeout=60) as sock:
                sock.sendall(get("/updates?queries=4"))
                # The lock stays taken until these are answered: a worker that waited for it
                # (a busy timeout) would answer none of them.
                for path in ("/db", "/users/3", "/fortunes", "/queries?queries=5"):
                    self.assertEqual(exchange(server, path)[0].status, 200, path)
                sock.setblocking(False)
                with self.assertRaises(BlockingIOError, msg="answered while the lock was held"):
                    sock.recv(1)
                sock.setblocking(True)
                holder.execute("ROLLBACK")
                holder.close()
                sock.settimeout(60)
                response = ResponseReader(sock).next()
            self.assertEqual(response.status, 200, response.body)
            rows = json.loads(response.body)
            self.assertEqual(file_numbers(self.db_path, [row["id"] for row in rows]),
                             {row["id"]: row["randomNumber"] for row in rows})


def chattr(flag, *paths):
    return subprocess.run(["chattr", flag, *paths], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=30).returncode == 0


@unittest.skipUnless(shutil.which("chattr"), "chattr is not installed (scripts/setup installs it)")
class UnwritableFileTest(unittest.TestCase):
    """The filesystem refuses writes to the live database: the file and its WAL made immutable
    (root ignores file modes; writes through the server's open descriptors then fail with EPERM,
    as on a disk gone read-only or full). /updates gets 503 with Retry-After, not 500; reads go
    on; writes succeed again once the files can be written."""

    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="ringside-sqlite-")
        self.db_path = os.path.join(self.directory, "frozen.db")
        self.frozen = []

    def tearDown(self):
        if self.frozen:
            chattr("-i", *self.frozen)
        shutil.rmtree(self.directory)

    def test_an_immutable_file_gives_503_and_writes_resume_after(self):
        with Server("--db", f"sqlite:{self.db_path}", threads=1) as server:
            self.assertEqual(exchange(server, "/updates?queries=3")[0].status, 200)
            files = [self.db_path, self.db_path + "-wal"]
            if not chattr("+i", *files):
                self.skipTest(f"chattr +i is not supported on {self.directory}'s filesystem")
            self.frozen = files
            for response in exchange(server, "/updates?queries=3", "/updates?queries=1"):
                self.assertEqual(response.status, 503, response.body)
                self.assertEqual(response.header("retry-after"), "1")
                self.assertEqual(response.header("content-type"), JSON)
                self.assertEqual(json.loads(response.body)["error"], "database unavailable")
            for path in ("/db", "/users/3", "/fortunes", "/queries?queries=5"):
                self.assertEqual(exchange(server, path)[0].status, 200, path)
            self.assertTrue(chattr("-i", *files))
            self.frozen = []
            response = exchange(server, "/updates?queries=4")[0]
            self.assertEqual(response.status, 200, response.body)
            rows = json.loads(response.body)
            self.assertEqual(file_numbers(self.db_path, [row["id"] for row in rows]),
                             {row["id"]: row["randomNumber"] for row in rows})


class InitTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="ringside-sqlite-")
        self.db_path = os.path.join(self.directory, "init.db")

    def tearDown(self):
        shutil.rmtree(self.directory)

    def init(self):
        result = subprocess.run([BIN, "db", "init", "--db", f"sqlite:{self.db_path}"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=RUN_TIMEOUT)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(self.db_path, result.stderr.decode())

    def test_init_seeds_and_a_second_run_restores_the_seed(self):
        self.init()
        seeded = dump(self.db_path)
        self.assertEqual([len(rows) for rows in seeded], [10000, 10000, 12])
        self.assertEqual(seeded[2], [(i + 1, message) for i, message in enumerate(FORTUNES)])
        # The server changes World; another process adds a user.
        with Server("--db", f"sqlite:{self.db_path}", threads=1) as server:
            for response in exchange(server, *["/updates?queries=50"] * 4):
                self.assertEqual(response.status, 200)
        self.assertNotEqual(dump(self.db_path), seeded)
        with sqlite3.connect(self.db_path) as db:
            db.execute("INSERT INTO users VALUES (10001, 'x', 'x', 'x')")
        self.init()
        self.assertEqual(dump(self.db_path), seeded)
        self.init()
        self.assertEqual(dump(self.db_path), seeded)


def as_unprivileged():
    """Root reads and writes whatever the permission bits say: the bad-file cases run the binary as
    nobody instead (its files and directories are made for that)."""
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)


class BadFileTest(unittest.TestCase):
    """Files the server cannot use: exit 2 before listening, one line naming the file."""

    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="ringside-sqlite-")
        os.chmod(self.directory, 0o777)

    def tearDown(self):
        for root, dirs, _ in os.walk(self.directory):
            for name in dirs:
                os.chmod(os.path.join(root, name), 0o777)
        shutil.rmtree(self.directory)

    def refuses(self, path):
        """Runs serve (and db init) on path as an unprivileged user; both must exit 2 naming it."""
        for args in (["serve", "--port", "0", "--threads", "1"], ["db", "init"]):
            with self.subTest(command=args[0]):
                try:
                    result = subprocess.run([BIN, *args, "--db", f"sqlite:{path}"],
                                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                            preexec_fn=as_unprivileged, timeout=RUN_TIMEOUT)
                except subprocess.TimeoutExpired:
                    self.fail(f"{args[0]} ran on {path} instead of refusing it")
                stderr = result.stderr.decode(errors="replace")
                self.assertEqual(result.returncode, 2, stderr)
                self.assertEqual(len(stderr.strip().splitlines()), 1, stderr)
                self.assertIn(path, stderr)
                self.assertIn("--db", stderr)
                self.assertEqual(result.stdout, b"", "it said it was listening")
        return stderr

    def good_file(self, name):
        """A seeded database that nobody may read and write, in a directory nobody may write."""
        path = os.path.join(self.directory, name)
        self.init(path)
        os.chmod(path, 0o666)
        return path

    def init(self, path):
        result = subprocess.run([BIN, "db", "init", "--db", f"sqlite:{path}"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, timeout=RUN_TIMEOUT)
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_a_file_of_garbage_bytes(self):
        path = os.path.join(self.directory, "garbage.db")
        with open(path, "wb") as garbage:
            garbage.write(os.urandom(8192))
        os.chmod(path, 0o666)
        self.assertIn("not a usable SQLite database", self.refuses(path))
        with open(path, "rb") as garbage:
            self.assertEqual(len(garbage.read()), 8192, "the garbage was overwritten")

    def test_an_unreadable_file(self):
        path = self.good_file("unreadable.db")
        os.chmod(path, 0o000)
        self.refuses(path)

    def test_a_read_only_file(self):
        path = self.good_file("read-only.db")
        os.chmod(path, 0o444)
        self.assertIn("write permission", self.refuses(path))

    def test_a_read_only_directory_without_the_file(self):
        directory = os.path.join(self.directory, "read-only")
        os.mkdir(directory, 0o555)
        self.refuses(os.path.join(directory, "new.db"))
        self.assertEqual(os.listdir(directory), [])

    def test_a_read_only_directory_that_cannot_hold_the_wal(self):
        directory = os.path.join(self.directory, "no-wal")
        os.mkdir(directory, 0o777)
        path = self.good_file(os.path.join("no-wal", "x.db"))
        self.assertFalse(os.path.exists(path + "-wal"), "the WAL outlived its last connection")
        os.chmod(directory, 0o555)
        self.refuses(path)

    def test_a_missing_directory(self):
        self.refuses(os.path.join(self.directory, "no", "such", "x.db"))

    def test_a_directory(self):
        self.refuses(self.directory)

    def test_the_same_files_work_for_their_owner(self):
        """The control case: a good file, as the unprivileged user, serves."""
        path = self.good_file("fine.db")
        with Server("--db", f"sqlite:{path}", threads=1, preexec_fn=as_unprivileged) as server:
            self.assertEqual(exchange(server, "/updates?queries=2")[0].status, 200)


if __name__ == "__main__":
    unittest.main()
