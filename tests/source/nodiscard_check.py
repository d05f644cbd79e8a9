#!/usr/bin/python3
"""Every function that returns a std::expected is [[nodiscard]], and a dropped result fails
to build.

    nodiscard_check.py scan ROOT      declarations without [[nodiscard]] (exit 1 if any)
    nodiscard_check.py self-test      the scan flags plain, trailing and aliased declarations,
                                      and braces in literals and comments do not count
    nodiscard_check.py compile ROOT   a program that drops a result must not compile with
                                      the project's flags; the same program using it must

scan: in every header under src/ and snippets/, a declaration whose return type is
`std::expected<...>` — written before the name or as a trailing `-> std::expected<...>`, or
through any alias `using X = std::expected<...>` declared in src/ or snippets/ — must carry `[[nodiscard]]` at the
start of the declaration (it may stand on the line above). In .cpp files, the same holds
for functions that are their own declaration: those in an anonymous namespace. Member and
free functions declared in a header carry the attribute on the declaration, so their
out-of-line definitions are not checked. Lambdas are not checked (the tape consumes
backward closures' results).

compile: libstdc++ 12's std::expected is not [[nodiscard]] itself, so the attribute on the
declarations is what makes `backward(loss, seed);` an error under -Werror.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

ALIAS = re.compile(r"^\s*(?:template\s*<[^>]*>\s*)?using\s+(\w+)\s*=\s*std::expected<")
LEAD = r"^\s*(?:\[\[nodiscard\]\]\s*)?(?:static\s+|inline\s+|constexpr\s+|friend\s+)*"
FLAGS = ["-std=c++23", "-fsyntax-only", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]


def return_patterns(root: Path) -> tuple[re.Pattern, re.Pattern]:
    """(leading, trailing) return-type patterns: `std::expected<`, and every alias
    `using X = std::expected<...>` (or template alias) declared in src/ or snippets/."""
    names = {"Step"}
    for folder in ("src", "snippets"):
        for path in list((root / folder).rglob("*.hpp")) + list((root / folder).rglob("*.cpp")):
            for line in path.read_text(encoding="utf-8").splitlines():
                match = ALIAS.match(line)
                if match:
                    names.add(match.group(1))
    returned = rf"(?:std::expected<|(?:\w+::)*(?:{'|'.join(sorted(names))})\b)"
    return (re.compile(LEAD + returned),
            re.compile(LEAD + rf"auto\s+[\w:]+\s*\(.*->\s*{returned}"))


RAW_PREFIXES = ("R", "u8R", "uR", "UR", "LR")


def code_only(text: str) -> str:
    """`text` with every comment and every string, character and raw string literal blanked
    to spaces (newlines kept, so lines keep their numbers): what is left is code, whose
    braces can be counted. A quote inside a number (1'000) is a digit separator."""
    out = list(text)
    i, n = 0, len(text)

    def blank(start, end):
        for k in range(start, min(end, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
        elif c == '"' or (c == "'" and not number_before(text, i)):
            word = word_before(text, i)
            if c == '"' and word in RAW_PREFIXES:
                open_paren = text.find("(", i)
                close = text.find(")" + text[i + 1:open_paren] + '"', open_paren)
                end = n if open_paren < 0 or close < 0 else close + open_paren - i + 1
            else:
                end = i + 1
                while end < n and text[end] not in (c, "\n"):
                    end += 2 if text[end] == "\\" else 1
                end += 1
        else:
            i += 1
            continue
        blank(i, end)
        i = end
    return "".join(out)


def word_before(text: str, i: int) -> str:
    """The identifier or number that ends just before position i."""
    start = i
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    return text[start:i]


def number_before(text: str, i: int) -> bool:
    """Whether a number literal ends just before i (so a quote at i separates its digits)."""
    word = word_before(text, i)
    return bool(word) and word[0].isdigit()


def declarations(path: Path, only_anonymous: bool, patterns):
    """Yield (line number, text, has_nodiscard) for each std::expected-returning declaration.
    Braces and `namespace {` are read from code_only(): braces in comments and literals
    do not move the depth."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    code = code_only(text).splitlines()
    depth_anon = []  # stack of brace depths at which an anonymous namespace opened
    depth = 0
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        in_anon = bool(depth_anon)
        parameter = "(" not in stripped and stripped.endswith((",", ")", ");"))
        leading, trailing = patterns
        if (leading.match(line) or trailing.match(line)) and not parameter and \
                "(" in "".join(lines[number - 1:number + 3]) and \
                not stripped.startswith(("using ", "return ", "//")) and "=" not in stripped.split("(")[0]:
            previous = lines[number - 2].strip() if number > 1 else ""
            marked = "[[nodiscard]]" in line or previous.endswith("[[nodiscard]]")
            if not only_anonymous or in_anon:
                yield number, stripped, marked
        if re.match(r"^\s*namespace\s*\{", code[number - 1]):
            depth_anon.append(depth)
        depth += code[number - 1].count("{") - code[number - 1].count("}")
        while depth_anon and depth <= depth_anon[-1]:
            depth_anon.pop()


def scan(root: Path) -> int:
    patterns = return_patterns(root)
    missing = []
    checked = 0
    for folder in ("src", "snippets"):
        for path in sorted((root / folder).rglob("*.hpp")):
            for number, text, marked in declarations(path, only_anonymous=False, patterns=patterns):
                checked += 1
                if not marked:
                    missing.append(f"{path.relative_to(root)}:{number}: {text}")
        for path in sorted((root / folder).rglob("*.cpp")):
            for number, text, marked in declarations(path, only_anonymous=True, patterns=patterns):
                checked += 1
                if not marked:
                    missing.append(f"{path.relative_to(root)}:{number}: {text}")
    for line in missing:
        print(f"{line}  <- returns std::expected without [[nodiscard]]")
    print(f"nodiscard: {checked - len(missing)} of {checked} std::expected declarations are [[nodiscard]]")
    return 1 if missing or checked == 0 else 0


DROPS = {
    "backward": "llmfs::autograd::backward(loss, llmfs::tensor::Tensor::scalar(1.0));",
    "split_heads": "llmfs::attention::split_heads(loss, 2);",
    "matmul": "llmfs::tensor::matmul(a, a);",
}


HEADER = (
    "#include <llmfs/attention/multi_head.hpp>\n#include <llmfs/autograd/ops.hpp>\n"
    "#include <llmfs/tensor/matmul.hpp>\n"
    "void f(const llmfs::autograd::TensorValue& loss, const llmfs::tensor::Tensor& a) {\n"
    "  (void)loss;\n  (void)a;\n")
FIRST_LINE = HEADER.count("\n") + 1


def compile_check(root: Path) -> int:
    """One program drops every result (each line must be an 'ignoring return value' error);
    the same program keeping the results must build."""
    dropped = HEADER + "".join(f"  {s}\n" for s in DROPS.values()) + "}\n"
    used = HEADER + "".join(f"  auto r{i} = {s}\n  (void)r{i};\n"
                            for i, s in enumerate(DROPS.values())) + "}\n"
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for kind, text in (("dropped", dropped), ("used", used)):
            source = Path(tmp) / f"{kind}.cpp"
            source.write_text(text)
            result = subprocess.run(["g++", *FLAGS, f"-I{root / 'src'}", str(source)],
                                    capture_output=True, text=True)
            if kind == "used":
                ok = result.returncode == 0
                print(f"nodiscard: results used: {'builds' if ok else 'does not build'}")
                if not ok:
                    print(result.stderr[:3000])
                failures += not ok
                continue
            for offset, name in enumerate(DROPS):
                line = FIRST_LINE + offset
                hit = re.search(rf"{source.name}:{line}:\d+: error: ignoring return value",
                                result.stderr)
                print(f"nodiscard: {name} result dropped: "
                      f"{'fails to build' if hit else 'BUILDS (the result can be dropped)'}")
                failures += not hit
    return 1 if failures else 0


SELF_TEST = """#include <expected>
using Result = std::expected<int, int>;
std::expected<int, int> plain(int x);
auto trailing(int x) -> std::expected<int, int>;
Result aliased(int x);
[[nodiscard]] Result marked(int x);
[[nodiscard]] std::expected<int, int>
marked_above(int x);
auto lambda = [](int x) -> std::expected<int, int> { return x; };
void takes(std::expected<int, int> parameter,
           std::expected<int, int> second);
"""

# Closing braces inside literals and comments must not end the anonymous namespace: line 10
# is still inside it (flagged); line 12 is outside it (a .cpp's own declarations are checked
# only there).
SELF_TEST_CLOSERS = """#include <expected>
namespace {
const char* brace = "}";
const char* escaped = "\\"}\\\\";
const char quote = '}';
const char* raw = R"x(")}")x";
const int big = 1'000'000;  // a closing brace in a comment: }
/* and in a block comment: }
   } */
std::expected<int, int> inside(int x);
}  // namespace
std::expected<int, int> outside(int x);
"""

# Opening braces inside literals must not keep it open: line 7 is outside it (not flagged).
SELF_TEST_OPENERS = """#include <expected>
namespace {
const char* brace = "{{";
const char quote = '{';  // {
const long big = 1'000 + '{';
}  // namespace
std::expected<int, int> outside(int x);
"""

WANT = [("probe.hpp", 3), ("probe.hpp", 4), ("probe.hpp", 5), ("probe_closers.cpp", 10)]


def self_test() -> int:
    """The scan flags exactly the three unmarked declarations of SELF_TEST and the one inside
    SELF_TEST_CLOSERS' anonymous namespace, and nothing in SELF_TEST_OPENERS."""
    with tempfile.TemporaryDirectory() as tmp:
        fake = Path(tmp)
        (fake / "src").mkdir()
        (fake / "snippets").mkdir()
        (fake / "src" / "probe.hpp").write_text(SELF_TEST)
        (fake / "src" / "probe_closers.cpp").write_text(SELF_TEST_CLOSERS)
        (fake / "src" / "probe_openers.cpp").write_text(SELF_TEST_OPENERS)
        result = subprocess.run([sys.executable, __file__, "scan", str(fake)],
                                capture_output=True, text=True)
    flagged = sorted((name, int(line)) for name, line in
                     re.findall(r"src/(probe\w*\.\w+):(\d+):", result.stdout))
    ok = result.returncode == 1 and flagged == WANT
    print(f"nodiscard self-test: flagged {flagged} (want {WANT}): "
          f"{'ok' if ok else 'FAILED'}\n{'' if ok else result.stdout}")
    return 0 if ok else 1


def main() -> int:
    mode = sys.argv[1]
    if mode == "self-test":
        return self_test()
    root = Path(sys.argv[2]).resolve()
    return scan(root) if mode == "scan" else compile_check(root)


if __name__ == "__main__":
    sys.exit(main())
