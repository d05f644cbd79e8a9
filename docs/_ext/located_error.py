"""The one error type of the book tooling that points at a line of a file.

Shared by llmfs_regions.py (RegionError) and trace_records.py (TraceFormatError), so both
print `path:line: message` the same way and callers can read .path, .line and .message.
Pure Python, no Sphinx import.
"""

from __future__ import annotations


class LocatedError(Exception):
    """A problem located at path:line (1-based); str() is `path:line: message`."""

    def __init__(self, path: str, line: int, message: str):
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line
        self.message = message
