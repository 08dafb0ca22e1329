"""Issue 24: the Debian package. CPack makes it from this build (cmake/Packaging.cmake); lintian
finds nothing but the tags explained below; its control fields depend on nothing and recommend
the contestants' runtimes and the loaders; `dpkg --root` installs it into a tree of the test's
own, from where — with the source tree hidden in a mount namespace — `ringside compare --quick
--only ringside,nginx` writes its results into the current folder and nothing under the tree's
/usr; the man page there shows the flags --help shows; `dpkg --root -r` removes every file."""
import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import unittest

from ringside_testlib import needs_tools
from test_install import BUILD_DIR, SOURCE_DIR, flag_names, hidden_source_run, snapshot

# Each tag lintian may still report, and why it stays.
EXPLAINED = {
    # The binary is static on purpose (apps/CMakeLists.txt): 1.7 MB idle RSS against 2.9 MB
    # dynamic, and one file that runs on any x86-64 Linux (copied to a load machine, or the
    # scratch image of deploy/k8s). The issue asks for a package depending on nothing beyond libc.
    "statically-linked-binary": "static by design",
    # The static libpq, OpenSSL and c-ares pull in zlib's code; Debian's security updates of zlib
    # then need a rebuild of ringside, the price of a static binary (packaging/copyright names
    # every library inside).
    "embedded-library": "zlib inside the static binary",
}
TAG_LINE = re.compile(r"^([EWIPX]): ringside(?: \w+)?: (\S+)(.*)$", re.M)


@unittest.skipUnless(os.geteuid() == 0, "dpkg --root and a mount namespace need root (CI runs as root)")
@needs_tools("cpack", "dpkg", "dpkg-deb", "lintian", "unshare", "nginx", "man")
class PackageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not (BUILD_DIR / "CPackConfig.cmake").is_file() or not SOURCE_DIR.is_dir():
            raise unittest.SkipTest("set RINGSIDE_BUILD_DIR and RINGSIDE_SOURCE_DIR (ctest does)")
        cls.folder = pathlib.Path(tempfile.mkdtemp(prefix="ringside-package-"))
        made = subprocess.run(["cpack", "-G", "DEB", "--config", str(BUILD_DIR / "CPackConfig.cmake"),
                               "-B", str(cls.folder / "out")],
                              capture_output=True, text=True, timeout=300)
        if made.returncode != 0:
            shutil.rmtree(cls.folder, ignore_errors=True)
            raise AssertionError("cpack failed: " + made.stdout[-2000:] + made.stderr[-2000:])
        debs = list((cls.folder / "out").glob("ringside_*_amd64.deb"))
        assert len(debs) == 1, debs
        cls.deb = debs[0]
        cls.version = subprocess.run([os.environ["RINGSIDE_BIN"], "--version"], capture_output=True,
                                     text=True, timeout=30).stdout.split()[1]

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.folder, ignore_errors=True)

    def field(self, name):
        return subprocess.run(["dpkg-deb", "-f", str(self.deb), name], capture_output=True,
                              text=True, timeout=30, check=True).stdout.strip()

    def test_named_and_versioned_like_a_debian_package_depending_on_nothing(self):
        self.assertEqual(self.deb.name, f"ringside_{self.version}_amd64.deb")
        self.assertEqual(self.field("Package"), "ringside")
        self.assertEqual(self.field("Version"), self.version)
        self.assertEqual(self.field("Depends"), "")
        recommended = self.field("Recommends")
        for package in ("nodejs", "npm", "nginx", "h2o", "postgresql", "wrk", "apache2-utils",
                        "nghttp2-client"):
            self.assertRegex(recommended, rf"(^|[ ,|]){re.escape(package)}([ ,|]|$)", package)
        self.assertIn("cargo", self.field("Suggests"))

    def test_lintian_reports_only_the_explained_tags(self):
        run = subprocess.run(["lintian", "--no-tag-display-limit", str(self.deb)],
                             capture_output=True, text=True, timeout=300)
        tags = {tag: rest.strip() for _, tag, rest in TAG_LINE.findall(run.stdout)}
        unexplained = {tag: where for tag, where in tags.items() if tag not in EXPLAINED}
        self.assertEqual(unexplained, {}, run.stdout)
        # lintian ran and looked: the static binary is always reported.
        self.assertIn("statically-linked-binary", tags, run.stdout + run.stderr)

    def test_dpkg_installs_it_and_compare_runs_from_there_then_it_removes_cleanly(self):
        root = self.folder / "root"
        for sub in ("var/lib/dpkg/info", "var/lib/dpkg/updates"):
            (root / sub).mkdir(parents=True, exist_ok=True)
        (root / "var/lib/dpkg/status").touch()
        installed = subprocess.run(["dpkg", "--root", str(root), "-i", str(self.deb)],
                                   capture_output=True, text=True, timeout=120)
        self.assertEqual(installed.returncode, 0, installed.stdout + installed.stderr)
        binary = root / "usr" / "bin" / "ringside"
        for path in ("share/ringside/scenarios/default.toml", "share/doc/ringside/copyright",
                     "share/doc/ringside/changelog.gz", "share/man/man1/ringside-compare.1.gz",
                     "share/bash-completion/completions/ringside"):
            self.assertTrue((root / "usr" / path).is_file(), path)

        page = subprocess.run(["man", "ringside-compare"], capture_output=True, text=True,
                              timeout=60, env=dict(os.environ, MANPATH=str(root / "usr/share/man"),
                                                   MANWIDTH="1000", LANG="C.UTF-8"))
        help_text = subprocess.run([str(binary), "compare", "--help"], capture_output=True,
                                   text=True, timeout=30).stdout
        shown = page.stdout.replace("\u2010", "-").replace("\u2212", "-")
        self.assertEqual(flag_names(shown), flag_names(help_text))

        work = self.folder / "work"
        work.mkdir()
        env = dict(os.environ, XDG_CACHE_HOME=str(self.folder / "cache"),
                   XDG_CONFIG_HOME=str(self.folder / "config"))
        env.pop("RINGSIDE_DATA", None)
        before = snapshot(root / "usr")
        run = hidden_source_run([str(binary), "compare", "--quick", "--only", "ringside,nginx"],
                                work, env, 480)
        self.assertEqual(run.returncode, 0, run.stderr[-3000:])
        results = list((work / "results").glob("*/results.json"))
        self.assertEqual(len(results), 1, run.stdout[-2000:])
        document = json.loads(results[0].read_text())
        self.assertEqual(sorted(c["name"] for c in document["contestants"]), ["nginx", "ringside"])
        self.assertEqual(snapshot(root / "usr"), before, "the run wrote under the package's /usr")

        removed = subprocess.run(["dpkg", "--root", str(root), "-r", "ringside"],
                                 capture_output=True, text=True, timeout=120)
        self.assertEqual(removed.returncode, 0, removed.stdout + removed.stderr)
        left = [p for p in (root / "usr").rglob("*") if not p.is_dir()] if (root / "usr").exists() else []
        self.assertEqual(left, [])


if __name__ == "__main__":
    unittest.main()
