"""Region markers in source files: parse, validate, extract.

A region is a named span of real source between two whole comment lines:

    // region: head-layout
    ... code ...
    // endregion: head-layout

(`#` instead of `//` in Python, shell and CMake files). Names are lower-case words joined
by hyphens, unique within a file; regions may nest; marker lines never reach the book.

Used by the Sphinx extension (llmfs_book.py) and by the book tests (tests/book/), so the
two always agree on what a region is. Pure Python, no Sphinx import.
"""

from __future__ import annotations

import dataclasses
import re
import textwrap
from pathlib import Path

from located_error import LocatedError

NAME = r"[a-z0-9]+(?:-[a-z0-9]+)*"
# Anything that looks like it wants to be a marker; checked strictly below.
_LOOSE = re.compile(r"^\s*(?://+|#+)\s*(end)?region\b", re.IGNORECASE)
_STRICT = re.compile(r"^\s*(?P<comment>//|#) (?P<kind>region|endregion): (?P<name>" + NAME + r")\s*$")

# File suffixes whose comments start with '#'; everything else uses '//'.
_HASH_SUFFIXES = {".py", ".sh", ".cmake", ".txt", ".toml", ".yaml", ".yml"}
# Files the two-way check scans for region definitions.
SOURCE_SUFFIXES = {".hpp", ".cpp", ".h", ".cc", ".py", ".sh", ".cmake"}


class RegionError(LocatedError):
    """A problem in a source file, located at path:line (1-based)."""


@dataclasses.dataclass
class Region:
    name: str
    start: int  # line of the `region:` marker (1-based)
    end: int  # line of the `endregion:` marker
    lines: list[str]  # the body, nested markers removed, not yet dedented

    @property
    def first_line(self) -> int:
        return self.start + 1

    @property
    def last_line(self) -> int:
        return self.end - 1

    def text(self) -> str:
        return textwrap.dedent("\n".join(self.lines)).strip("\n")


def comment_style(path: str) -> str:
    p = Path(path)
    return "#" if p.suffix in _HASH_SUFFIXES or p.name == "CMakeLists.txt" else "//"


def parse_text(text: str, path: str) -> dict[str, Region]:
    """Every region of one file, by name. Raises RegionError on the first problem."""
    style = comment_style(path)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    regions: dict[str, Region] = {}
    open_stack: list[tuple[str, int]] = []
    markers: set[int] = set()
    for number, line in enumerate(lines, start=1):
        if not _LOOSE.match(line):
            continue
        m = _STRICT.match(line)
        if not m:
            raise RegionError(path, number,
                              f"malformed region marker {line.strip()!r}: write "
                              f"'{style} region: NAME' or '{style} endregion: NAME' on a line of its own, "
                              f"NAME in lower-case words joined by hyphens")
        if m["comment"] != style:
            raise RegionError(path, number, f"malformed region marker {line.strip()!r}: this file's comments start with '{style}'")
        name = m["name"]
        markers.add(number)
        if m["kind"] == "region":
            if name in regions or any(n == name for n, _ in open_stack):
                first = regions[name].start if name in regions else next(l for n, l in open_stack if n == name)
                raise RegionError(path, number, f"duplicate region '{name}' (first defined at line {first})")
            open_stack.append((name, number))
            continue
        if not open_stack:
            raise RegionError(path, number, f"unbalanced 'endregion: {name}': no region is open")
        top, top_line = open_stack[-1]
        if top != name:
            if any(n == name for n, _ in open_stack):
                raise RegionError(path, number,
                                  f"unbalanced 'endregion: {name}': region '{top}' opened at line {top_line} "
                                  f"must end first (regions nest, they do not overlap)")
            raise RegionError(path, number, f"unbalanced 'endregion: {name}': no region '{name}' is open "
                                            f"(innermost open region is '{top}' from line {top_line})")
        open_stack.pop()
        regions[name] = Region(name=name, start=top_line, end=number, lines=[])
    if open_stack:
        name, line = open_stack[-1]
        raise RegionError(path, line, f"unbalanced 'region: {name}': no matching 'endregion: {name}' before the end of the file")
    for region in regions.values():
        region.lines = [lines[i - 1] for i in range(region.start + 1, region.end) if i not in markers]
        if not any(l.strip() for l in region.lines):
            raise RegionError(path, region.start, f"region '{region.name}' is empty")
    return regions


def parse_file(root: Path, relpath: str) -> dict[str, Region]:
    path = root / relpath
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise
    return parse_text(text, relpath)


REFERENCE = re.compile(r"^(?P<path>[A-Za-z0-9_./-]+)#(?P<name>" + NAME + r")$")


def split_reference(argument: str) -> tuple[str, str]:
    """'src/a/b.cpp#name' -> ('src/a/b.cpp', 'name'); ValueError if malformed."""
    m = REFERENCE.match(argument.strip())
    if not m:
        raise ValueError(f"bad region reference {argument!r}: expected PATH#NAME, PATH relative to the "
                         f"repository root, NAME in lower-case words joined by hyphens")
    path = m["path"]
    if path.startswith("/") or ".." in Path(path).parts:
        raise ValueError(f"bad region reference {argument!r}: the path must stay inside the repository")
    return path, m["name"]
