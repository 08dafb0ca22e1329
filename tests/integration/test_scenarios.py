"""What the shipped scenario files measure: seeds.toml reproduces the write-ups' runs,
loaders.toml compares every external loader, hello.toml has the floor, a pipelined point and the
10,000-connection point. (That every file parses, with the harness's own parser, is
tests/unit/harness/scenario_test.cpp.)"""
import pathlib
import tomllib
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"


class ScenarioFiles(unittest.TestCase):
    def test_there_are_scenarios(self):
        names = {p.name for p in SCENARIOS.glob("*.toml")}
        for expected in ("seeds.toml", "loaders.toml", "hello.toml"):
            self.assertIn(expected, names)

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


if __name__ == "__main__":
    unittest.main()
