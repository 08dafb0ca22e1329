"""scripts/function-length: long functions in the harness are split, or say why they are long."""
import pathlib
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "function-length"


def run(*paths):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, paths)],
                          capture_output=True, text=True, timeout=60)


def function(name, body_lines, above=""):
    body = "".join(f"  total += {i};\n" for i in range(body_lines))
    return f"{above}int {name}(int total) {{\n{body}  return total;\n}}\n\n"


class FunctionLength(unittest.TestCase):
    def test_the_harness_has_no_unexplained_long_function(self):
        result = run(ROOT / "src" / "harness")
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_a_long_function_is_named_unless_it_says_why(self):
        with tempfile.TemporaryDirectory() as scratch:
            source = pathlib.Path(scratch) / "sample.cpp"
            source.write_text(
                "namespace n {\n"
                "constexpr long kMany = 20'000;  // a digit separator is not a character literal\n"
                'const char* kText = R"(}}} { ")";\n'
                + function("short_enough", 57)           # 60 lines with signature and brace
                + function("too_long", 58)               # 61 lines
                + function("long_but_said", 70, "// The steps read best in order.\n"
                                                 "// Long: a table of cases, one per line.\n")
                + "struct Holder {\n  int member(int total) {\n"
                + "".join(f"    total += {i};\n" for i in range(70))
                + "    return total;\n  }\n};\n"
                "}  // namespace n\n")
            result = run(source)
        self.assertEqual(result.returncode, 1)
        named = re.findall(r"\(limit 60\): [^(]*?(\w+)\(", result.stderr)
        self.assertEqual(named, ["too_long", "member"])


if __name__ == "__main__":
    unittest.main()
