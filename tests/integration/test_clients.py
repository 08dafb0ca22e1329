"""Real clients against `ringside serve`: curl, ab (keep-alive and not), wrk, and 10,000
concurrent keep-alive connections. Runs are short and bounded."""
import re
import resource
import unittest

from ringside_testlib import Server, needs_tools, run_tool


def raise_open_files():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def wrk_summary(output):
    requests = int(re.search(r"(\d+) requests in", output).group(1))
    errors = re.search(r"Socket errors: (.*)", output)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return requests, errors.group(1) if errors else None, int(non2xx.group(1)) if non2xx else 0


@needs_tools("wrk", "ab", "curl")
class ClientsTest(unittest.TestCase):
    def test_curl_gets_hello_world(self):
        with Server() as server:
            code, output = run_tool(["curl", "-sS", "-i", server.url("/")], timeout=10)
            self.assertEqual(code, 0, output)
            self.assertIn("HTTP/1.1 200 OK", output)
            self.assertTrue(output.endswith("Hello World!"), output)

    def test_ab_keep_alive_completes_every_request(self):
        with Server() as server:
            code, output = run_tool(["ab", "-k", "-n", "5000", "-c", "50", server.url("/")])
            self.assertEqual(code, 0, output)
            self.assertRegex(output, r"Complete requests:\s+5000\b")
            self.assertRegex(output, r"Failed requests:\s+0\b")
            self.assertRegex(output, r"Keep-Alive requests:\s+5000\b")
            self.assertNotIn("Non-2xx", output)

    def test_ab_without_keep_alive_completes_every_request(self):
        with Server() as server:
            code, output = run_tool(["ab", "-n", "1000", "-c", "10", server.url("/")])
            self.assertEqual(code, 0, output)
            self.assertRegex(output, r"Complete requests:\s+1000\b")
            self.assertRegex(output, r"Failed requests:\s+0\b")

    def test_wrk_runs_without_errors(self):
        with Server() as server:
            code, output = run_tool(["wrk", "-t2", "-c64", "-d2s", server.url("/plaintext")])
            self.assertEqual(code, 0, output)
            requests, errors, non2xx = wrk_summary(output)
            self.assertGreater(requests, 1000, output)
            self.assertIsNone(errors, output)
            self.assertEqual(non2xx, 0, output)

    def test_ten_thousand_keep_alive_connections_are_served_without_errors(self):
        with Server(preexec_fn=raise_open_files) as server:
            code, output = run_tool(["wrk", "-t2", "-c10000", "-d4s", "--timeout", "10s",
                                     server.url("/")], timeout=60, preexec_fn=raise_open_files)
            self.assertEqual(code, 0, output)
            requests, errors, non2xx = wrk_summary(output)
            self.assertIsNone(errors, output)
            self.assertEqual(non2xx, 0, output)
            self.assertGreaterEqual(requests, 10000, output)


if __name__ == "__main__":
    unittest.main()
