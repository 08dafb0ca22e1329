"""Issue 24: ringside installed like wrk. `cmake --install` of this build into a temporary prefix,
then, in a mount namespace of the test's own where the source tree (and with it this build folder)
is hidden under an empty tmpfs, the installed binary finds its data beside itself and runs
`ringside compare --quick --only ringside,nginx`: the results land in the current folder, the
builds' cache in $XDG_CACHE_HOME, and nothing under the install prefix changes. The installed man
pages show the flags their command's --help shows, and the bash completion completes them (all
made from the same text)."""
import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import unittest

from ringside_testlib import needs_tools

BUILD_DIR = pathlib.Path(os.environ.get("RINGSIDE_BUILD_DIR", ""))
SOURCE_DIR = pathlib.Path(os.environ.get("RINGSIDE_SOURCE_DIR", ""))


def snapshot(root):
    """Every path under root with its size and modification time."""
    entries = {}
    for folder, names, files in os.walk(root):
        for name in names + files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            entries[os.path.relpath(path, root)] = (info.st_size, info.st_mtime_ns)
    return entries


def flag_names(text):
    """The long flags named in a help text or a rendered man page."""
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*[a-z0-9]", text))


def hidden_source_run(command, cwd, env, timeout):
    """`command` in a new mount namespace with SOURCE_DIR covered by an empty tmpfs."""
    script = 'mount -t tmpfs ringside-hidden "$1" && cd "$2" && shift 2 && exec "$@"'
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script,
                           "sh", str(SOURCE_DIR), str(cwd), *command],
                          capture_output=True, text=True, env=env, timeout=timeout)


@unittest.skipUnless(os.geteuid() == 0, "a mount namespace needs root (CI runs as root)")
@needs_tools("unshare", "nginx", "cmake", "man")
class InstalledTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not (BUILD_DIR / "CMakeCache.txt").is_file() or not SOURCE_DIR.is_dir():
            raise unittest.SkipTest("set RINGSIDE_BUILD_DIR and RINGSIDE_SOURCE_DIR (ctest does)")
        cls.folder = pathlib.Path(tempfile.mkdtemp(prefix="ringside-install-"))
        assert SOURCE_DIR.resolve() not in cls.folder.resolve().parents, "temp inside the source"
        cls.prefix = cls.folder / "usr"
        subprocess.run(["cmake", "--install", str(BUILD_DIR), "--prefix", str(cls.prefix)],
                       check=True, capture_output=True, timeout=120)
        cls.binary = cls.prefix / "bin" / "ringside"
        cls.work = cls.folder / "work"
        cls.work.mkdir()
        cls.env = dict(os.environ, XDG_CACHE_HOME=str(cls.folder / "cache"),
                       XDG_CONFIG_HOME=str(cls.folder / "config"))
        cls.env.pop("RINGSIDE_DATA", None)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.folder, ignore_errors=True)

    def test_the_layout_holds_the_data_and_none_of_what_setup_or_builds_made(self):
        data = self.prefix / "share" / "ringside"
        self.assertTrue(os.access(self.binary, os.X_OK))
        for path in ("scenarios/default.toml", "contestants/nginx/contestant.toml",
                     "contestants/ringside/start.sh", "contestants/rust-hyper/.cargo/config.toml",
                     "web/report/report.html"):
            self.assertTrue((data / path).is_file(), path)
        made = [p for p in data.rglob("*") if p.name in ("node_modules", "target", "build")
                and p.parent.name != "web"]
        self.assertEqual(made, [])
        self.assertTrue((self.prefix / "share" / "doc" / "ringside" / "README.md").is_file())

    def test_each_man_page_shows_the_flags_its_help_shows(self):
        env = dict(self.env, MANPATH=str(self.prefix / "share" / "man"), MANWIDTH="1000",
                   LANG="C.UTF-8")
        for command in ("serve", "load", "merge", "db temp", "db init", "compare",
                        "contestants install", "contestants new"):
            name = "ringside-" + command.replace(" ", "-")
            page = subprocess.run(["man", name], capture_output=True, text=True, env=env, timeout=60)
            self.assertEqual(page.returncode, 0, page.stderr)
            self.assertTrue(page.stdout.startswith(name.upper() + "(1)"), page.stdout[:80])
            shown = page.stdout.replace("\u2010", "-").replace("\u2212", "-")
            help_text = subprocess.run([str(self.binary), *command.split(), "--help"],
                                       capture_output=True, text=True, timeout=30).stdout
            flags = flag_names(help_text)
            self.assertGreaterEqual(len(flags), 2, help_text)  # --help and its own
            self.assertEqual(flag_names(shown), flags, command)
        for name, commands in (("ringside", ("serve", "load", "compare")), ("ringside-db", ("temp", "init"))):
            page = subprocess.run(["man", name], capture_output=True, text=True, env=env, timeout=60)
            self.assertEqual(page.returncode, 0, page.stderr)
            for command in commands:
                self.assertIn(command, page.stdout, name)

    def complete(self, *words):
        """What the installed bash completion offers for the last of `words`."""
        script = self.prefix / "share" / "bash-completion" / "completions" / "ringside"
        program = ('source "$1"; shift; COMP_WORDS=(ringside "$@"); COMP_CWORD=$#; _ringside; '
                   'printf "%s\\n" "${COMPREPLY[@]}"')
        result = subprocess.run(["bash", "-c", program, "bash", str(script), *words],
                                capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 0, result.stderr)
        return set(result.stdout.split())

    def test_bash_completes_commands_and_each_commands_own_flags(self):
        self.assertEqual(self.complete("co"), {"compare", "contestants"})
        self.assertEqual(self.complete("contestants", ""), {"install", "new"})
        self.assertEqual(self.complete("db", ""), {"temp", "init"})
        expected = {"serve": {"--ktls", "--tls-port", "--threads"}, "load": {"--rate", "--cacert"},
                    "compare": {"--quick", "--only", "--list", "--cache"}, "db temp": {"--keep"},
                    "contestants install": {"--cache", "--contestants"}}
        for command, some in expected.items():
            offered = self.complete(*command.split(), "--")
            help_text = subprocess.run([str(self.binary), *command.split(), "--help"],
                                       capture_output=True, text=True, timeout=30).stdout
            self.assertLessEqual(some | {"--help"}, offered, command)
            self.assertLessEqual(offered, flag_names(help_text), command)
        self.assertEqual(self.complete("compare", "--qu"), {"--quick"})
        zsh = (self.prefix / "share" / "zsh" / "vendor-completions" / "_ringside").read_text()
        self.assertTrue(zsh.startswith("#compdef ringside"))
        self.assertIn("--quick", zsh)

    def test_compare_runs_from_the_install_and_writes_only_where_the_user_is(self):
        before = snapshot(self.prefix)
        listed = hidden_source_run([str(self.binary), "compare", "--list"], self.work, self.env, 120)
        self.assertEqual(listed.returncode, 0, listed.stderr)
        self.assertIn(f"data:  {self.prefix / 'share' / 'ringside'} (installed beside {self.binary})",
                      listed.stderr)
        run = hidden_source_run([str(self.binary), "compare", "--quick", "--only", "ringside,nginx"],
                                self.work, self.env, 480)
        self.assertEqual(run.returncode, 0, run.stderr[-3000:])
        results = list((self.work / "results").glob("*/results.json"))
        self.assertEqual(len(results), 1, run.stdout[-2000:])
        document = json.loads(results[0].read_text())
        self.assertEqual(sorted(c["name"] for c in document["contestants"]), ["nginx", "ringside"])
        for report in ("report.md", "report.html"):
            self.assertTrue((results[0].parent / report).is_file(), report)
        self.assertEqual(snapshot(self.prefix), before, "the run wrote under the install prefix")

    def test_contestants_install_builds_and_installs_into_the_cache_not_the_install(self):
        """`ringside contestants install floor node-http` from the install: floor is built (cc)
        and the Node packages installed (npm ci, here a stand-in that records its arguments and
        makes the package node-http requires) in the working copy under --cache; once, not again
        while the lockfile is the same; nothing under the prefix changes."""
        before = snapshot(self.prefix)
        tools = self.folder / "fake-npm"
        tools.mkdir(exist_ok=True)
        calls = self.folder / "npm-calls"
        (tools / "npm").write_text(
            '#!/bin/sh\necho "$*" >> "%s"\n[ "$1 $2" = "ci --prefix" ] || exit 9\n'
            'mkdir -p "$3/node_modules/pg" && echo {} > "$3/node_modules/pg/package.json"\n' % calls)
        (tools / "npm").chmod(0o755)
        env = dict(self.env, PATH=f"{tools}:{os.environ['PATH']}")
        cache = self.folder / "own-cache"
        command = [str(self.binary), "contestants", "install", "--cache", str(cache), "floor",
                   "node-http"]
        first = hidden_source_run(command, self.work, env, 300)
        self.assertEqual(first.returncode, 0, first.stdout + first.stderr)
        copy = cache / "contestants"
        self.assertEqual(calls.read_text().split("\n")[0].split()[:3], ["ci", "--prefix", str(copy)])
        self.assertRegex(first.stdout, r"floor\s+ready \(built in")
        self.assertRegex(first.stdout, r"node-http\s+ready\n")
        self.assertTrue(os.access(copy / "floor" / "build" / "floor", os.X_OK))
        again = hidden_source_run(command, self.work, env, 300)
        self.assertEqual(again.returncode, 0, again.stdout + again.stderr)
        self.assertEqual(len(calls.read_text().splitlines()), 1, "npm ci ran again")
        self.assertRegex(again.stdout, r"floor\s+ready\n")
        listed = hidden_source_run([str(self.binary), "compare", "--list", "--cache", str(cache),
                                    "floor", "node-http"], self.work, env, 120)
        self.assertEqual(listed.returncode, 0, listed.stderr)
        self.assertRegex(listed.stdout, r"floor\s+\S+.*built\s+runnable")
        self.assertRegex(listed.stdout, r"node-http\s.*\brunnable")
        # A cache without the packages: the line says the command that installs them.
        bare = hidden_source_run([str(self.binary), "compare", "--list", "--cache",
                                  str(self.folder / "bare-cache"), "node-http"], self.work, env, 120)
        self.assertIn("install: ringside contestants install node-http", bare.stdout)
        # compare installs them on first use too, saying so (the stand-in's pg is no real one,
        # so how the check of node-http ends is not this test's business).
        first_use = self.folder / "first-use-cache"
        validate = hidden_source_run([str(self.binary), "compare", "--validate", "--cache",
                                      str(first_use), "node-http"], self.work, env, 300)
        self.assertIn(f"first use: npm ci in {first_use / 'contestants'}", validate.stderr)
        self.assertEqual(calls.read_text().splitlines()[-1].split()[:3],
                         ["ci", "--prefix", str(first_use / "contestants")])
        self.assertEqual(snapshot(self.prefix), before, "contestants install wrote under the prefix")


if __name__ == "__main__":
    unittest.main()
