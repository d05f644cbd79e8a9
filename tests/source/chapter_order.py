#!/usr/bin/python3
"""Chapter order: no file uses, and no chapter shows, code from a later chapter.

    chapter_order.py [ROOT]             check the tree (exit 1 on a violation)
    chapter_order.py --self-test        prove each rule fails when broken, passes when fixed

The declaration. Line 1 of every .hpp and .cpp under src/llmfs/ and snippets/ is exactly

    // Chapter N

N in decimal without leading zeros (`// Chapter 0`, `// Chapter 8`, `// Chapter 27`), the
chapter that introduces the file's concept (the course table in COURSE below, which is
DESIGN.md's). A .cpp of the library has the chapter of its header; snippets/chNN-slug/
files are chapter NN; snippets/common/ is chapter 0. When a file serves several chapters
it declares the earliest one that needs it, and whatever it includes must be no later.

The course is chapters 0-39 (the seed's numbering), 40 (appendix: checking multi-head
attention against PyTorch, chapters/appendix-pytorch-parity.md), 41, 42, and 43, the number
given here to the appendix "outgrowing one machine" (chapters/appendix-outgrowing-one-machine.md).

The rules (each message is `file:line: what (chapter X includes chapter Y)`):

1. declaration: every .hpp/.cpp under src/llmfs/ and snippets/ has the declaration on
   line 1, well-formed, naming a chapter of the course; a library .cpp declares the same
   chapter as the .hpp beside it.
2. includes: every `#include <llmfs/...>` and every `#include "..."` in src/, snippets/
   and tests/ names a file whose chapter is <= the including file's chapter. Quoted
   includes resolve as the build does: the including file's folder, then src/, tests/,
   and (for a test capped at chapter NN) snippets/chNN-*/. A test file's chapter is the
   latest chapter it may use (tests need no declaration line):
     tests/chapters/chNN_*      chapter NN (a chapter's claims use that chapter and earlier);
     tests/parity/              chapter 40 (the PyTorch appendix);
     tests/<module>/            the latest chapter of src/llmfs/<module>/: a unit test may use
                                anything of its own module and of earlier chapters (a helper
                                header there is capped the same way, so helpers for chapter
                                tests belong in tests/support/);
     any other tests/ folder    (support/, reference/: helpers) is not capped; its chapter is
                                derived, the latest chapter it includes (recursively), so a
                                helper cannot smuggle a later chapter into an earlier test.
3. regions: every `{region} PATH#NAME` in chapters/NN-slug.md names a file whose chapter
   is <= NN (chapters/appendix-*.md: the numbers in APPENDIX_PAGES). Files with no chapter
   (the Python scripts under tests/reference/) and pages that are not chapters (index.md,
   reference/) are not checked; the summary counts them.
4. snippets: snippets/chNN-slug/ files declare chapter NN, snippets/common/ chapter 0.

KNOWN_VIOLATIONS is an explicit allowlist of include edges that break rule 2 today and are
being fixed in another branch; an entry that no longer breaks the rule fails the check, so
the list cannot go stale. Region references are read with book_checks.directives (MyST's
own parser, tests/book/book_checks.py), so what is checked is what Sphinx sees.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "book"))

import book_checks  # noqa: E402
import llmfs_regions  # noqa: E402  (book_checks puts docs/_ext on the path)

# The course (DESIGN.md): chapter number -> title.
COURSE = {
    0: "the parts of an LLM", 1: "text units", 2: "corpus partitions", 3: "learning BPE merges",
    4: "applying the BPE tokenizer", 5: "autoregressive examples", 6: "a bigram baseline",
    7: "language-model metrics", 8: "tensor storage", 9: "tensor views",
    10: "broadcasting and reductions", 11: "matrix multiplication", 12: "stable softmax",
    13: "gradient checking", 14: "scalar autodiff", 15: "the tensor autodiff core",
    16: "model autodiff ops", 17: "parameter initialization", 18: "token embeddings",
    19: "linear layers", 20: "SwiGLU feed-forward", 21: "mini-batches", 22: "AdamW",
    23: "a neural n-gram model", 24: "residual connections", 25: "RMSNorm",
    26: "Q/K/V projections", 27: "self-attention", 28: "causal masking", 29: "RoPE",
    30: "multi-head attention", 31: "the decoder block", 32: "the decoder model",
    33: "training and model selection", 34: "final evaluation", 35: "checkpoints",
    36: "temperature and top-k sampling", 37: "incremental attention (KV cache)",
    38: "cached generation", 39: "the end-to-end LLM",
    40: "appendix: checking multi-head attention against PyTorch",
    41: "attention that never stores its weights", 42: "making it fast",
    43: "appendix: outgrowing one machine",
}
# Chapter pages that are not chapters/NN-slug.md.
APPENDIX_PAGES = {"appendix-pytorch-parity.md": 40, "appendix-outgrowing-one-machine.md": 43}
# Test folders without a library module of the same name, and their chapter.
TEST_FOLDER_CHAPTERS = {"parity": 40}

# Known include edges that break rule 2, as (including file, included file): reason.
# The lead removes an entry when the fix merges; a stale entry fails the check.
KNOWN_VIOLATIONS: dict[tuple[str, str], str] = {}

DECLARATION = re.compile(r"^// Chapter (0|[1-9][0-9]*)$")
LOOSE_DECLARATION = re.compile(r"^\s*//+\s*chapter\b", re.IGNORECASE)
INCLUDE = re.compile(r'^\s*#\s*include\s*(?P<open>[<"])(?P<name>[^>"]+)[>"]')
CHAPTER_PAGE = re.compile(r"^(?P<n>[0-9]{2})-[a-z0-9-]+\.md$")
SNIPPET_DIR = re.compile(r"^ch(?P<n>[0-9]{2})-[a-z0-9-]+$")
TEST_CHAPTER = re.compile(r"^ch(?P<n>[0-9]{2})_")
CPP = (".hpp", ".cpp")


def cpp_files(root: Path, *tops: str) -> list[Path]:
    return sorted(p for top in tops for p in (root / top).rglob("*") if p.suffix in CPP and p.is_file())


def rel(root: Path, path: Path) -> str:
    return str(path.relative_to(root))


class Tree:
    """The chapters of one source tree: declared, capped (tests) and derived (helpers)."""

    def __init__(self, root: Path, problems: list[str]):
        self.root = root.resolve()
        self.problems = problems
        self.declared: dict[str, int] = {}  # src/llmfs and snippets files
        self.derived_cache: dict[str, int] = {}
        self.module_chapter: dict[str, int] = {}
        for path in cpp_files(self.root, "src/llmfs", "snippets"):
            number = self._read_declaration(path)
            if number is not None:
                self.declared[rel(self.root, path)] = number
        for name, number in self.declared.items():
            parts = Path(name).parts
            if parts[0] == "src" and len(parts) > 3:
                module = parts[2]
                self.module_chapter[module] = max(self.module_chapter.get(module, 0), number)

    def _read_declaration(self, path: Path) -> int | None:
        name = rel(self.root, path)
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        m = DECLARATION.match(first)
        if not m:
            if LOOSE_DECLARATION.match(first):
                what = f"malformed chapter declaration {first.strip()!r}"
            else:
                what = "no chapter declaration on line 1"
            self.problems.append(f"{name}:1: {what}: line 1 must be exactly `// Chapter N` "
                                 f"(decimal, no leading zero, nothing after it), N the chapter that "
                                 f"introduces this file")
            return None
        number = int(m[1])
        if number not in COURSE:
            self.problems.append(f"{name}:1: chapter {number} is not in the course "
                                 f"(0-{max(COURSE)}; see COURSE in tests/source/chapter_order.py)")
            return None
        return number

    def test_cap(self, name: str) -> int | None:
        """The latest chapter a test file may use, or None for an uncapped helper folder."""
        parts = Path(name).parts
        if len(parts) < 3 or parts[0] != "tests":
            return None
        folder = parts[1]
        if folder == "chapters":
            m = TEST_CHAPTER.match(parts[-1])
            return int(m["n"]) if m else None
        if folder in TEST_FOLDER_CHAPTERS:
            return TEST_FOLDER_CHAPTERS[folder]
        return self.module_chapter.get(folder)

    def chapter(self, name: str, seen: frozenset = frozenset()) -> int | None:
        """A file's chapter: declared, a test's cap, or derived from its includes."""
        if name in self.declared:
            return self.declared[name]
        if not name.startswith("tests/") or not name.endswith(CPP):
            return None
        cap = self.test_cap(name)
        if cap is not None:
            return cap
        if name in self.derived_cache:
            return self.derived_cache[name]
        if name in seen:  # an include cycle: the cycle adds nothing
            return 0
        latest = 0
        for _, target, _ in self.includes(name):
            if target is not None:
                chapter = self.chapter(target, seen | {name})
                latest = max(latest, chapter or 0)
        self.derived_cache[name] = latest
        return latest

    def search_path(self, name: str) -> list[Path]:
        dirs = [(self.root / name).parent, self.root / "src", self.root / "tests"]
        cap = self.test_cap(name)
        if cap is not None:
            dirs += sorted((self.root / "snippets").glob(f"ch{cap:02d}-*"))
        return dirs

    def includes(self, name: str):
        """Yield (line, resolved relative path or None, include text) for project includes."""
        path = self.root / name
        for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), start=1):
            m = INCLUDE.match(line)
            if not m:
                continue
            included = m["name"]
            if m["open"] == "<":
                if not included.startswith("llmfs/"):
                    continue  # the standard library, fmt, gtest
                candidates = [self.root / "src" / included]
            else:
                candidates = [d / included for d in self.search_path(name)]
            found = next((c for c in candidates if c.is_file()), None)
            target = rel(self.root, found.resolve()) if found is not None else None
            yield number, target, included


def check_declarations(tree: Tree) -> None:
    for name, number in sorted(tree.declared.items()):
        parts = Path(name).parts
        if parts[0] == "snippets":
            folder = parts[1]
            m = SNIPPET_DIR.match(folder)
            if folder == "common":
                expected = 0
            elif m:
                expected = int(m["n"])
            else:
                tree.problems.append(f"{name}:1: snippets/{folder}/ is neither snippets/chNN-slug/ "
                                     f"nor snippets/common/")
                continue
            if expected not in COURSE:
                tree.problems.append(f"{name}:1: snippets/{folder}/: chapter {expected} is not in the course")
            elif number != expected:
                tree.problems.append(f"{name}:1: declares chapter {number}, but snippets/{folder}/ "
                                     f"is chapter {expected}")
        elif name.endswith(".cpp"):
            header = name[:-4] + ".hpp"
            if header in tree.declared and tree.declared[header] != number:
                tree.problems.append(f"{name}:1: declares chapter {number}, but its header {header} "
                                     f"declares chapter {tree.declared[header]} (a .cpp has its "
                                     f"header's chapter)")


def check_includes(tree: Tree, known: dict) -> list[str]:
    """Rule 2; returns the known violations that were met (for the summary)."""
    met: list[str] = []
    used_known: set = set()
    for path in cpp_files(tree.root, "src", "snippets", "tests"):
        name = rel(tree.root, path)
        own = tree.chapter(name)
        if own is None and name.startswith("tests/"):
            continue  # a derived helper: its includes define its chapter
        for line, target, included in tree.includes(name):
            if target is None:
                tree.problems.append(f"{name}:{line}: #include {included!r} resolves to no file "
                                     f"(searched: {', '.join(rel(tree.root, d) or '.' for d in tree.search_path(name))})")
                continue
            theirs = tree.chapter(target)
            if own is None or theirs is None or theirs <= own:
                continue
            what = f"{name}:{line}: includes {target} (chapter {own} includes chapter {theirs})"
            if (name, target) in known:
                used_known.add((name, target))
                met.append(f"{what}: known, allowed: {known[(name, target)]}")
                continue
            tree.problems.append(what)
    for (name, target), reason in sorted(known.items()):
        if (name, target) not in used_known:
            tree.problems.append(f"{name}:1: KNOWN_VIOLATIONS lists {name} -> {target}, which no longer "
                                 f"breaks chapter order: remove the entry from tests/source/chapter_order.py")
    return met


def page_chapter(root: Path, page: str) -> int | None | str:
    """chapters/NN-slug.md -> NN; an appendix page -> its number; other pages -> None."""
    path = Path(page)
    if path.parent != Path("chapters"):
        return None
    m = CHAPTER_PAGE.match(path.name)
    if m:
        return int(m["n"])
    if path.name.startswith("appendix-"):
        return APPENDIX_PAGES.get(path.name, "unknown")
    return None


def check_regions(tree: Tree) -> tuple[int, int]:
    """Rule 3; returns (checked, unchecked) reference counts."""
    checked = unchecked = 0
    for where, argument in book_checks.region_references(tree.root):
        page = where.rsplit(":", 1)[0]
        number = page_chapter(tree.root, page)
        if number == "unknown":
            tree.problems.append(f"{where}: appendix page {Path(page).name} has no chapter number: add it to "
                                 f"APPENDIX_PAGES in tests/source/chapter_order.py")
            continue
        if number is not None and number not in COURSE:
            tree.problems.append(f"{where}: chapter {number} is not in the course")
            continue
        try:
            target, region = llmfs_regions.split_reference(argument)
        except ValueError:
            continue  # book.regions reports malformed references
        theirs = tree.chapter(target) if (tree.root / target).is_file() else None
        if number is None or theirs is None:
            unchecked += 1
            continue
        checked += 1
        if theirs > number:
            tree.problems.append(f"{where}: shows {target}#{region} (chapter {number} shows chapter {theirs})")
    return checked, unchecked


def check(root: Path, known: dict | None = None, quiet: bool = False) -> int:
    known = KNOWN_VIOLATIONS if known is None else known
    problems: list[str] = []
    tree = Tree(root, problems)
    check_declarations(tree)
    met = check_includes(tree, known)
    checked, unchecked = check_regions(tree)
    if not quiet:
        for line in problems:
            print(line)
        for line in met:
            print(line)
    if problems:
        if not quiet:
            print(f"chapter order: {len(problems)} problem(s)")
        return 1
    if not quiet:
        print(f"chapter order: {len(tree.declared)} files declare their chapter; every include in src/, "
              f"snippets/ and tests/ is of the same or an earlier chapter ({len(met)} known exception(s)); "
              f"{checked} region reference(s) in chapter order ({unchecked} not checked: no chapter)")
    return 0


# ---------------------------------------------------------------- self-test

BASE = {
    "src/llmfs/core/error.hpp": "// Chapter 0\n#pragma once\n",
    "src/llmfs/tensor/tensor.hpp": "// Chapter 8\n#pragma once\n#include <vector>\n#include <llmfs/core/error.hpp>\n",
    "src/llmfs/tensor/tensor.cpp": "// Chapter 8\n#include <llmfs/tensor/tensor.hpp>\n",
    "src/llmfs/tensor/layout.hpp": "// Chapter 9\n#pragma once\n#include <llmfs/tensor/tensor.hpp>\n",
    "src/llmfs/tensor/layout.cpp": "// Chapter 9\n#include <llmfs/tensor/layout.hpp>\n",
    "src/llmfs/nn/linear.hpp": "// Chapter 19\n#pragma once\n#include <llmfs/tensor/layout.hpp>\n",
    "snippets/common/fake_helper.hpp": "// Chapter 0\n#pragma once\n",
    "snippets/ch08-tensor-storage/evidence.hpp":
        "// Chapter 8\n#pragma once\n#include <llmfs/tensor/tensor.hpp>\n#include \"../common/fake_helper.hpp\"\n",
    "snippets/ch08-tensor-storage/evidence.cpp":
        "// Chapter 8\n#include \"evidence.hpp\"\n// region: storage\nint x = 0;\n// endregion: storage\n",
    "snippets/ch09-tensor-views/main.cpp": "// Chapter 9\n#include <llmfs/tensor/layout.hpp>\n",
    "tests/support/tensors.hpp": "#pragma once\n#include <llmfs/tensor/tensor.hpp>\n",
    "tests/chapters/ch08_storage_test.cpp":
        "#include \"evidence.hpp\"\n#include \"support/tensors.hpp\"\n#include <gtest/gtest.h>\n",
    "tests/tensor/tensor_test.cpp": "#include <llmfs/tensor/layout.hpp>\n#include \"support/tensors.hpp\"\n",
    "chapters/08-tensor-storage.md":
        "# Storage\n\n```{region} snippets/ch08-tensor-storage/evidence.cpp#storage\n:caption: x\n```\n",
    "chapters/appendix-pytorch-parity.md":
        "# Appendix\n\n```{region} snippets/ch08-tensor-storage/evidence.cpp#storage\n:caption: x\n```\n",
    "chapters/index.md": "# Index\n",
}

# (rule, what is broken, files to change, a fragment the report must contain)
CASES = [
    ("1", "missing declaration", {"src/llmfs/tensor/layout.hpp": "#pragma once\n"},
     "no chapter declaration on line 1"),
    ("1", "leading zero", {"src/llmfs/tensor/layout.hpp": "// Chapter 09\n#pragma once\n"},
     "malformed chapter declaration"),
    ("1", "text after the number", {"src/llmfs/tensor/layout.hpp": "// Chapter 9: views\n#pragma once\n"},
     "malformed chapter declaration"),
    ("1", "chapter outside the course", {"src/llmfs/nn/linear.hpp": "// Chapter 99\n#pragma once\n"},
     "chapter 99 is not in the course"),
    ("1", ".cpp disagrees with its header", {"src/llmfs/tensor/layout.cpp": "// Chapter 10\n#include <llmfs/tensor/layout.hpp>\n"},
     "but its header src/llmfs/tensor/layout.hpp declares chapter 9"),
    ("2", "library includes a later chapter",
     {"src/llmfs/tensor/tensor.hpp": "// Chapter 8\n#pragma once\n#include <llmfs/tensor/layout.hpp>\n"},
     "src/llmfs/tensor/tensor.hpp:3: includes src/llmfs/tensor/layout.hpp (chapter 8 includes chapter 9)"),
    ("2", "relative include of a later chapter",
     {"snippets/ch08-tensor-storage/evidence.cpp": "// Chapter 8\n#include \"../ch09-tensor-views/main.cpp\"\n"
                                                   "// region: storage\nint x = 0;\n// endregion: storage\n"},
     "(chapter 8 includes chapter 9)"),
    ("2", "include of a file that does not exist",
     {"snippets/ch09-tensor-views/main.cpp": "// Chapter 9\n#include \"nowhere.hpp\"\n"},
     "resolves to no file"),
    ("2", "chapter test includes a later chapter",
     {"tests/chapters/ch08_storage_test.cpp": "#include <llmfs/tensor/layout.hpp>\n"},
     "tests/chapters/ch08_storage_test.cpp:1: includes src/llmfs/tensor/layout.hpp (chapter 8 includes chapter 9)"),
    ("2", "helper smuggles a later chapter into a chapter test",
     {"tests/support/tensors.hpp": "#pragma once\n#include <llmfs/tensor/layout.hpp>\n"},
     "includes tests/support/tensors.hpp (chapter 8 includes chapter 9)"),
    ("2", "unit test includes a later module",
     {"tests/tensor/tensor_test.cpp": "#include <llmfs/nn/linear.hpp>\n"},
     "(chapter 9 includes chapter 19)"),
    ("2", "stale known violation", {}, "no longer breaks chapter order"),
    ("3", "chapter shows a later chapter's region",
     {"chapters/08-tensor-storage.md": "# Storage\n\n```{region} snippets/ch09-tensor-views/main.cpp#main\n"
                                       ":caption: x\n```\n",
      "snippets/ch09-tensor-views/main.cpp": "// Chapter 9\n// region: main\nint main() {}\n// endregion: main\n"},
     "(chapter 8 shows chapter 9)"),
    ("3", "appendix page without a number",
     {"chapters/appendix-new.md": "# New\n\n```{region} snippets/ch08-tensor-storage/evidence.cpp#storage\n"
                                  ":caption: x\n```\n"},
     "has no chapter number"),
    ("4", "snippet declares another chapter",
     {"snippets/ch09-tensor-views/main.cpp": "// Chapter 8\n#include <llmfs/tensor/tensor.hpp>\n"},
     "declares chapter 8, but snippets/ch09-tensor-views/ is chapter 9"),
    ("4", "common snippet is not chapter 0", {"snippets/common/fake_helper.hpp": "// Chapter 8\n#pragma once\n"},
     "snippets/common/ is chapter 0"),
]


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _report(root: Path, known: dict) -> tuple[int, str]:
    import contextlib
    import io
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = check(root, known)
    return status, out.getvalue()


def self_test() -> int:
    failures = []
    stale = {("src/llmfs/tensor/layout.hpp", "src/llmfs/tensor/tensor.hpp"): "self-test: never a violation"}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        _write(root, BASE)
        status, out = _report(root, {})
        if status != 0:
            print(f"chapter order self-test: the good tree fails:\n{out}")
            return 1
        for rule, what, broken, expected in CASES:
            known = stale if what == "stale known violation" else {}
            _write(root, broken)
            status, out = _report(root, known)
            if status == 0 or expected not in out:
                failures.append(f"rule {rule}, {what}: expected a failure containing {expected!r}, got "
                                f"status {status}:\n{out}")
            for name in broken:  # fix it: back to the good tree
                if name in BASE:
                    _write(root, {name: BASE[name]})
                else:
                    (root / name).unlink()
            status, out = _report(root, {})
            if status != 0:
                failures.append(f"rule {rule}, {what}: the fixed tree still fails:\n{out}")
        # A known violation is allowed while it is one.
        _write(root, CASES[5][2])
        status, out = _report(root, {("src/llmfs/tensor/tensor.hpp", "src/llmfs/tensor/layout.hpp"): "test"})
        if status != 0 or "known, allowed" not in out:
            failures.append(f"a listed known violation is not allowed:\n{out}")
    for failure in failures:
        print(f"chapter order self-test: {failure}")
    if failures:
        return 1
    print(f"chapter order self-test: {len(CASES)} broken trees rejected with file:line messages, each "
          f"accepted once fixed; a listed known violation allowed")
    return 0


def main(argv: list[str]) -> int:
    if "--self-test" in argv[1:]:
        return self_test()
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print(__doc__, file=sys.stderr)
        return 2
    root = Path(argv[1]).resolve() if len(argv) == 2 else ROOT
    return check(root)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
