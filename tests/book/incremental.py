#!/usr/bin/python3
"""Editing a source re-renders only the chapters that show it (env.note_dependency).

A tiny book with three chapters: one shows a region of src/demo/good.cpp, one shows
another file's region and the demo output, one draws the trace diagram. After a first
build: a rebuild with no change reads no chapter; editing good.cpp re-reads only the first
chapter (and the edit shows up in its HTML); editing trace.txt re-reads only the third;
editing expected.txt only the second; editing an extension (a copy of docs/_ext, so the
real one is never touched) re-reads every chapter and rewrites every page, and the build
after it reads nothing again.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bad_inputs import CONF, EXT, base_files, write  # noqa: E402

CHAPTERS = {
    "chapters/index.md": "# Tiny\n\n```{toctree}\n:glob:\n\n0*\n```\n",
    "chapters/01-code.md": "# Code\n\n```{region} src/demo/good.cpp#inner\n:caption: Inner\n```\n",
    "chapters/02-output.md": ("# Output\n\n```{region} src/demo/other.cpp#other\n:caption: Other\n```\n\n"
                              "```{demo-output} ch99-tiny\n:lines: 1\n```\n"),
    "chapters/03-diagram.md": "# Diagram\n\n```{trace-diagram} ch99-tiny\n```\n",
    "src/demo/other.cpp": "// region: other\nint other();\n// endregion: other\n",
}


def build(tmp: Path) -> tuple[set[str], str]:
    result = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-b", "html", "-c", str(tmp / "conf"),
                             str(tmp / "chapters"), str(tmp / "out")], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"tiny book failed to build:\n{result.stdout}{result.stderr}")
    return set(re.findall(r"reading sources\.\.\. \[\s*\d+%\] (\S+)", result.stdout)), result.stdout


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="llmfs-incremental-"))
    try:
        write(tmp, {**base_files(), **CHAPTERS})
        (tmp / "conf").mkdir()
        shutil.copytree(EXT, tmp / "ext", ignore=shutil.ignore_patterns("__pycache__"))
        conf = CONF.format(root=str(tmp)).replace(repr(str(EXT)), repr(str(tmp / "ext")))
        (tmp / "conf" / "conf.py").write_text(conf, encoding="utf-8")
        failures = []
        first, _ = build(tmp)
        if first != {"index", "01-code", "02-output", "03-diagram"}:
            failures.append(f"first build read {sorted(first)}")
        steps = [
            ("no change", None, None, set()),
            ("edit src/demo/good.cpp", "src/demo/good.cpp", ("return 2 * x;", "return x + x;"), {"01-code"}),
            ("edit trace.txt", "snippets/ch99-tiny/trace.txt", ("4.000000", "4.500000"), {"03-diagram"}),
            ("edit expected.txt", "snippets/ch99-tiny/expected.txt", ("config=tiny", "config=small"), {"02-output"}),
            ("edit an extension", "ext/llmfs_regions.py", ('"""', '"""An edited extension. ', 1), set(first)),
            ("no change after it", None, None, set()),
        ]
        pages = {p.name: p.stat().st_mtime_ns for p in (tmp / "out").glob("0*.html")}
        for name, rel, change, expected in steps:
            if rel:
                path = tmp / rel
                path.write_text(path.read_text(encoding="utf-8").replace(*change), encoding="utf-8")
            read, _ = build(tmp)
            status = "ok  " if read == expected else "FAIL"
            print(f"{status}  {name}: re-read {sorted(read) or 'nothing'} (expected {sorted(expected) or 'nothing'})")
            if read != expected:
                failures.append(name)
            if name == "edit expected.txt":
                pages = {p.name: p.stat().st_mtime_ns for p in (tmp / "out").glob("0*.html")}
            if name == "edit an extension":
                kept = sorted(n for n, t in pages.items() if (tmp / "out" / n).stat().st_mtime_ns == t)
                print(f"{'FAIL' if kept else 'ok  '}  {name}: {len(pages) - len(kept)} of {len(pages)} "
                      f"chapter pages rewritten")
                if kept or len(pages) != 3:
                    failures.append(f"{name}: pages not rewritten: {kept}")
        page = (tmp / "out" / "01-code.html").read_text(encoding="utf-8")
        if "x + x" not in page.replace('<span class="w"> </span>', " ").replace("</span>", "").replace(
                '<span class="n">', "").replace('<span class="o">', ""):
            failures.append("the edited region is not in 01-code.html")
        if "4.500000" not in (tmp / "out" / "03-diagram.html").read_text(encoding="utf-8"):
            failures.append("the edited trace is not in 03-diagram.html")
        print(f"incremental: {len(failures)} failure(s)")
        for failure in failures:
            print(f"FAIL  {failure}", file=sys.stderr)
        return 1 if failures else 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
