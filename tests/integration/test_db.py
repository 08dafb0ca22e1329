"""`ringside db temp` and `ringside db init` against Debian's real PostgreSQL: the throwaway cluster
starts, is seeded exactly, and leaves no directory and no process behind when signalled or when
its parent dies; seeding twice changes nothing."""
import html
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
import unittest

from ringside_testlib import BIN, needs_tools, wait_until

# initdb, start-up and seeding under the sanitizers on a loaded 2-core machine.
START_TIMEOUT = 120.0
STOP_TIMEOUT = 30.0

FORTUNES = [
    "fortune: No such file or directory",
    "A computer scientist is someone who fixes things that aren't broken.",
    "After enough decimal places, nobody gives a damn.",
    "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1",
    "A computer program does what you tell it to do, not what you want it to do.",
    "Emacs is a nice operating system, but I prefer UNIX. \u2014 Tom Christaensen",
    "Any program that runs right is obsolete.",
    "A list is only as strong as its weakest link. \u2014 Donald Knuth",
    "Feature: A bug with seniority.",
    "Computers make very fast, very accurate mistakes.",
    "<script>alert(\"This should not be displayed in a browser alert box.\");</script>",
    "\u30d5\u30ec\u30fc\u30e0\u30ef\u30fc\u30af\u306e\u30d9\u30f3\u30c1\u30de\u30fc\u30af",
]

def expected_fortunes_html():
    """/fortunes exactly as TechEmpower wants it: the rows and one added at request time, sorted
    by message (byte order), escaped."""
    rows = [(i + 1, message) for i, message in enumerate(FORTUNES)]
    rows.append((0, "Additional fortune added at request time."))
    rows.sort(key=lambda row: row[1].encode())
    cells = "".join(f"<tr><td>{id}</td><td>{html.escape(message, quote=True)}"
                    f"</td></tr>" for id, message in rows)
    return ("<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table>"
            f"<tr><th>id</th><th>message</th></tr>{cells}</table></body></html>").encode()


# One md5 per table over every row in id order: equal checksums mean equal data.
CHECKSUMS = (
    "SELECT (SELECT count(*) FROM users), (SELECT count(*) FROM world),"
    " (SELECT count(*) FROM fortune),"
    " (SELECT md5(string_agg(id || '|' || name || '|' || email || '|' || created_at, ',' ORDER BY id))"
    "  FROM users),"
    " (SELECT md5(string_agg(id || '|' || randomnumber, ',' ORDER BY id)) FROM world),"
    " (SELECT md5(string_agg(id || '|' || message, ',' ORDER BY id)) FROM fortune)")


def psql(url, sql):
    """Runs sql with psql (unaligned, tuples only); returns its rows as lists of fields."""
    result = subprocess.run(["psql", "-X", "-v", "ON_ERROR_STOP=1", "-A", "-t", "-F", "\t",
                             "-d", url, "-c", sql], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            timeout=60)
    if result.returncode != 0:
        raise AssertionError(f"psql failed: {result.stderr.decode(errors='replace')}")
    return [line.split("\t") for line in result.stdout.decode().splitlines()]


def read_line(stream, timeout):
    """The first line a child writes to stream, waiting at most timeout seconds."""
    data = b""
    deadline = time.monotonic() + timeout
    while b"\n" not in data:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise AssertionError(f"no line within {timeout}s: {data!r}")
        ready, _, _ = select.select([stream], [], [], remaining)
        if ready:
            chunk = os.read(stream.fileno(), 4096)
            if not chunk:
                raise AssertionError(f"stream closed before a whole line: {data!r}")
            data += chunk
    return data.split(b"\n", 1)[0].decode()


def session_processes(session_id):
    """Pids of live processes in this session: the postmaster runs in its own, and its backends
    and helpers inherit it."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After the command: state, ppid, pgrp, session. A zombie is gone for our purposes.
        if fields[0] != "Z" and int(fields[3]) == session_id:
            pids.append(int(entry))
    return pids


def cluster_of(url):
    """The cluster's directory and its postmaster's pid, asked of the running server."""
    data_directory = psql(url, "SHOW data_directory")[0][0]
    with open(os.path.join(data_directory, "postmaster.pid")) as pid_file:
        postmaster = int(pid_file.readline())
    return os.path.dirname(data_directory), postmaster


def start_temp(*args):
    """Starts `ringside db temp`; returns the process and the URL it printed."""
    process = subprocess.Popen([BIN, "db", "temp", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        return process, read_line(process.stdout, START_TIMEOUT)
    except AssertionError:
        process.kill()
        process.wait(timeout=STOP_TIMEOUT)
        raise AssertionError(f"ringside db temp did not start: {process.stderr.read()!r}")


def stop_orphan(directory, postmaster):
    """After a failed test: SIGTERM whatever ringside still runs this postmaster, so it stops the
    cluster and removes the directory as it would have."""
    try:
        with open(f"/proc/{postmaster}/stat") as stat:
            ringside = int(stat.read().rsplit(")", 1)[1].split()[1])
        os.kill(ringside, signal.SIGTERM)
    except (OSError, ValueError):
        pass
    wait_until(lambda: not os.path.exists(directory), STOP_TIMEOUT)


def wait_gone(test, directory, postmaster):
    test.assertTrue(wait_until(lambda: not os.path.exists(directory), STOP_TIMEOUT),
                    f"{directory} still there")
    test.assertTrue(wait_until(lambda: not session_processes(postmaster), STOP_TIMEOUT),
                    f"PostgreSQL processes left: {session_processes(postmaster)}")


@needs_tools("psql")
class SeededClusterTest(unittest.TestCase):
    """One cluster for the class: initdb is the slow part."""

    @classmethod
    def setUpClass(cls):
        cls.process, cls.url = start_temp()

    @classmethod
    def tearDownClass(cls):
        cls.process.send_signal(signal.SIGTERM)
        cls.process.wait(timeout=STOP_TIMEOUT)
        cls.process.stdout.close()
        cls.process.stderr.close()

    def test_url_is_postgres_over_tcp_on_loopback(self):
        self.assertRegex(self.url, r"^postgres://postgres@127\.0\.0\.1:\d+/ringside$")

    def test_users_are_seeded_deterministically(self):
        self.assertEqual(psql(self.url, "SELECT count(*) FROM users"), [["10000"]])
        rows = psql(self.url, "SELECT id, name, email, created_at AT TIME ZONE 'UTC' FROM users"
                              " WHERE id IN (1, 10000) ORDER BY id")
        self.assertEqual(rows, [["1", "User 1", "user1@example.com", "2024-01-01 00:00:01"],
                                ["10000", "User 10000", "user10000@example.com",
                                 "2024-01-01 02:46:40"]])

    def test_world_has_10000_rows_in_range(self):
        rows = psql(self.url, "SELECT count(*), count(DISTINCT id), min(id), max(id),"
                              " min(randomNumber), max(randomNumber) FROM World")
        count, distinct, min_id, max_id, low, high = map(int, rows[0])
        self.assertEqual((count, distinct, min_id, max_id), (10000, 10000, 1, 10000))
        self.assertGreaterEqual(low, 1)
        self.assertLessEqual(high, 10000)

    def test_fortunes_are_techempowers_twelve(self):
        rows = psql(self.url, "SELECT id, message FROM Fortune ORDER BY id")
        self.assertEqual(rows, [[str(i + 1), message] for i, message in enumerate(FORTUNES)])

    def test_pg_stat_statements_counts_queries(self):
        psql(self.url, "SELECT pg_stat_statements_reset()")
        for _ in range(3):
            psql(self.url, "SELECT randomNumber FROM World WHERE id = 7")
        rows = psql(self.url, "SELECT calls FROM pg_stat_statements"
                              " WHERE query LIKE 'SELECT randomNumber FROM World%'")
        self.assertEqual(rows, [["3"]])

    def test_init_twice_changes_nothing_and_restores_the_seed(self):
        seeded = psql(self.url, CHECKSUMS)
        self.assertEqual(seeded[0][:3], ["10000", "10000", "12"])
        psql(self.url, "UPDATE world SET randomnumber = 1 WHERE id <= 100;"
                       " INSERT INTO users VALUES (10001, 'x', 'x', now())")
        for run in range(2):
            result = subprocess.run([BIN, "db", "init", "--db", self.url], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, timeout=120)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(psql(self.url, CHECKSUMS), seeded, f"after run {run + 1}")


@needs_tools("psql")
class StopTest(unittest.TestCase):
    def test_sigterm_stops_the_cluster_and_removes_its_directory(self):
        process, url = start_temp()
        with process:
            directory, postmaster = cluster_of(url)
            self.assertTrue(session_processes(postmaster))
            process.send_signal(signal.SIGTERM)
            self.assertEqual(process.wait(timeout=STOP_TIMEOUT), 0, process.stderr.read())
            self.assertFalse(os.path.exists(directory))
            self.assertEqual(session_processes(postmaster), [])

    def test_parent_death_stops_the_cluster_and_removes_its_directory(self):
        # A shell between us and ringside, so ringside's parent can die; `; true` stops the shell
        # from exec'ing ringside in its place.
        shell = subprocess.Popen(["/bin/sh", "-c", '"$0" db temp; true', BIN],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        with shell:
            try:
                url = read_line(shell.stdout, START_TIMEOUT)
                directory, postmaster = cluster_of(url)
            finally:
                shell.kill()
                shell.wait(timeout=STOP_TIMEOUT)
            self.addCleanup(stop_orphan, directory, postmaster)
            wait_gone(self, directory, postmaster)

    def test_keep_leaves_the_directory(self):
        process, url = start_temp("--keep")
        with process:
            directory, postmaster = cluster_of(url)
            try:
                process.send_signal(signal.SIGINT)
                self.assertEqual(process.wait(timeout=STOP_TIMEOUT), 0)
                self.assertEqual(session_processes(postmaster), [])
                self.assertTrue(os.path.isdir(os.path.join(directory, "data")))
            finally:
                subprocess.run(["rm", "-rf", "--", directory], check=True, timeout=60)


class UsageTest(unittest.TestCase):
    def run_db(self, *args):
        result = subprocess.run([BIN, "db", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                timeout=60)
        return result.returncode, result.stderr.decode()

    def test_bad_flags_exit_2_with_one_line(self):
        for args in (["temp", "--bogus"], ["init"], ["init", "--db", "mysql://x"],
                     ["init", "--db", "sqlite:"], ["bogus"]):
            code, stderr = self.run_db(*args)
            self.assertEqual(code, 2, args)
            self.assertEqual(len(stderr.strip().splitlines()), 1, stderr)

    def test_a_tmpdir_postgres_cannot_enter_is_named(self):
        """As root the cluster belongs to the postgres user: a private TMPDIR (0700, as mkdtemp
        makes them) fails at once with one line naming the directory, and leaves nothing."""
        if os.geteuid() != 0:
            self.skipTest("only root hands the cluster to the postgres user")
        private = tempfile.mkdtemp(prefix="ringside-private-tmp-")
        try:
            result = subprocess.run([BIN, "db", "temp"], stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, timeout=60,
                                    env=dict(os.environ, TMPDIR=private))
            stderr = result.stderr.decode()
            self.assertNotEqual(result.returncode, 0)
            self.assertIn(f"the postgres OS user cannot enter {private}", stderr)
            self.assertIn("set TMPDIR", stderr)
            self.assertEqual(os.listdir(private), [], "the cluster's directory was left behind")
        finally:
            shutil.rmtree(private, ignore_errors=True)

    def test_unreachable_database_exits_1_naming_it(self):
        code, stderr = self.run_db("init", "--db", "postgres://postgres@127.0.0.1:1/ringside")
        self.assertEqual(code, 1)
        self.assertIn("127.0.0.1", stderr)


if __name__ == "__main__":
    unittest.main()
