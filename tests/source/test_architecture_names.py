"""docs/architecture.md's tables name every source file of src/ and apps/ringside.

A row is `| layer | `folder` | text |`; a file counts as named when its name without the suffix
appears in backticks in its folder's row (`event_loop` for event_loop.hpp and event_loop.cpp).
"""
import pathlib
import re
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\|[^|]*\| `((?:src|apps)/[^`]+)` \|(.*)\|\s*$")
SUFFIXES = (".hpp", ".cpp", ".h")


def rows(text):
    """folder -> the backticked names in its row."""
    found = {}
    for line in text.splitlines():
        match = ROW.match(line)
        if match:
            found[match.group(1)] = set(re.findall(r"`([A-Za-z0-9_.]+)`", match.group(2)))
    return found


def source_folders(root):
    """Every folder of src/ and apps/ that holds source files directly."""
    folders = {}
    for top in ("src", "apps"):
        for path in sorted((root / top).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file():
                folders.setdefault(path.parent.relative_to(root).as_posix(), set()).add(path.stem)
    return folders


def unnamed(doc_text, root):
    """Messages for every folder without a row and every file its row does not name."""
    table = rows(doc_text)
    problems = []
    for folder, stems in sorted(source_folders(root).items()):
        if folder not in table:
            problems.append(f"{folder}: no row in docs/architecture.md's tables")
            continue
        for stem in sorted(stems - table[folder]):
            problems.append(f"{folder}/{stem}: not named in its row of docs/architecture.md")
    return problems


class ArchitectureNames(unittest.TestCase):
    def test_every_source_file_is_named(self):
        text = (ROOT / "docs" / "architecture.md").read_text()
        self.assertEqual(unnamed(text, ROOT), [])

    def test_a_file_left_out_is_found(self):
        # The check itself: a row that forgets one file, and a folder with no row, are both named.
        import tempfile
        with tempfile.TemporaryDirectory() as scratch:
            root = pathlib.Path(scratch)
            for relative in ("src/core/event_loop.hpp", "src/core/event_loop.cpp",
                             "src/core/waker.hpp", "src/extra/thing.cpp"):
                (root / relative).parent.mkdir(parents=True, exist_ok=True)
                (root / relative).write_text("")
            doc = "| core | `src/core` | `event_loop` (epoll readiness) |\n"
            self.assertEqual(unnamed(doc, root), [
                "src/core/waker: not named in its row of docs/architecture.md",
                "src/extra: no row in docs/architecture.md's tables"])


if __name__ == "__main__":
    unittest.main()
