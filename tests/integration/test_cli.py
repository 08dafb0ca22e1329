"""`ringside serve` flags: --help shows defaults; a bad flag or value is one line naming it and
exit code 2; a busy port is a clear error."""
import subprocess
import unittest

from ringside_testlib import BIN, Server


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
                 (["--bogus"], "--bogus"), (["--host", "example.org"], "--host"), (["--max-connections", "0"], "--max-connections")]
        for args, name in cases:
            with self.subTest(args=args):
                code, _, err = run("serve", *args)
                self.assertEqual(code, 2, err)
                self.assertEqual(len(err.strip().splitlines()), 1, err)
                self.assertIn(name, err)

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
