"""Host names: `ringside serve --host NAME` and `ringside load http://NAME:PORT/` resolve a name once
at start, through /etc/hosts and /etc/resolv.conf, with no glibc NSS (the release binary is
static). The names are the test's own: it creates a network namespace, and `ip netns exec` puts
/etc/netns/<ns>/hosts and resolv.conf over /etc's inside it. The namespace's DNS server is
127.0.0.1:53 there, where nothing listens, so a name missing from its hosts file fails fast and no
query leaves the namespace. Needs root (to create the namespace); skipped, saying so, otherwise."""
import json
import os
import re
import secrets
import select
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from ringside_testlib import BIN, Server

HOSTS = """\
127.0.0.1 api.ringside-test
::1 v6.ringside-test
127.0.0.1 dual.ringside-test
::1 dual.ringside-test
::1 localhost
"""
# One try of one second: an unknown name fails in about a second, well inside ringside's own 5 s.
RESOLV = "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n"
WHAT_TO_DO = "check the name, /etc/hosts or /etc/resolv.conf, or give an IP address"


def sh(*args, timeout=30):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)


class HostNamesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("host-name tests need root to create a network namespace "
                                    "(ip netns add); not run")
        if shutil.which("ip") is None:
            raise AssertionError("ip (iproute2) not found on PATH: run scripts/setup")
        cls.ns = "ringside-names-" + secrets.token_hex(4)
        cls.etc = os.path.join("/etc/netns", cls.ns)
        # Cleanups run even when setUpClass fails half-way.
        cls.addClassCleanup(shutil.rmtree, cls.etc, ignore_errors=True)
        created = sh("ip", "netns", "add", cls.ns)
        if created.returncode != 0:
            raise unittest.SkipTest("cannot create a network namespace here (ip netns add: "
                                    f"{created.stderr.decode().strip()}); host-name tests not run")
        cls.addClassCleanup(sh, "ip", "netns", "delete", cls.ns)
        os.makedirs(cls.etc)
        with open(os.path.join(cls.etc, "hosts"), "w") as f:
            f.write(HOSTS)
        with open(os.path.join(cls.etc, "resolv.conf"), "w") as f:
            f.write(RESOLV)
        up = sh("ip", "netns", "exec", cls.ns, "ip", "link", "set", "lo", "up")
        if up.returncode != 0:
            raise AssertionError(f"cannot bring lo up in {cls.ns}: {up.stderr.decode()}")

    def write_resolv_conf(self, text):
        with open(os.path.join(self.etc, "resolv.conf"), "w") as f:
            f.write(text)

    def in_ns(self, *args):
        return ["ip", "netns", "exec", self.ns, *args]

    def serve(self, host):
        server = Server("--host", host, "--db", "none", threads=1)
        server.args = self.in_ns(*server.args)
        return server

    def load(self, *args, timeout=60):
        """Runs ringside load in the namespace; returns (exit code, JSON or None, stderr)."""
        started = time.monotonic()
        result = sh(*self.in_ns(BIN, "load", "--json", "-c", "2", "-t", "1", *args), timeout=timeout)
        self.elapsed = time.monotonic() - started
        doc = json.loads(result.stdout) if result.returncode in (0, 1) else None
        return result.returncode, doc, result.stderr.decode()

    def assert_answered(self, doc, count):
        self.assertEqual(doc["requests"]["completed"], count)
        self.assertEqual(doc["requests"]["failed"], 0)
        self.assertEqual(doc["status"]["codes"], {"200": count})

    def test_serve_and_load_by_name(self):
        with self.serve("api.ringside-test") as server:
            code, doc, err = self.load("-n", "100", f"http://api.ringside-test:{server.port}/")
            self.assertEqual(code, 0, err)
        self.assert_answered(doc, 100)
        self.assertEqual(doc["config"]["resolved"],
                         {"api.ringside-test": {"addresses": ["127.0.0.1"], "used": "127.0.0.1"}})
        self.assertIn("ringside load: api.ringside-test resolved to 127.0.0.1; connections go to "
                      "127.0.0.1", err)
        self.assertEqual(doc["config"]["urls"], [f"http://api.ringside-test:{server.port}/"])

    def test_an_ipv6_only_name(self):
        with self.serve("v6.ringside-test") as server:
            code, doc, err = self.load("-n", "100", f"http://v6.ringside-test:{server.port}/")
            self.assertEqual(code, 0, err)
        self.assert_answered(doc, 100)
        self.assertEqual(doc["config"]["resolved"]["v6.ringside-test"],
                         {"addresses": ["::1"], "used": "::1"})

    def test_a_name_with_both_families_uses_the_address_that_accepts(self):
        # dual.ringside-test has 127.0.0.1 and ::1; a server listens on one family only, and the
        # load must find it whichever order the resolver gives.
        for listen in ("127.0.0.1", "::1"):
            with self.subTest(listen=listen), self.serve(listen) as server:
                code, doc, err = self.load("-n", "100", f"http://dual.ringside-test:{server.port}/")
                self.assertEqual(code, 0, err)
                self.assert_answered(doc, 100)
                resolved = doc["config"]["resolved"]["dual.ringside-test"]
                self.assertEqual(sorted(resolved["addresses"]), ["127.0.0.1", "::1"])
                self.assertEqual(resolved["used"], listen)

    def test_localhost_is_looked_up_in_etc_hosts(self):
        # This namespace's hosts file has localhost as ::1 only (no longer taken as 127.0.0.1).
        with self.serve("localhost") as server:
            code, doc, err = self.load("-n", "10", f"http://localhost:{server.port}/")
            self.assertEqual(code, 0, err)
        self.assert_answered(doc, 10)
        self.assertEqual(doc["config"]["resolved"]["localhost"], {"addresses": ["::1"], "used": "::1"})

    def test_the_serve_start_up_line_names_the_host_and_its_address(self):
        process = subprocess.Popen(self.in_ns(BIN, "serve", "--host", "dual.ringside-test", "--port",
                                              "0", "--threads", "1", "--db", "none"),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            ready, _, _ = select.select([process.stdout], [], [], 15)
            self.assertTrue(ready, "no start-up line within 15 s")
            line = process.stdout.readline().decode()  # printed and flushed whole
        finally:
            process.terminate()
            process.communicate(timeout=15)
        # It listens on the first of the name's addresses (whichever order the resolver gives).
        match = re.match(r"ringside serve: listening on http://\[?([0-9a-f.:]+?)\]?:\d+ "
                         r"\(--host dual\.ringside-test: (\S+) of (\S+), (\S+); 1 threads", line)
        self.assertTrue(match, line)
        listening, shown, first, second = match.groups()
        self.assertEqual({first, second}, {"127.0.0.1", "::1"}, line)
        self.assertEqual(listening, first, line)
        self.assertEqual(shown, first, line)

    def test_ip_literals_are_not_looked_up(self):
        with self.serve("127.0.0.1") as server:
            code, doc, err = self.load("-n", "10", f"http://127.0.0.1:{server.port}/")
            self.assertEqual(code, 0, err)
        self.assert_answered(doc, 10)
        self.assertNotIn("resolved", doc["config"])
        self.assertNotIn("resolved to", err)

    def assert_unresolved(self, code, err, names):
        self.assertEqual(code, 2, err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        for text in (*names, "nosuch.ringside-test", WHAT_TO_DO):
            self.assertIn(text, err)
        self.assertLess(self.elapsed, 10, "the lookup is bounded")

    def test_an_unknown_name_fails_at_once_with_exit_2(self):
        code, _, err = self.load("-n", "10", "http://nosuch.ringside-test:8080/")
        self.assert_unresolved(code, err, ["ringside load: url http://nosuch.ringside-test:8080/:"])

        urls = os.path.join(tempfile.mkdtemp(prefix="ringside-urls-"), "urls.txt")
        self.addCleanup(shutil.rmtree, os.path.dirname(urls))
        with open(urls, "w") as f:
            f.write("# comment\n\nhttp://nosuch.ringside-test:8080/a\nhttp://nosuch.ringside-test:8080/b\n")
        code, _, err = self.load("-n", "10", "--urls-file", urls)
        self.assert_unresolved(code, err, [f"--urls-file {urls} line 3:"])

        started = time.monotonic()
        result = sh(*self.in_ns(BIN, "serve", "--host", "nosuch.ringside-test", "--port", "0",
                                "--db", "none"))
        self.elapsed = time.monotonic() - started
        self.assertEqual(result.stdout, b"")
        self.assert_unresolved(result.returncode, result.stderr.decode(), ["ringside serve: --host:"])

    def test_a_resolver_that_never_answers_is_given_5_s(self):
        # A DNS server that reads queries and never answers, and a resolv.conf that would have
        # c-ares wait 30 s per try, 5 tries: ringside gives up at its own bound.
        silent = subprocess.Popen(
            self.in_ns(sys.executable, "-c",
                       "import socket\n"
                       "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                       "s.bind(('127.0.0.1', 53))\n"
                       "print('ready', flush=True)\n"
                       "while True: s.recv(512)\n"),
            stdout=subprocess.PIPE)
        self.addCleanup(silent.stdout.close)
        self.addCleanup(silent.wait, 15)
        self.addCleanup(silent.kill)
        ready, _, _ = select.select([silent.stdout], [], [], 15)
        self.assertTrue(ready and silent.stdout.readline() == b"ready\n", "silent DNS did not start")
        self.write_resolv_conf("nameserver 127.0.0.1\noptions timeout:30 attempts:5\n")
        self.addCleanup(self.write_resolv_conf, RESOLV)
        code, _, err = self.load("-n", "10", "http://nosuch.ringside-test:8080/")
        self.assert_unresolved(code, err, ["(no answer within 5 s)"])
        self.assertGreater(self.elapsed, 4, err)


if __name__ == "__main__":
    unittest.main()
