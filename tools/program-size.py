#!/usr/bin/python3
"""Print each chapter program's size beside the size of the library code its chapter introduces.

    /usr/bin/python3 tools/program-size.py [ROOT]

A chapter program is snippets/chNN-slug/*.cpp and *.hpp; the library code a chapter
introduces is every src/llmfs/**/*.{hpp,cpp} whose first line is `// Chapter N`. Sizes are
non-blank lines. The convention (README, "Conventions every chapter follows") is that a
program holds only what its chapter shows or its report needs, and is at most about the size
of the library code it teaches; this table is how that is measured. It informs, it does not
fail: a chapter whose library is small (a formula) can need a larger program to show it.
"""

import re
import sys
from pathlib import Path

CHAPTER = re.compile(r"^// Chapter (\d+)\s*$")


def non_blank(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def chapter_of(path: Path):
    first = path.read_text(encoding="utf-8").split("\n", 1)[0]
    match = CHAPTER.match(first)
    return int(match.group(1)) if match else None


def main() -> int:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    library: dict[int, int] = {}
    for path in sorted((root / "src" / "llmfs").rglob("*")):
        if path.suffix in (".hpp", ".cpp"):
            number = chapter_of(path)
            if number is not None:
                library[number] = library.get(number, 0) + non_blank(path)
    print(f"{'chapter program':38} {'program':>7} {'library':>7} {'ratio':>6}")
    for folder in sorted((root / "snippets").glob("ch[0-9]*")):
        number = int(folder.name[2:4])
        program = sum(non_blank(p) for p in folder.iterdir() if p.suffix in (".hpp", ".cpp"))
        lib = library.get(number, 0)
        ratio = f"{program / lib:.2f}" if lib else "-"
        print(f"{folder.name:38} {program:7d} {lib:7d} {ratio:>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
