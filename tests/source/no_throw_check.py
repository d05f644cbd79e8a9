#!/usr/bin/python3
"""No exception leaves the library: src/llmfs neither throws nor opens a std::expected
with .value() (which throws std::bad_expected_access on an error).

    no_throw_check.py check ROOT    every violation in ROOT/src/llmfs (exit 1 if any)
    no_throw_check.py --self-test   each rule fails on a fake tree and passes once fixed

Rules, applied to the code with comments, string and character literals removed:
  throw     no `throw` expression: bad input comes back as a typed std::expected error.
  value     no `.value()` call outside LLMFS_TRY / LLMFS_TRY_AT (whose argument is an
            expected being passed on, not opened). A `.value()` that is not an
            expected's goes on ALLOWED below, with the reason.
  stoi      no std::stoi / std::stoul / std::stod ... (they throw on bad text); parse
            with std::from_chars.
A line may carry `// no-throw-check: REASON` to allow one deliberate exception to the
rules (none does today: Tensor::zeros/full abort on a broken precondition instead of
throwing, and every library caller checks the count first).
An ALLOWED entry that no longer matches anything is itself an error, so the list
cannot rot.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

# (file relative to the root, the exact call) -> why it is not an expected's value().
ALLOWED = {
    ("src/llmfs/eval/metrics.cpp", "nats.value()"):
        "CompensatedSum::value() returns the double sum",
    ("src/llmfs/autograd/tape_gradcheck.cpp", "value.value()"):
        "TensorValue::value() returns an expected, returned unopened",
}
ALLOW_COMMENT = "// no-throw-check:"
THROW = re.compile(r"\bthrow\b")
VALUE = re.compile(r"([\w\]\)\.>-]*?)\.value\(\)")
STO = re.compile(r"\bstd::sto(?:i|l|ll|ul|ull|f|d|ld)\s*\(")


def strip_code(text: str) -> str:
    """The text with comments and string/char literals blanked (newlines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else text[i:j])
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def statement_start(code: str, at: int) -> int:
    """Offset just after the last `;`, `{` or `}` before `at`."""
    return max(code.rfind(ch, 0, at) for ch in ";{}") + 1


def scan(root: Path, allowed: dict) -> list[str]:
    """Every violation under root/src/llmfs, as `path:line: rule: text`."""
    problems, used = [], set()
    files = sorted((root / "src" / "llmfs").rglob("*.[ch]pp"))
    for path in files:
        rel = path.relative_to(root).as_posix()
        raw = path.read_text(encoding="utf-8")
        raw_lines = raw.splitlines()
        code = strip_code(raw)

        def report(offset: int, rule: str) -> None:
            number = code.count("\n", 0, offset) + 1
            line = raw_lines[number - 1] if number <= len(raw_lines) else ""
            if ALLOW_COMMENT not in line:
                problems.append(f"{rel}:{number}: {rule}: {line.strip()}")

        for m in THROW.finditer(code):
            report(m.start(), "throw (return a typed std::expected error instead)")
        for m in STO.finditer(code):
            report(m.start(), "std::sto* throws on bad text (use std::from_chars)")
        for m in VALUE.finditer(code):
            call = m.group(0).split("(", 1)[0].rsplit(" ", 1)[-1] + "()"
            receiver = re.sub(r"^.*?([\w]+\.value\(\))$", r"\1", call)
            if "LLMFS_TRY" in code[statement_start(code, m.start()):m.start()]:
                continue
            if (rel, receiver) in allowed:
                used.add((rel, receiver))
                continue
            report(m.start(), ".value() throws on an error (use LLMFS_TRY or check it)")
    for key in sorted(set(allowed) - used):
        problems.append(f"{key[0]}: stale ALLOWED entry {key[1]} ({allowed[key]})")
    return problems


def self_test() -> int:
    cases = {
        "throw": ("void f() { throw std::length_error(\"x\"); }\n",
                  "// throw in a comment is fine\nvoid f() { std::abort(); }\n"),
        "value": ("int f(std::expected<int, E> e) { return e.value(); }\n",
                  "std::expected<int, E> f() {\n  int x =\n      LLMFS_TRY(g().value());\n"
                  "  return x;\n}\n"),
        "sto": ("int f(const std::string& s) { return std::stoi(s); }\n",
                "int f() { const char* s = \"std::stoi(\"; return 0; }\n"),
        "allow comment": ("void f() { throw 1; }\n",
                          "void f() { throw 1; }  // no-throw-check: self-test\n"),
        "allowed receiver": ("double f() { return sum.value(); }\n",
                             "double f() { return nats.value(); }\n"),
    }
    failures = 0
    for name, (bad, good) in cases.items():
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            source = root / "src" / "llmfs" / "x" / "a.cpp"
            source.parent.mkdir(parents=True)
            allowed = {("src/llmfs/x/a.cpp", "nats.value()"): "self-test"}
            source.write_text(bad, encoding="utf-8")
            flagged = [p for p in scan(root, allowed) if "stale" not in p]
            source.write_text(good, encoding="utf-8")
            clean = [p for p in scan(root, allowed) if "stale" not in p]
            if not flagged or clean:
                print(f"self-test {name}: bad flagged {flagged}, good flagged {clean}")
                failures += 1
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "src" / "llmfs").mkdir(parents=True)
        stale = scan(root, {("src/llmfs/gone.cpp", "x.value()"): "self-test"})
        if len(stale) != 1 or "stale ALLOWED entry" not in stale[0]:
            print(f"self-test stale entry: got {stale}")
            failures += 1
    print("no_throw self-test:", "FAILED" if failures else "ok")
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 3 or argv[1] != "check":
        print(__doc__)
        return 2
    problems = scan(Path(argv[2]), ALLOWED)
    for problem in problems:
        print(problem)
    print(f"no_throw: {len(problems)} problem(s) in src/llmfs")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
