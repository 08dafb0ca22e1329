"""Every scenario file in scenarios/ is one `ringside compare` can run: only the documented
fields, each of the right type and in range; contestants that exist and answer the workloads'
paths; loaders asked only for what they can do (harness/external_loader refuses the rest).

Until the run engine's parser (harness/scenario) is on this branch this reads the files with
Python's tomllib; the integrator switches it to the real parser.
"""
import pathlib
import re
import tomllib
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"
CONTESTANTS = ROOT / "contestants"

DURATION = re.compile(r"^\d+(\.\d+)?(ms|s|m)$")
CPU_LIST = re.compile(r"^\d+(-\d+)?(,\d+(-\d+)?)*$")
PATTERN = re.compile(r"\{(\d+)\.\.(\d+)\}")


def nonnegative_int(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def positive_int(value):
    return nonnegative_int(value) and value > 0


def number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def string_list(value):
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


# field -> (check, what is allowed), as the scenario format fixes them (docs/harness.md).
TOP = {
    "name": (lambda v: isinstance(v, str) and v != "", "a non-empty string"),
    "description": (lambda v: isinstance(v, str), "a string"),
    "contestants": (string_list, "a list of contestant names"),
    "baseline": (lambda v: isinstance(v, str) and v != "", "a contestant name"),
    "rounds": (positive_int, "an integer >= 1"),
    "warmup": (lambda v: isinstance(v, str) and bool(DURATION.match(v)), 'a duration like "2s"'),
    "duration": (lambda v: isinstance(v, str) and bool(DURATION.match(v)) and v[0] != "0",
                 'a duration like "5s"'),
    "settle": (lambda v: isinstance(v, str) and bool(DURATION.match(v)), 'a duration like "1s"'),
    "server_cpus": (lambda v: isinstance(v, str) and bool(CPU_LIST.match(v)), 'a CPU list like "0"'),
    "load_cpus": (lambda v: isinstance(v, str) and bool(CPU_LIST.match(v)), 'a CPU list like "1"'),
    "threads": (positive_int, "an integer >= 1"),
    "database": (lambda v: isinstance(v, str) and (v in ("temp", "none") or
                                                   v.startswith(("postgres://", "postgresql://"))),
                 '"temp", "none" or a libpq URL'),
    "equal_load": (lambda v: isinstance(v, bool), "true or false"),
    "equal_load_fraction": (lambda v: number(v) and 0 < v <= 1, "a number in (0, 1]"),
    "workload": (lambda v: isinstance(v, list) and len(v) > 0 and
                 all(isinstance(w, dict) for w in v), "[[workload]] tables"),
}

WORKLOAD = {
    "name": (lambda v: isinstance(v, str) and re.match(r"^[a-z0-9][a-z0-9-]*$", v) is not None,
             "a name of lower-case letters, digits and -"),
    "path": (lambda v: isinstance(v, str) and v.startswith("/"), 'a path starting with "/"'),
    "method": (lambda v: v in ("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH"),
               "an HTTP method"),
    "headers": (lambda v: string_list(v) and all(":" in h for h in v), 'a list of "Name: value"'),
    "body": (lambda v: isinstance(v, str), "a string"),
    "connections": (lambda v: isinstance(v, list) and len(v) > 0 and all(positive_int(c) for c in v),
                    "a non-empty list of integers >= 1"),
    "mode": (lambda v: v in ("closed", "open"), '"closed" or "open"'),
    "rate": (lambda v: number(v) and v >= 0, "a number >= 0"),
    "loader": (lambda v: v in ("ringside", "wrk", "ab", "h2load", "hey"),
               '"ringside", "wrk", "ab", "h2load" or "hey"'),
    "loader_threads": (positive_int, "an integer >= 1"),
    "requests": (nonnegative_int, "an integer >= 0"),
    "keep_alive": (lambda v: isinstance(v, bool), "true or false"),
    "pipeline": (positive_int, "an integer >= 1"),
}


def manifest(name):
    path = CONTESTANTS / name / "contestant.toml"
    return tomllib.loads(path.read_text()) if path.is_file() else None


def route_of(path):
    """The contestant route a workload path hits: "/users/{1..10000}" and "/users/7" are
    "/users/:id"."""
    if PATTERN.search(path) or re.match(r"^/users/[^/]+$", path):
        return "/users/:id"
    return path


def loader_problems(workload):
    """What harness/external_loader refuses, so a scenario does not ask for it."""
    loader = workload.get("loader", "ringside")
    open_model = workload.get("mode", "closed") == "open"
    count = workload.get("requests", 0) > 0
    pipeline = workload.get("pipeline", 1)
    problems = []
    if loader in ("wrk", "ab") and open_model:
        problems.append(f"{loader} has no open model")
    if loader == "wrk" and count:
        problems.append("wrk has no request count")
    if loader in ("ab", "hey") and pipeline > 1:
        problems.append(f"{loader} does not pipeline")
    if loader == "ab" and workload.get("loader_threads", 1) > 1:
        problems.append("ab is single-threaded")
    if loader == "hey" and count and any(workload["requests"] % c for c in workload["connections"]):
        problems.append("hey needs requests to be a multiple of connections")
    return problems


def check_scenario(path):
    """Every problem with one scenario file, one line each."""
    problems = []
    try:
        scenario = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as error:
        return [f"{path.name}: not TOML: {error}"]
    for field, value in scenario.items():
        if field not in TOP:
            problems.append(f"{path.name}: unknown field '{field}'")
        elif not TOP[field][0](value):
            problems.append(f"{path.name}: field '{field}' must be {TOP[field][1]}")
    if "name" not in scenario:
        problems.append(f"{path.name}: no 'name'")
    if not scenario.get("workload"):
        problems.append(f"{path.name}: no [[workload]]")
    if problems:
        return problems

    names = scenario.get("contestants", [])
    manifests = {}
    for name in names:
        manifests[name] = manifest(name)
        if manifests[name] is None:
            problems.append(f"{path.name}: contestant '{name}' has no contestants/{name}/contestant.toml")
    baseline = scenario.get("baseline", "ringside")
    if names and baseline not in names:
        problems.append(f"{path.name}: baseline '{baseline}' is not among its contestants")

    seen = set()
    for index, workload in enumerate(scenario["workload"], 1):
        where = f"{path.name}: workload {index} ({workload.get('name', '?')})"
        for field, value in workload.items():
            if field not in WORKLOAD:
                problems.append(f"{where}: unknown field '{field}'")
            elif not WORKLOAD[field][0](value):
                problems.append(f"{where}: field '{field}' must be {WORKLOAD[field][1]}")
        for field in ("name", "path", "connections"):
            if field not in workload:
                problems.append(f"{where}: no '{field}'")
        if problems:
            continue
        if workload["name"] in seen:
            problems.append(f"{where}: a second workload named '{workload['name']}'")
        seen.add(workload["name"])
        if workload.get("mode", "closed") == "open" and workload.get("rate", 0) <= 0:
            problems.append(f"{where}: mode \"open\" needs rate > 0")
        if workload.get("mode", "closed") == "closed" and workload.get("rate", 0) != 0:
            problems.append(f"{where}: rate is only for mode \"open\"")
        for match in PATTERN.finditer(workload["path"]):
            if int(match.group(1)) > int(match.group(2)):
                problems.append(f"{where}: path range {match.group(0)} is empty")
        problems += [f"{where}: {p}" for p in loader_problems(workload)]
        route = route_of(workload["path"])
        for name, found in manifests.items():
            if found is not None and route not in found.get("routes", []):
                problems.append(f"{where}: contestant '{name}' does not answer {route}")
        if route == "/users/:id" and scenario.get("database", "temp") == "none":
            problems.append(f"{where}: /users/:id needs a database, and database is \"none\"")
    return problems


class ScenarioFiles(unittest.TestCase):
    def test_there_are_scenarios(self):
        names = {p.name for p in SCENARIOS.glob("*.toml")}
        for expected in ("seeds.toml", "loaders.toml", "hello.toml"):
            self.assertIn(expected, names)

    def test_every_scenario_is_valid(self):
        for path in sorted(SCENARIOS.glob("*.toml")):
            with self.subTest(scenario=path.name):
                self.assertEqual(check_scenario(path), [])

    def test_loaders_compares_every_external_loader(self):
        scenario = tomllib.loads((SCENARIOS / "loaders.toml").read_text())
        loaders = sorted(w["loader"] for w in scenario["workload"])
        self.assertEqual(loaders, ["ab", "h2load", "hey", "ringside", "wrk"])
        self.assertEqual({c for w in scenario["workload"] for c in w["connections"]}, {100})
        self.assertEqual(scenario["contestants"], ["nginx"])

    def test_seeds_reproduce_the_write_ups(self):
        scenario = tomllib.loads((SCENARIOS / "seeds.toml").read_text())
        shapes = {(w["path"], c, w["requests"], w["keep_alive"])
                  for w in scenario["workload"] for c in w["connections"]}
        for c in (1, 500, 1000):
            self.assertIn(("/users/1", c, 10000, False), shapes)  # ab -n 10000, no -k
        self.assertIn(("/users/1", 10000, 100000, False), shapes)
        self.assertIn(("/", 400, 0, True), shapes)                # wrk -c400 -d1m
        self.assertIn(("/", 30, 10000, True), shapes)             # bombardier -n 10000 -c 30
        for c in (10, 100, 300):
            self.assertIn(("/", c, 0, True), shapes)

    def test_hello_has_the_floor_pipelining_and_10k(self):
        scenario = tomllib.loads((SCENARIOS / "hello.toml").read_text())
        self.assertIn("floor", scenario["contestants"])
        self.assertTrue(any(w.get("pipeline", 1) == 16 and w["connections"] == [100]
                            for w in scenario["workload"]))
        self.assertTrue(any(10000 in w["connections"] for w in scenario["workload"]))


class TheChecker(unittest.TestCase):
    """The checker above must catch what it claims to, or a passing run means nothing."""

    def check_text(self, text):
        import tempfile
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder) / "bad.toml"
            path.write_text(text)
            return check_scenario(path)

    GOOD = ('name = "x"\ncontestants = ["nginx"]\nbaseline = "nginx"\ndatabase = "none"\n'
            '[[workload]]\nname = "w"\npath = "/"\nconnections = [10]\n')

    def test_good(self):
        self.assertEqual(self.check_text(self.GOOD), [])

    def test_catches(self):
        cases = {
            'rounds = "3"\n': "field 'rounds' must be",
            'warmup = "2 s"\n': "field 'warmup' must be",
            'typo = 1\n': "unknown field 'typo'",
        }
        for line, expected in cases.items():
            with self.subTest(line=line):
                problems = self.check_text(line + self.GOOD)
                self.assertTrue(any(expected in p for p in problems), problems)
        workload_cases = {
            'loader = "wrk"\nrequests = 100\n': "wrk has no request count",
            'loader = "hey"\npipeline = 16\n': "hey does not pipeline",
            'loader = "bombardier"\n': "field 'loader' must be",
            'mode = "open"\n': 'needs rate > 0',
            'conections = [1]\n': "unknown field 'conections'",
        }
        for lines, expected in workload_cases.items():
            with self.subTest(lines=lines):
                problems = self.check_text(self.GOOD + lines)
                self.assertTrue(any(expected in p for p in problems), problems)
        problems = self.check_text(self.GOOD.replace('path = "/"', 'path = "/users/{1..10}"'))
        self.assertTrue(any("does not answer /users/:id" in p for p in problems), problems)
        problems = self.check_text(self.GOOD.replace('"nginx"', '"nosuch"'))
        self.assertTrue(any("has no contestants/nosuch" in p for p in problems), problems)


if __name__ == "__main__":
    unittest.main()
