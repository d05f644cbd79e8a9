"""Parse a chapter's trace.txt into records for its diagram renderer.

One record per line: `KIND|key=value|key=value...`
  KIND   upper-case letters, digits and '_', starting with a letter
  key    lower-case letters, digits, '_' and '.', starting with a letter; unique per record
  value  any text without '|' (may be empty); floats carry six decimals, shapes `[a,b,c]`

The renderer reads these records and never recomputes: whatever it draws comes from here.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from located_error import LocatedError

_KIND = re.compile(r"^[A-Z][A-Z0-9_]*$")
_KEY = re.compile(r"^[a-z][a-z0-9_.]*$")


class TraceFormatError(LocatedError):
    """A malformed record, located at path:line (1-based)."""


@dataclasses.dataclass
class Record:
    kind: str
    fields: dict[str, str]  # insertion-ordered, as in the file
    line: int  # 1-based line number in trace.txt

    def __getitem__(self, key: str) -> str:
        return self.fields[key]

    def get(self, key: str, default: str | None = None) -> str | None:
        return self.fields.get(key, default)


def parse_text(text: str, path: str = "trace.txt") -> list[Record]:
    if text and not text.endswith("\n"):
        raise TraceFormatError(path, text.count("\n") + 1, "the last record must end with a newline")
    records = []
    for number, line in enumerate(text.split("\n")[:-1] if text else [], start=1):
        if not line.strip():
            raise TraceFormatError(path, number, "empty line: every line must be a record KIND|key=value|...")
        parts = line.split("|")
        kind = parts[0]
        if not _KIND.match(kind):
            raise TraceFormatError(path, number, f"malformed record kind {kind!r}: expected upper-case letters, digits, '_'")
        fields: dict[str, str] = {}
        for part in parts[1:]:
            key, eq, value = part.partition("=")
            if not eq:
                raise TraceFormatError(path, number, f"malformed field {part!r} in {kind} record: expected key=value")
            if not _KEY.match(key):
                raise TraceFormatError(path, number, f"malformed key {key!r} in {kind} record: expected lower-case letters, digits, '_', '.'")
            if key in fields:
                raise TraceFormatError(path, number, f"duplicate key {key!r} in {kind} record")
            fields[key] = value
        records.append(Record(kind=kind, fields=fields, line=number))
    if not records:
        raise TraceFormatError(path, 1, "no records")
    return records


def parse_file(path: Path, shown_as: str | None = None) -> list[Record]:
    return parse_text(Path(path).read_text(encoding="utf-8"), shown_as or str(path))
