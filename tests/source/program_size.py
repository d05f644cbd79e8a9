#!/usr/bin/python3
"""Chapter program size: a chapter's program is about the size of the library it teaches.

    program_size.py table [ROOT]     print every chapter program beside its budget
    program_size.py check [ROOT]     exit 1 when a program is over its budget
    program_size.py --self-test      prove the check fails over budget, passes at it

A chapter program is snippets/chNN-slug/*.cpp and *.hpp (its fixture, evidence, report,
trace and main). The library code a chapter teaches is every src/llmfs/**/*.{hpp,cpp}
whose line 1 is `// Chapter N` (tests/source/chapter_order.py enforces that line). Sizes
are non-blank lines.

(An appendix that introduces no library is measured against the library it checks,
MEASURED_AGAINST.) The budget is

    program <= 1.25 * library + 120

The 120 lines are what any chapter program needs whatever its library's size: the
fixture the tests share, the skeleton call, the report (prediction, measured values,
typed errors, exercise answers) and the trace its diagram is drawn from. The factor
1.25 is the convention "at most about the size of the library code it teaches"
(README, "Conventions every chapter follows"). A program over budget is cut by the
rules there: an invariant is checked once, in a test; a helper that repeats library
code is replaced by it; the book shows the library and the experiments, not plumbing.

EXEMPT names the chapters whose program is not measured against a library, each with its
reason; an exempt chapter whose program would be within its budget fails the check
("remove it from EXEMPT"), so the list cannot go stale.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

FACTOR = 1.25
ALLOWANCE = 120
CHAPTER = re.compile(r"^// Chapter (\d+)\s*$")

# An appendix that introduces no library is measured against the chapter whose library it
# checks: the PyTorch-parity appendix checks Chapter 30's multi-head attention.
# The appendix "Outgrowing one machine" (43) carries Chapter 35's checkpoints to PyTorch and back.
# Chapter 42 rewrites Chapter 11's fast matmul kernel in place (src/llmfs/tensor/matmul.*, whose
# line 1 stays `// Chapter 11`, the chapter that introduces the file): it adds no file of its own.
MEASURED_AGAINST = {40: 30, 42: 11, 43: 35}

EXEMPT = {
    0: "chapter 0's subject is a whole toy model written out in its program, before the "
    "library exists; the only library it introduces is the error idiom (core/error, core/try)",
    39: "chapter 39's subject is the assembly of chapters 2-36 into one program (corpus, "
    "training, every-token scoring, the sealed test, the model file, generation, the long "
    "run's command line); it adds no library of its own yet (to do: move the model file and "
    "generation into src/llmfs/generation once chapter 38's cached generation lands)",
}


def non_blank(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def chapter_of(path: Path) -> int | None:
    first = path.read_text(encoding="utf-8").split("\n", 1)[0]
    match = CHAPTER.match(first)
    return int(match.group(1)) if match else None


def budget(library: int) -> int:
    return int(FACTOR * library) + ALLOWANCE


def measure(root: Path) -> list[tuple[str, int, int, int | None]]:
    """(folder, program lines, library lines, budget or None when exempt) per chapter."""
    library: dict[int, int] = {}
    for path in sorted((root / "src" / "llmfs").rglob("*")):
        if path.suffix in (".hpp", ".cpp"):
            number = chapter_of(path)
            if number is not None:
                library[number] = library.get(number, 0) + non_blank(path)
    rows = []
    for folder in sorted((root / "snippets").glob("ch[0-9]*")):
        if not folder.is_dir():
            continue
        number = int(folder.name[2:4])
        program = sum(
            non_blank(p) for p in sorted(folder.iterdir()) if p.suffix in (".hpp", ".cpp")
        )
        lib = library.get(MEASURED_AGAINST.get(number, number), 0)
        limit = None if number in EXEMPT else budget(lib)
        rows.append((folder.name, program, lib, limit))
    return rows


def problems(root: Path) -> list[tuple[str, str]]:
    """(kind, message) per problem: kind "over" (a program over its budget) or "stale"
    (an exemption no longer needed)."""
    found = []
    for name, program, lib, limit in measure(root):
        number = int(name[2:4])
        if number in EXEMPT and program <= budget(lib):
            found.append(("stale",
                f"snippets/{name}: chapter {number} is exempt ({EXEMPT[number]}) but its "
                f"program ({program}) is within the budget ({budget(lib)}); remove it "
                "from EXEMPT"))
        elif limit is not None and program > limit:
            found.append(("over",
                f"snippets/{name}: program {program} non-blank lines, budget {limit} "
                f"({FACTOR} x library {lib} + {ALLOWANCE}); {program - limit} over"))
    return found


def table(root: Path) -> int:
    print(f"{'chapter program':38} {'program':>7} {'library':>7} {'ratio':>6} {'budget':>6}")
    for name, program, lib, limit in measure(root):
        ratio = f"{program / lib:.2f}" if lib else "-"
        shown = str(limit) if limit is not None else "exempt"
        flag = "  OVER" if limit is not None and program > limit else ""
        print(f"{name:38} {program:7d} {lib:7d} {ratio:>6} {shown:>6}{flag}")
    return 0


HINT = """program_size: counted are the non-blank lines of snippets/chNN-*/*.cpp and *.hpp
against those of src/llmfs files whose line 1 is `// Chapter NN`. To cut a program: an
invariant is checked once, in a test; a helper that repeats library code is replaced by
it; repeated report lines go (README, "Conventions every chapter follows", Chapter
programs). `tests/source/program_size.py table .` prints every program and its budget."""


def check(root: Path) -> int:
    found = problems(root)
    for _, message in found:
        print(message, file=sys.stderr)
    if found:
        print(HINT, file=sys.stderr)
    over = sum(1 for kind, _ in found if kind == "over")
    stale = len(found) - over
    print(
        f"program_size: {len(measure(root))} chapter programs, {over} over budget, "
        f"{stale} needless exemption(s)"
    )
    return 1 if found else 0


def self_test() -> int:
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        lib = root / "src" / "llmfs" / "m"
        lib.mkdir(parents=True)
        (lib / "a.hpp").write_text("// Chapter 5\n" + "x;\n" * 99)  # 100 lines
        (lib / "b.hpp").write_text("// Chapter 6\n" + "x;\n" * 9)
        prog = root / "snippets" / "ch05-five"
        prog.mkdir(parents=True)
        toy = root / "snippets" / "ch00-toy"  # exempt (EXEMPT[0])
        toy.mkdir(parents=True)
        (toy / "main.cpp").write_text("// Chapter 0\n" + "y;\n" * 999)

        def write_program(lines: int) -> None:  # blank lines are not counted
            (prog / "main.cpp").write_text("// Chapter 5\n\n" + "y;\n\n" * (lines - 1))

        write_program(budget(100))
        if problems(root):
            failures.append(f"a program at its budget ({budget(100)}) failed")
        write_program(budget(100) + 1)
        found = problems(root)
        if len(found) != 1 or found[0][0] != "over" or "1 over" not in found[0][1] \
                or "ch05-five" not in found[0][1]:
            failures.append(f"a program one line over budget was not named: {found}")
        write_program(10)
        (toy / "main.cpp").write_text("// Chapter 0\n" + "y;\n" * 100)
        found = problems(root)
        if len(found) != 1 or found[0][0] != "stale" \
                or "remove it from EXEMPT" not in found[0][1]:
            failures.append(f"a needless exemption was not named: {found}")
    for failure in failures:
        print("self-test:", failure, file=sys.stderr)
    print(f"program_size self-test: {3 - len(failures)}/3 cases behave")
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    if argv[1:2] == ["--self-test"]:
        return self_test()
    if len(argv) < 2 or argv[1] not in ("table", "check"):
        print(__doc__, file=sys.stderr)
        return 2
    root = Path(argv[2] if len(argv) > 2 else ".").resolve()
    return table(root) if argv[1] == "table" else check(root)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
