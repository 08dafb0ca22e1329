"""scripts/include-graph on copies of src/ made wrong on purpose: an include that goes up a layer,
and a cycle between two modules of one folder, each fail the check with exit 1 and name the file
and line; the untouched copy passes, and --dot draws every module and edge. (The real tree is
checked by the test layout.src_layers and by the build's ringside_layers target.)"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "include-graph"


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=60)


def add_include(path, target):
    """Puts `#include "target"` after the file's last #include line; returns its line number."""
    lines = path.read_text().splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if line.lstrip().startswith("#include"))
    lines.insert(last + 1, f'#include "{target}"\n')
    path.write_text("".join(lines))
    return last + 2


class IncludeGraphTest(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.TemporaryDirectory(prefix="include-graph-")
        self.src = pathlib.Path(self.work.name) / "src"
        shutil.copytree(ROOT / "src", self.src)

    def tearDown(self):
        self.work.cleanup()

    def check(self):
        return run("--check", "--root", str(self.src))

    def test_the_copy_as_it_is_passes(self):
        result = self.check()
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout + result.stderr, "")

    def test_an_upward_include_fails_naming_its_file_and_line(self):
        line = add_include(self.src / "core" / "socket.hpp", "harness/run/compare_run.hpp")
        result = self.check()
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn(f"src/core/socket.hpp:{line}: includes harness/run/compare_run.hpp, but core "
                      "may only include core", result.stderr)

    def test_a_cycle_between_two_modules_of_one_folder_fails_naming_both_includes(self):
        # core/timer_list.hpp includes core/clock.hpp already; the reverse closes a cycle.
        self.assertIn('#include "core/clock.hpp"', (self.src / "core" / "timer_list.hpp").read_text())
        line = add_include(self.src / "core" / "clock.hpp", "core/timer_list.hpp")
        result = self.check()
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("a cycle of includes among core/clock, core/timer_list", result.stderr)
        self.assertIn(f"core/clock -> core/timer_list (src/core/clock.hpp:{line})", result.stderr)
        self.assertRegex(result.stderr, r"core/timer_list -> core/clock \(src/core/timer_list\.hpp:\d+\)")
        self.assertIn("1 problem(s)", result.stderr)

    def test_a_cycle_through_a_cpp_file_counts_too(self):
        # A module is its .hpp and its .cpp: core/resolve.cpp includes core/socket.hpp, so an
        # include of core/resolve.hpp in core/socket.cpp closes a cycle of two .cpp files' includes.
        self.assertIn('#include "core/socket.hpp"', (self.src / "core" / "resolve.cpp").read_text())
        line = add_include(self.src / "core" / "socket.cpp", "core/resolve.hpp")
        result = self.check()
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("a cycle of includes among core/resolve, core/socket", result.stderr)
        self.assertIn(f"core/socket -> core/resolve (src/core/socket.cpp:{line})", result.stderr)
        self.assertRegex(result.stderr, r"core/resolve -> core/socket \(src/core/resolve\.cpp:\d+\)")

    def test_dot_draws_every_module_in_its_folder_and_every_edge(self):
        result = run("--dot", "--root", str(self.src))
        self.assertEqual(result.returncode, 0, result.stderr)
        text = result.stdout
        self.assertTrue(text.startswith("digraph src {"), text[:80])
        self.assertTrue(text.rstrip().endswith("}"))
        self.assertEqual(text.count("{"), text.count("}"))
        declared = set(re.findall(r'^\s+"([^"]+)" \[label=', text, re.M))
        edges = re.findall(r'^\s+"([^"]+)" -> "([^"]+)";', text, re.M)
        modules = {str(p.relative_to(self.src).with_suffix("")) for p in self.src.rglob("*")
                   if p.suffix in (".hpp", ".cpp", ".h")}
        self.assertEqual(declared, modules)
        self.assertIn(("core/timer_list", "core/clock"), edges)
        for source, target in edges:
            self.assertIn(source, declared)
            self.assertIn(target, declared)
        self.assertIn('label="core"', text)
        self.assertIn('label="harness/run"', text)


if __name__ == "__main__":
    unittest.main()
