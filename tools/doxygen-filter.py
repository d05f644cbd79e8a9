#!/usr/bin/python3
"""Doxygen INPUT_FILTER for the public headers (docs/Doxyfile).

Doxygen 1.9.4 cannot place an fmt formatter specialisation written the usual way,
    template <>
    struct fmt::formatter<llmfs::tensor::Shape> ... { ... };
("Internal inconsistency: scope for class fmt::formatter<...> not found", an error under
WARN_AS_ERROR). This filter shows Doxygen the same code inside `namespace fmt { }`, which it
parses, and which EXCLUDE_SYMBOLS then leaves out of the API reference. Line numbers are
kept (the namespace opens on the `template <>` line and closes on the `};` line), so
Doxygen's warnings still point at the real lines. The headers themselves are not changed.
"""
import re
import sys

SPECIALISATION = re.compile(
    r"^template\s*<>(?P<gap>\s*)(?P<key>struct|class)\s+fmt::formatter<(?P<body>.*?)^};",
    re.MULTILINE | re.DOTALL)


def wrap(match: re.Match) -> str:
    return (f"namespace fmt {{ template <>{match['gap']}{match['key']} formatter<{match['body']}}}; }}")


with open(sys.argv[1], encoding="utf-8") as source:
    sys.stdout.write(SPECIALISATION.sub(wrap, source.read()))
