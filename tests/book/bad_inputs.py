#!/usr/bin/python3
"""Bad input never renders silently: each broken tiny book must fail to build, naming file:line.

Every case writes a tiny repository into a temporary folder (a chapter, a source file or
snippet, a renderer), builds it with the real extension (docs/_ext/llmfs_book.py) under
`sphinx -W`, and asserts that the build fails and that its output names the chapter's
file:line and, where the cause is elsewhere, the cause's file:line. One good book is built
too (and its HTML inspected), so a failure cannot come from a broken harness. The static
checks (book_checks.py) get their own broken inputs at the end.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXT = ROOT / "docs" / "_ext"

CONF = f"""
import sys
sys.path.insert(0, {str(EXT)!r})
extensions = ["myst_parser", "llmfs_book"]
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
root_doc = "index"
nitpicky = True
llmfs_repo_root = {{root!r}}
llmfs_diagrams_dir = {{root!r}} + "/diagrams"
llmfs_stage_mathjax = False
html_theme = "basic"
"""

GOOD_SOURCE = """\
#include <vector>

namespace demo {
  // region: outer
  // A function that the book shows.
  int twice(int x) {
    // region: inner
    return 2 * x;
    // endregion: inner
  }
  // endregion: outer
}
"""

SNIPPET_GOLDEN = "config=tiny\ninput=shape:[1] values:[1.000000]\noutput=shape:[1] values:[2.000000]\n"
SNIPPET_TRACE = "STEP|name=double|input=1.000000|output=2.000000\nSTEP|name=again|input=2.000000|output=4.000000\n"
RENDERER = """\
from html import escape
TITLE = "Doubling, step by step"
def render(records):
    rows = "".join(f"<li>{escape(r.fields['name'])}: {escape(r.fields['output'])}</li>" for r in records)
    text = "\\n".join(f"{r.fields['name']} gives {r.fields['output']}" for r in records)
    return f'<ul class="llmfs-flow">{rows}</ul>', text
"""
UNTITLED_RENDERER = RENDERER.replace('TITLE = "Doubling, step by step"\n', "")
BROKEN_RENDERER = """\
def render(records):
    total = 0
    for r in records:
        total += r.fields['missing-key']
    return "x", "y"
TITLE = "Broken"
"""


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text) if rel.endswith(".md") else text, encoding="utf-8")


def base_files() -> dict[str, str]:
    return {
        "src/demo/good.cpp": GOOD_SOURCE,
        "snippets/ch99-tiny/expected.txt": SNIPPET_GOLDEN,
        "snippets/ch99-tiny/trace.txt": SNIPPET_TRACE,
        "diagrams/ch99.py": RENDERER,
    }


def build(files: dict[str, str], builder: str = "dummy") -> tuple[int, str, Path]:
    tmp = Path(tempfile.mkdtemp(prefix="llmfs-badbook-"))
    write(tmp, {**base_files(), **files})
    (tmp / "conf").mkdir()
    (tmp / "conf" / "conf.py").write_text(CONF.format(root=str(tmp)), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", builder,
                             "-c", str(tmp / "conf"), str(tmp / "chapters"), str(tmp / "out")],
                            capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr, tmp


def build_and_clean(files: dict[str, str]) -> tuple[int, str]:
    code, output, tmp = build(files)
    shutil.rmtree(tmp, ignore_errors=True)
    return code, output


def chapter(body: str) -> dict[str, str]:
    return {"chapters/index.md": "# Tiny book\n\nSome text.\n\n" + textwrap.dedent(body)}


# (case name, files, expected substrings of the output). The directive sits on line 5.
CASES = [
    ("missing file",
     chapter("```{region} src/demo/absent.cpp#outer\n:caption: Absent\n```\n"),
     ["index.md:5", "src/demo/absent.cpp: no such file"]),
    ("missing region",
     chapter("```{region} src/demo/good.cpp#nowhere\n:caption: Nowhere\n```\n"),
     ["index.md:5", "src/demo/good.cpp:1: no region 'nowhere'", "its regions: inner, outer"]),
    ("duplicated region",
     {**chapter("```{region} src/demo/dup.cpp#one\n:caption: Dup\n```\n"),
      "src/demo/dup.cpp": "// region: one\nint a();\n// endregion: one\n// region: one\nint b();\n// endregion: one\n"},
     ["index.md:5", "src/demo/dup.cpp:4: duplicate region 'one' (first defined at line 1)"]),
    ("unclosed region",
     {**chapter("```{region} src/demo/open.cpp#one\n:caption: Open\n```\n"),
      "src/demo/open.cpp": "int x;\n// region: one\nint a();\n"},
     ["index.md:5", "src/demo/open.cpp:2: unbalanced 'region: one'"]),
    ("endregion without region",
     {**chapter("```{region} src/demo/stray.cpp#one\n:caption: Stray\n```\n"),
      "src/demo/stray.cpp": "// region: one\nint a();\n// endregion: one\n// endregion: two\n"},
     ["index.md:5", "src/demo/stray.cpp:4: unbalanced 'endregion: two'"]),
    ("overlapping regions",
     {**chapter("```{region} src/demo/overlap.cpp#one\n:caption: Overlap\n```\n"),
      "src/demo/overlap.cpp": "// region: one\n// region: two\nint a();\n// endregion: one\n// endregion: two\n"},
     ["index.md:5", "src/demo/overlap.cpp:4: unbalanced 'endregion: one'", "region 'two' opened at line 2"]),
    ("malformed marker (no space, capitals)",
     {**chapter("```{region} src/demo/bad.cpp#one\n:caption: Bad\n```\n"),
      "src/demo/bad.cpp": "// region: one\n//region:Two\nint a();\n// endregion: one\n"},
     ["index.md:5", "src/demo/bad.cpp:2: malformed region marker"]),
    ("malformed marker (no name)",
     {**chapter("```{region} src/demo/noname.cpp#one\n:caption: Bad\n```\n"),
      "src/demo/noname.cpp": "// region: one\nint a();\n// endregion:\n"},
     ["index.md:5", "src/demo/noname.cpp:3: malformed region marker"]),
    ("bad region argument (no #name)",
     chapter("```{region} src/demo/good.cpp\n:caption: No name\n```\n"),
     ["index.md:5", "bad region reference 'src/demo/good.cpp'"]),
    ("region path leaving the repository",
     chapter("```{region} ../etc/passwd#x\n:caption: Escape\n```\n"),
     ["index.md:5", "bad region reference"]),
    ("region without caption",
     chapter("```{region} src/demo/good.cpp#outer\n```\n"),
     ["index.md:5", ":caption: option is required"]),
    ("demo-output key that matches nothing",
     chapter("```{demo-output} ch99-tiny\n:keys: config,nonexistent\n```\n"),
     ["index.md:5", ":keys: 'nonexistent' matches no report line of snippets/ch99-tiny/expected.txt"]),
    ("demo-output lines past the end",
     chapter("```{demo-output} ch99-tiny\n:lines: 2-9\n```\n"),
     ["index.md:5", ":lines: '2-9': '2-9' goes past the last line (3)"]),
    ("demo-output malformed range",
     chapter("```{demo-output} ch99-tiny\n:lines: 3-1\n```\n"),
     ["index.md:5", "not an increasing range"]),
    ("demo-output keys and lines together",
     chapter("```{demo-output} ch99-tiny\n:keys: config\n:lines: 1\n```\n"),
     ["index.md:5", "use :keys: or :lines:, not both"]),
    ("demo-output of a missing snippet",
     chapter("```{demo-output} ch98-absent\n```\n"),
     ["index.md:5", "snippet folder snippets/ch98-absent/ does not exist"]),
    ("trace-diagram with a malformed record",
     {**chapter("```{trace-diagram} ch99-tiny\n```\n"),
      "snippets/ch99-tiny/trace.txt": "STEP|name=double|output=2.000000\nSTEP|name=again|output\n"},
     ["index.md:5", "snippets/ch99-tiny/trace.txt:2: malformed field 'output'"]),
    ("trace-diagram with a lower-case kind",
     {**chapter("```{trace-diagram} ch99-tiny\n```\n"),
      "snippets/ch99-tiny/trace.txt": "STEP|name=double|output=2.000000\n\nstep|name=x\n"},
     ["index.md:5", "snippets/ch99-tiny/trace.txt:2: empty line"]),
    ("trace-diagram whose renderer fails",
     {**chapter("```{trace-diagram} ch99-tiny\n```\n"), "diagrams/ch99.py": BROKEN_RENDERER},
     ["index.md:5", "diagrams/ch99.py:4: render() failed on snippets/ch99-tiny/trace.txt: KeyError"]),
    ("trace-diagram without a title (no :caption:, no TITLE)",
     {**chapter("```{trace-diagram} ch99-tiny\n```\n"), "diagrams/ch99.py": UNTITLED_RENDERER},
     ["index.md:5", "diagrams/ch99.py: the figure has no title"]),
    ("mention of a chapter that is not written, not marked 'to come'",
     {**chapter("```{course}\n# Part\n01 One\n02 Two\n```\n\nAs chapter 2 will show, text.\n"),
      "chapters/01-one.md": "# One\n\nText.\n\nChapter 2 builds on this.\n"},
     ["01-one.md:5", "'Chapter 2': not written yet (2 Two)"]),
    ("a written chapter still marked 'to come'",
     {**chapter("```{course}\n# Part\n01 One\n02 Two\n```\n"),
      "chapters/01-one.md": "# One\n\nText.\n\nChapter 1 (to come) says so.\n"},
     ["01-one.md:5", "'Chapter 1' is written: drop 'to come'"]),
    ("mention of a chapter outside the course",
     {**chapter("```{course}\n# Part\n01 One\n```\n"),
      "chapters/01-one.md": "# One\n\nText.\n\nSee chapter 7 (to come).\n"},
     ["01-one.md:5", "'chapter 7': there is no chapter 7 in the course"]),
    ("an empty answer",
     chapter(":::{answer}\n\n:::\n"),
     ["index.md:5", "{answer} the answer is empty"]),
    ("trace-diagram without a renderer",
     {**chapter("```{trace-diagram} ch99-tiny\n```\n"), "snippets/ch97-norender/trace.txt": SNIPPET_TRACE,
      "chapters/index.md": "# Tiny book\n\nSome text.\n\n```{trace-diagram} ch97-norender\n```\n"},
     ["index.md:5", "diagrams/ch97.py: no such renderer"]),
]


def navigation_case() -> list[str]:
    """Previous/next follow the course: 00's Next is 01 once 01 exists, else the next written."""
    problems = []
    course = "```{course}\n# Part\n00 Zero\n01 One\n02 Two\n27 Late\n```\n"
    docs = {"chapters/index.md": "# Tiny book\n\n" + course, "chapters/00-zero.md": "# Zero\n\nText.\n",
            "chapters/27-late.md": "# Late\n\nText.\n"}
    for with_one, expected in [(False, "27-late.html"), (True, "01-one.html")]:
        files = {**docs, **({"chapters/01-one.md": "# One\n\nText.\n"} if with_one else {})}
        code, output, tmp = build(files, builder="html")
        page = (tmp / "out" / "00-zero.html").read_text(encoding="utf-8") if code == 0 else ""
        shutil.rmtree(tmp, ignore_errors=True)
        m = re.search(r'<link rel="next" title="[^"]*" href="([^"]+)"', page)
        found = m[1] if m else None
        if code != 0 or found != expected:
            problems.append(f"navigation ({'with' if with_one else 'without'} chapter 1): 00's next is {found}, "
                            f"want {expected} (exit {code})\n{output[-1500:]}")
        else:
            print(f"ok    navigation {'with' if with_one else 'without'} chapter 1: 00's Next is {found}")
    return problems


def good_case() -> list[str]:
    body = ("```{region} src/demo/good.cpp#outer\n:caption: \"Doubling: the `twice` function\"\n```\n\n"
            ":::{answer}\n```{demo-output} ch99-tiny\n:keys: out*\n```\n\nWhy it doubles.\n:::\n\n"
            "```{trace-diagram} ch99-tiny\n```\n\n"
            "```{course}\n# Part one\n01 The first\n02 The second\n```\n\n"
            "Chapter 1 is written; chapter 2 (to come) is not.\n")
    code, output, tmp = build({**chapter(body), "chapters/01-first.md": "# The first\n\nText.\n"}, builder="html")
    if "--show" in sys.argv:
        print((tmp / "out" / "index.html").read_text(encoding="utf-8"))
    if code != 0:
        return [f"good tiny book failed to build (exit {code}):\n{output}"]
    page = (tmp / "out" / "index.html").read_text(encoding="utf-8")
    has_copy = (tmp / "out" / "_code" / "src" / "demo" / "good.cpp.html").is_file()
    shutil.rmtree(tmp, ignore_errors=True)
    problems = []
    for expected in ["twice", "src/demo/good.cpp#outer</span></code> · lines 5–10", "_code/src/demo/good.cpp.html#L5-L10",
                     "Read this diagram as text",
                     "double gives 2.000000", 'class="llmfs-flow"', "Doubling, step by step",
                     '<a class="llmfs-chapter-ref reference internal" href="01-first.html">Chapter 1</a>',
                     "2 · The second", '<span class="llmfs-badge">to come</span>',
                     '<span class="llmfs-field"><span class="llmfs-key">output=</span>shape:[1]</span>',
                     '<span class="llmfs-line">',
                     '<details class="llmfs-answer"><summary><span class="llmfs-answer-show">Show the program&#x27;s answer',
                     "<p>Why it doubles.</p>\n</div></details>"]:
        if expected not in page:
            problems.append(f"good tiny book: {expected!r} missing from index.html")
    for unexpected in ["region: inner", "endregion", "config=tiny"]:
        if unexpected in page:
            problems.append(f"good tiny book: {unexpected!r} must not appear in index.html")
    # Dedent: the region's first line starts at column 0 after removing the common indent.
    if "\n  // A function" in page or "<span></span>  <span" in page:
        problems.append("good tiny book: the region was not dedented")
    if not has_copy:
        problems.append("good tiny book: the source copy _code/src/demo/good.cpp.html was not written")
    return problems


def static_cases() -> list[str]:
    """book_checks.py must catch hand-typed code and unshown, twice-shown or missing regions."""
    problems = []
    tmp = Path(tempfile.mkdtemp(prefix="llmfs-badcheck-"))
    write(tmp, {
        "chapters/01-a.md": "# A\n\nText.\n\n```cpp\nint main() {}\n```\n\n    indented code\n\n"
                            "```{code-block} cpp\nint x;\n```\n\n```{region} src/demo/good.cpp#inner\n:caption: c\n```\n"
                            "\n```{region} src/demo/good.cpp#missing\n:caption: c\n```\n"
                            "\n```{region} src/demo/good.cpp#inner\n:caption: again\n```\n",
        "src/demo/good.cpp": GOOD_SOURCE,
        "snippets/ch01-a/bad.cpp": "// region: x\nint a;\n",
    })
    checks = Path(__file__).with_name("book_checks.py")
    for mode, expected in [
        ("fences", ["chapters/01-a.md:5: hand-typed fenced code block ```cpp", "chapters/01-a.md:9: indented code block",
                    "chapters/01-a.md:11: {code-block} shows hand-typed"]),
        ("regions", ["chapters/01-a.md:19: src/demo/good.cpp#missing: no such region",
                     "src/demo/good.cpp:4: region 'outer' is defined but no chapter shows it",
                     "snippets/ch01-a/bad.cpp:1: unbalanced 'region: x'",
                     "src/demo/good.cpp#inner is shown 2 times"]),
    ]:
        result = subprocess.run([sys.executable, str(checks), mode, str(tmp)], capture_output=True, text=True)
        out = result.stdout + result.stderr
        if result.returncode == 0:  # noqa: SIM102
            problems.append(f"book_checks.py {mode} passed a broken book:\n{out}")
        for e in expected:
            if e not in out:
                problems.append(f"book_checks.py {mode}: expected {e!r} in:\n{out}")
    shutil.rmtree(tmp, ignore_errors=True)
    return problems


def main() -> int:
    failures = good_case() + navigation_case()
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda case: build_and_clean(case[1]), CASES))
    for (name, files, expected), (code, output) in zip(CASES, results):
        missing = [e for e in expected if e not in output]
        if code == 0 or missing:
            failures.append(f"case '{name}': exit {code}, missing {missing} in output:\n{output}")
            print(f"FAIL  {name}")
        else:
            first = next((l for l in output.splitlines() if "index.md:5" in l), "")
            print(f"ok    {name}: {first.strip()}")
    failures += static_cases()
    print("ok    book_checks.py catches hand-typed code and unshown/missing regions" if not any(
        "book_checks" in f for f in failures) else "FAIL  book_checks.py static cases")
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"bad inputs: {len(CASES)} broken books + 1 good book + static checks; {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
