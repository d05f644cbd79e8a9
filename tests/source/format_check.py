#!/usr/bin/python3
"""Fails when a C++ file of the project is not formatted as .clang-format says.

    format_check.py ROOT

Checks every *.cpp and *.hpp under src/, snippets/, tests/ and bench/ with
`clang-format --dry-run --Werror` (clang-format 14, tools/deps.txt) and prints each file that
would change, with clang-format's first complaint. Fix with:
`clang-format -i $(git ls-files '*.cpp' '*.hpp')`.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

FOLDERS = ("src", "snippets", "tests", "bench")


def cpp_files(root: Path) -> list[Path]:
    files = []
    for folder in FOLDERS:
        files += (root / folder).rglob("*.cpp")
        files += (root / folder).rglob("*.hpp")
    return sorted(files)


def self_test(root: Path) -> int:
    """The check must fail on a file clang-format would change, and pass once it is fixed."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        fake = Path(tmp)
        shutil.copy(root / ".clang-format", fake / ".clang-format")
        (fake / "src").mkdir()
        bad = fake / "src" / "bad.cpp"
        bad.write_text("int  f( int x ){return x;}\n")
        if check(fake) == 0:
            print("format self-test: an unformatted file passed")
            return 1
        subprocess.run(["clang-format", "-i", str(bad)], check=True)
        if check(fake) != 0:
            print("format self-test: a formatted file failed")
            return 1
    print("format self-test: unformatted file rejected, formatted file accepted")
    return 0


def main() -> int:
    args = sys.argv[1:]
    root = Path(args[-1]).resolve() if args and not args[-1].startswith("-") else Path(__file__).resolve().parents[2]
    if "--self-test" in args:
        return self_test(root)
    return check(root)


def check(root: Path) -> int:
    tool = shutil.which("clang-format")
    if tool is None:
        print("format: clang-format not found (package clang-format in tools/deps.txt)")
        return 1
    files = cpp_files(root)
    # One clang-format run over every file; it names each file it would change.
    result = subprocess.run([tool, "--dry-run", "--Werror", *map(str, files)], cwd=root,
                            capture_output=True, text=True)
    complaints: dict[str, str] = {}
    for line in result.stderr.splitlines():
        if "error:" in line and "clang-format-violations" in line:
            complaints.setdefault(line.split(":", 1)[0], line.strip())
    bad = [f"{Path(path).relative_to(root)}: not formatted ({first})"
           for path, first in sorted(complaints.items())]
    if result.returncode != 0 and not bad:
        bad.append(f"clang-format failed: {result.stderr.strip()[:500]}")
    for line in bad:
        print(line)
    if bad:
        print("format: fix with  clang-format -i " + " ".join(b.split(":", 1)[0] for b in bad))
    print(f"format: {len(files) - len(bad)} of {len(files)} C++ files match .clang-format")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
