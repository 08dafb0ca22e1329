"""`ringside compare --report` and `--diff` on the sample results of tests/fixtures/results (made
by its generate.py).

--report renders report.md and report.html from a copy of a results folder; the HTML is opened in
headless Chromium (Debian's chromium, installed by scripts/setup) and the dumped DOM must show no
recorded error, as many charts drawn as the data implies, and every table; the file must fetch
nothing (self-contained, opens offline). A contestant description holding </script> stays text.
--diff flags the change beyond the noise and not the one within it, lists points of one run only,
and bad input ends with one line naming the file and exit 2."""
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import unittest
from html.parser import HTMLParser

from ringside_testlib import BIN

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.abspath(os.path.join(HERE, "..", "fixtures", "results"))
UPLOT_JS = os.path.abspath(os.path.join(HERE, "..", "..", "web", "node_modules", "uplot", "dist",
                                        "uPlot.iife.min.js"))
# Chromium starting cold on a loaded 2-core machine, under a sanitizer build's neighbours.
BROWSER_TIMEOUT = 180
RUN_TIMEOUT = 60
NINES = ("p50", "p90", "p99", "p99.9", "p99.99", "max")


def finite(value):
    return isinstance(value, (int, float)) and value == value


def expected_charts(results):
    """The charts report.html draws, from the data alone (docs/compare-report.md): per workload,
    requests/s against connections when a closed point was measured, one latency spectrum per
    point group with a latency, CPU bars when a CPU figure was measured, memory bars when a peak
    or idle RSS was."""
    idle = {c["name"]: c["rss_idle_kib"] for c in results["contestants"]}
    workloads = []
    for name in [w["name"] for w in results["workloads"]] + [p["workload"] for p in results["points"]]:
        if name not in workloads:
            workloads.append(name)
    total = 0
    for workload in workloads:
        points = [p for p in results["points"] if p["workload"] == workload and not p["failure"]]
        m = [p["median"] for p in points]
        total += any(p["mode"] == "closed" and finite(p["median"]["requests_per_s"]) for p in points)
        groups = {}
        for p in points:
            key = ("open", p["rate"]) if p["mode"] == "open" else ("closed", p["connections"])
            groups.setdefault(key, []).append(p)
        total += sum(any(any(finite(p["median"]["latency_us"][n]) and p["median"]["latency_us"][n] > 0
                             for n in NINES) for p in group) for group in groups.values())
        total += any(finite(x["server_cpu_us_per_request"]) for x in m)
        total += any(finite(x["rss_peak_kib"]) for x in m) or any(
            finite(idle.get(p["contestant"])) for p in points)
    return total


class Page(HTMLParser):
    """What the tests read from an HTML document: body attributes, tables, charts, resources."""

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.body = {}
        self.table_ids = []
        self.charts = 0
        self.chart_canvases = 0
        self.resource_attributes = []
        self.texts = []
        self.chart_series = []  # per chart: its series' labels, colours and widths (data-series)
        self.sections = []      # the ids of <section>s and the workloads' names, in page order
        self._open_charts = 0
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "body":
            self.body = attrs
        if tag == "table":
            self.table_ids.append(attrs.get("id", ""))
        if tag == "figure" and "chart" in attrs.get("class", "").split():
            self.charts += 1
            if "data-series" in attrs:
                self.chart_series.append(json.loads(attrs["data-series"]))
        if tag == "section":
            self.sections.append(attrs.get("id") or attrs.get("data-workload", ""))
        if tag == "canvas":
            self.chart_canvases += 1
        for name in ("src", "href", "srcset", "action", "poster", "data"):
            if name in attrs and tag not in ("body",):
                self.resource_attributes.append((tag, name, attrs[name]))

    def handle_data(self, data):
        self.texts.append(data)


def render_dom(html_path):
    """The DOM of the page after its scripts ran, as headless Chromium dumps it."""
    chromium = shutil.which("chromium")
    if chromium is None:
        raise AssertionError("chromium is not on PATH: run scripts/setup")
    profile = tempfile.mkdtemp(prefix="ringside-chromium-")
    process = subprocess.Popen(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", "--virtual-time-budget=5000", "--dump-dom",
         "file://" + os.path.abspath(html_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = process.communicate(timeout=BROWSER_TIMEOUT)
    finally:
        # Chromium's helpers share its process group: none may outlive the test.
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        if process.poll() is None:
            process.wait(timeout=10)
        shutil.rmtree(profile, ignore_errors=True)
    if process.returncode != 0 or not out:
        raise AssertionError(f"chromium exited with {process.returncode}: {err.decode(errors='replace')[-2000:]}")
    return out.decode()


def run(*args):
    return subprocess.run([BIN, "compare", *args], capture_output=True, text=True, timeout=RUN_TIMEOUT)


class CompareReport(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ringside-report-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def copy_fixture(self, name, change=None):
        folder = os.path.join(self.tmp, name)
        os.makedirs(folder)
        with open(os.path.join(FIXTURES, name, "results.json")) as f:
            results = json.load(f)
        if change:
            change(results)
        with open(os.path.join(folder, "results.json"), "w") as f:
            json.dump(results, f, indent=2)
        return folder, results

    def report(self, folder):
        result = run("--report", folder)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr, "", "uPlot was found (scripts/setup ran npm ci in web/)")
        self.assertEqual(result.stdout.splitlines(), [f"report: {folder}/report.md",
                                                      f"report: {folder}/report.html"])
        return os.path.join(folder, "report.html")

    def assert_renders(self, html_path, results):
        page = Page(render_dom(html_path))
        self.assertEqual(page.body.get("data-errors", ""), "", "no error recorded in the page")
        self.assertNotIn("data-charts-missing", page.body)
        want = expected_charts(results)
        self.assertGreater(want, 0)
        self.assertEqual(page.body.get("data-charts-drawn"), str(want))
        self.assertEqual(page.charts, want)
        self.assertGreaterEqual(page.chart_canvases, want, "every chart has its canvas")
        return page

    def test_report_renders_every_chart_in_chromium(self):
        folder, results = self.copy_fixture("run-a")
        html = self.report(folder)
        page = self.assert_renders(html, results)
        self.assertEqual(expected_charts(results), 14)  # 2 workloads x (1 + 4 spectra + CPU + memory)
        summaries = [t for t in page.table_ids if t.startswith("summary-")]
        self.assertEqual(len(summaries), 8)
        for table in ("errors", "contestants", "machine", "workloads"):
            self.assertIn(table, page.table_ids)
        text = " ".join(page.texts)
        self.assertIn("loader-bound", text)
        self.assertIn("crashed: exit code 134 (SIGABRT)", text)
        with open(os.path.join(folder, "report.md")) as f:
            self.assertTrue(f.read().startswith("# ringside compare: default\n"))

    def test_verdict_first_and_one_colour_per_contestant(self):
        """The verdict opens the page; every chart draws a contestant in the same colour, no two
        contestants alike, and the baseline wider than the others."""
        folder, results = self.copy_fixture("run-a")
        page = self.assert_renders(self.report(folder), results)
        self.assertEqual(page.sections[0], "verdict", page.sections)
        text = re.sub(r"\s+", " ", " ".join(page.texts))
        verdict = text[text.index("Verdict"):text.index("hello: GET /")]
        self.assertIn("requests/s: 1. ringside 103,729 [101,995–104,472] (baseline) · 2. rust-hyper",
                      verdict)
        self.assertIn("not ranked: express (failed at 100 connections)", verdict)
        self.assertEqual(len(page.chart_series), page.charts, "every chart lists its series")
        colours = {}
        for series in page.chart_series:
            for s in series:
                colours.setdefault(s["label"], set()).add(s["stroke"])
                self.assertEqual(s["width"] > 2, s["label"] == results["baseline"], s)
        self.assertTrue(all(len(c) == 1 for c in colours.values()), colours)
        distinct = {next(iter(c)) for c in colours.values()}
        self.assertEqual(len(distinct), len(colours), colours)
        self.assertGreaterEqual(len(colours), 4)

    def test_twelve_contestants_get_twelve_colours(self):
        """Past ten contestants the palette used to wrap (ringside and the eleventh shared a red)."""
        def change(results):
            template = results["points"][0]
            for i in range(8):
                name = f"extra-{i}"
                results["contestants"].append(dict(results["contestants"][0], name=name))
                results["points"].append(dict(template, contestant=name))
        folder, results = self.copy_fixture("run-a", change)
        page = self.assert_renders(self.report(folder), results)
        colours = {}
        for series in page.chart_series:
            for s in series:
                colours.setdefault(s["label"], set()).add(s["stroke"])
        self.assertEqual(len(colours), 12)
        self.assertEqual(len({next(iter(c)) for c in colours.values()}), 12, colours)

    def test_the_legend_shows_values_under_the_cursor(self):
        """A synthetic mouse move over the first chart (requests/s) fills its legend with the
        values there, with their interval, instead of uPlot's "--"."""
        folder, results = self.copy_fixture("run-a")
        html = self.report(folder)
        with open(html) as f:
            text = f.read()
        probe = """<script>
setTimeout(function () {
  var figure = document.querySelector("figure.chart");
  var over = figure.querySelector(".u-over");
  var r = over.getBoundingClientRect();
  over.dispatchEvent(new MouseEvent("mousemove", {clientX: r.left + r.width / 2,
                                                  clientY: r.top + r.height / 2, bubbles: true}));
  setTimeout(function () {
    var values = Array.prototype.filter.call(figure.querySelectorAll(".u-legend .u-series"),
      function (row) { return row.style.display !== "none"; }).map(function (row) {
        var v = row.querySelector(".u-value");
        return v ? v.textContent : "";
      });
    document.body.dataset.legend = JSON.stringify(values);
  }, 100);
}, 100);
</script></body>"""
        with open(html, "w") as f:
            f.write(text.replace("</body>", probe))
        page = Page(render_dom(html))
        self.assertEqual(page.body.get("data-errors", ""), "")
        values = json.loads(page.body["data-legend"])
        self.assertEqual(values[0], "100", "the cursor is at 100 connections")
        self.assertRegex(values[1], r"^118,566 \[116,584–119,416\]$", values)
        self.assertNotIn("--", values)

    def test_partial_run_renders(self):
        folder, results = self.copy_fixture("partial")
        page = self.assert_renders(self.report(folder), results)
        self.assertIn("Partial run", " ".join(page.texts))

    def test_report_is_self_contained(self):
        folder, _ = self.copy_fixture("run-a")
        with open(self.report(folder)) as f:
            text = f.read()
        page = Page(text)
        self.assertEqual(page.resource_attributes, [], "nothing loaded from a file or the network")
        for pattern in (r"url\(", r"@import", r"\bfetch\(", r"XMLHttpRequest", r"\bimport\(",
                        r"<link\b", r"<iframe\b", r"<img\b"):
            self.assertIsNone(re.search(pattern, text), pattern)
        # The only URL is in uPlot's licence comment, as shipped.
        with open(UPLOT_JS) as f:
            licence_urls = set(re.findall(r"https?://[^\s\"')]+", f.read()))
        self.assertLessEqual(set(re.findall(r"https?://[^\s\"')]+", text)), licence_urls)

    def test_script_in_a_description_stays_text(self):
        nasty = "</script><script>document.body.dataset.injected = 'yes'</script><b>bold</b> & co"

        def change(results):
            results["contestants"][1]["description"] = nasty
            results["points"][0]["median"]["notes"] = ["</style><i>x</i>"]
            results["points"][0]["median"]["flags"] = ["odd"]

        folder, results = self.copy_fixture("run-a", change)
        page = self.assert_renders(self.report(folder), results)
        self.assertNotIn("data-injected", page.body)
        self.assertIn(nasty, " ".join(page.texts))

    def test_an_error_in_the_page_is_recorded(self):
        """The check above would catch a broken page: an error thrown after the charts ends up in
        data-errors, and a chart that throws is not counted."""
        folder, results = self.copy_fixture("run-a")
        html = self.report(folder)
        with open(html) as f:
            text = f.read()
        broken = text.replace("</body>", "<script>console.error('seen'); null.x;</script></body>")
        broken = broken.replace("function cpuChart(container, workload, points) {",
                                "function cpuChart(container, workload, points) { throw new Error('cpu');")
        with open(html, "w") as f:
            f.write(broken)
        page = Page(render_dom(html))
        errors = page.body.get("data-errors", "")
        self.assertIn("seen", errors)
        self.assertIn("null", errors)
        self.assertIn("cpu", errors)
        self.assertEqual(page.body.get("data-charts-drawn"), str(expected_charts(results) - 2))

    def test_bad_report_input(self):
        for args, what in ((["--report", os.path.join(self.tmp, "absent")], "no such file or folder"),
                           (["--report", self.tmp], "no results.json in this folder"),
                           (["--report", FIXTURES + "/run-a", "--web", self.tmp], "run scripts/setup")):
            result = run(*args)
            self.assertEqual(result.returncode, 2, result.stderr)
            self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
            self.assertIn(what, result.stderr)
            self.assertEqual(result.stdout, "")

    def test_diff_flags_changes_beyond_the_noise_only(self):
        result = run("--diff", os.path.join(FIXTURES, "run-a"), os.path.join(FIXTURES, "run-b", "results.json"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr, "")
        rows = {}
        for line in result.stdout.splitlines():
            fields = line.split()
            if len(fields) >= 4 and fields[0] in ("hello", "users") and fields[1].startswith(("c=", "open")):
                key = (fields[0], fields[1], fields[2]) if fields[1].startswith("c=") else \
                      (fields[0], "open", fields[3])
                rows[key] = line
        # ringside's hello c=100 went from 118,566 to 136,351 req/s (rounds 2% apart): flagged.
        self.assertRegex(rows[("hello", "c=100", "ringside")], r"ringside\s+\+15\.0% \*")
        # rust-hyper's users c=100 rounds spread 10.9%: its +5% is within that, not flagged.
        self.assertRegex(rows[("users", "c=100", "rust-hyper")], r"rust-hyper\s+\+5\.0%\s")
        self.assertNotIn("*", rows[("users", "c=100", "rust-hyper")])
        self.assertEqual(sum("*" in line for line in rows.values()), 1)
        self.assertIn("Only in A (6):\n  hello c=10 express\n", result.stdout)
        self.assertIn("Only in B (8):\n", result.stdout)
        self.assertIn("  users open 3,100/s deno\n", result.stdout)
        self.assertIn("24 points in both runs, 1 change beyond the noise, 6 only in A, 8 only in B",
                      result.stdout)

    def test_bad_diff_input(self):
        not_json = os.path.join(self.tmp, "not.json")
        with open(not_json, "w") as f:
            f.write("{ nope")
        other_schema = os.path.join(self.tmp, "other.json")
        with open(other_schema, "w") as f:
            json.dump({"schema": "ringside-load/1"}, f)
        good = os.path.join(FIXTURES, "run-a")
        for bad, what in ((os.path.join(self.tmp, "absent.json"), "no such file or folder"),
                          (self.tmp, "no results.json in this folder"),
                          (not_json, "not a JSON object"),
                          (other_schema, "schema 'ringside-load/1' is not ringside-compare/1")):
            for args in (["--diff", bad, good], ["--diff", good, bad]):
                result = run(*args)
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
                self.assertIn(bad, result.stderr)
                self.assertIn(what, result.stderr)
                self.assertEqual(result.stdout, "")
        result = run("--diff", good)
        self.assertEqual(result.returncode, 2)
        self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
        self.assertIn("--diff", result.stderr)


if __name__ == "__main__":
    unittest.main()
