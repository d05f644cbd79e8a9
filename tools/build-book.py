#!/usr/bin/python3
"""Build the HTML book: Doxygen XML of the public headers, then Sphinx with -W.

    tools/build-book.py [--work build/book] [--clean] [--no-print] [--check-tools]

First checks the tools' versions (Doxygen 1.9.4, Sphinx 5.3, MyST 0.18, Breathe 4.34,
furo 2022.12) and stops with exit 3, naming each version found, if one differs.

Writes WORK/html/index.html, and WORK/html/print.html (the whole book on one page, from
a second Sphinx run with the singlehtml builder, only when a page changed). Incremental: Doxygen rewrites every XML file on each run, so
its output goes to WORK/doxygen/ and only files whose content changed are copied into
WORK/xml/, the folder Breathe reads (TOOLCHAIN pitfall 6); Sphinx keeps its environment in
WORK/doctrees/. --clean removes WORK first (what CI and the book test do).
Must run under Debian's /usr/bin/python3 (it has Sphinx, Breathe and MyST).
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# The versions this book is built and checked with (Debian 12). Later Doxygen versions
# change the XML Breathe reads, later Breathe/Sphinx/MyST change what the extension hooks
# into, and furo's files are rewritten by docs/_ext/llmfs_book.py: a different version
# must fail here, naming what was found, rather than render a subtly different book.
TOOLS = {  # name: (required version prefix, how to read the found version)
    "doxygen": ("1.9.4", "doxygen --version"),
    "sphinx": ("5.3.", "sphinx.__version__"),
    "myst_parser": ("0.18.", "myst_parser.__version__"),
    "breathe": ("4.34.", "breathe.__version__"),
    "furo": ("2022.12.", "furo.__version__"),
}
DEBIAN = {"doxygen": "doxygen", "sphinx": "python3-sphinx", "myst_parser": "python3-myst-parser",
          "breathe": "python3-breathe", "furo": "furo"}


def found_version(name: str) -> str | None:
    if name == "doxygen":
        binary = shutil.which("doxygen")
        if not binary:
            return None
        result = subprocess.run([binary, "--version"], capture_output=True, text=True)
        return (result.stdout.strip().split() or ["?"])[0]
    try:
        module = __import__(name)
    except ImportError:
        return None
    return str(getattr(module, "__version__", "?"))


def check_tools() -> list[str]:
    """One message per tool that is missing or not the version this book is checked with."""
    problems = []
    for name, (wanted, source) in TOOLS.items():
        found = found_version(name)
        if found is None:
            problems.append(f"{name} is not installed (Debian package {DEBIAN[name]}, listed in tools/deps.txt)")
        elif not (found.startswith(wanted) if wanted.endswith(".") else found == wanted):
            why = {"doxygen": "other versions write different XML for Breathe to read",
                   "breathe": "other versions read Doxygen's XML differently"}.get(
                name, "other versions change what docs/_ext/llmfs_book.py hooks into")
            problems.append(f"{name} {found} found ({source}), but the book needs {wanted.rstrip('.')}"
                            f"{'.x' if wanted.endswith('.') else ''}: {why}; install Debian 12's {DEBIAN[name]}")
    return problems


def step(message: str) -> None:
    print(f"book: {message}", flush=True)


def run_doxygen(work: Path) -> Path:
    raw = work / "doxygen"
    (raw / "xml").mkdir(parents=True, exist_ok=True)  # Doxygen 1.9.4 does not create nested folders
    env = dict(os.environ, LLMFS_ROOT=str(ROOT), LLMFS_SRC=str(ROOT / "src"), LLMFS_DOXY_OUT=str(raw))
    if not shutil.which("doxygen"):
        raise SystemExit("book: doxygen is not installed: run tools/install-deps.sh (tools/deps.txt lists it)")
    result = subprocess.run(["doxygen", str(ROOT / "docs" / "Doxyfile")], env=env, cwd=ROOT,
                            capture_output=True, text=True)
    output = (result.stdout + result.stderr).strip()
    if result.returncode != 0 or "warning:" in output or "error:" in output:
        print(output, file=sys.stderr)
        raise SystemExit("book: Doxygen reported warnings on the public headers (warnings are errors); fix the comments above")
    return raw / "xml"


def sync_xml(source: Path, target: Path) -> tuple[int, int]:
    """Copy only changed XML files; remove files Doxygen no longer writes. Returns (files
    changed, of which added or removed)."""
    target.mkdir(parents=True, exist_ok=True)
    changed = added_or_removed = 0
    wanted = {p.name for p in source.glob("*.xml")}
    for name in sorted(wanted):
        src, dst = source / name, target / name
        if dst.is_file() and filecmp.cmp(src, dst, shallow=False):
            continue
        added_or_removed += 0 if dst.is_file() else 1
        shutil.copyfile(src, dst)
        changed += 1
    for stale in target.glob("*.xml"):
        if stale.name not in wanted:
            stale.unlink()
            changed += 1
            added_or_removed += 1
    return changed, added_or_removed


def print_outdated(html: Path) -> bool:
    """print.html is rebuilt when Sphinx wrote any page after it (furo rewrites
    _static/pygments.css on every build, so static files do not count)."""
    target = html / "print.html"
    if not target.is_file():
        return True
    made = target.stat().st_mtime
    return any(p.stat().st_mtime > made for p in html.rglob("*.html") if p != target
               and not p.is_relative_to(html / "_code"))


def write_print_page(single: Path, target: Path) -> None:
    """html/print.html: the singlehtml page, next to the HTML book so it shares _static/ and
    _code/; docs/_static/llmfs-print.css hides copy buttons and wraps code on screen too."""
    text = single.read_text(encoding="utf-8")
    marker = "</head>"
    if marker not in text:
        raise SystemExit(f"book: {single}: no </head> to add the print stylesheet to")
    text = text.replace(marker, '<link rel="stylesheet" href="_static/llmfs-print.css">\n' + marker, 1)
    text = text.replace('<body>', '<body class="llmfs-print">', 1)
    # singlehtml links its own sections as index.html#id; on this page they are #id.
    text = text.replace('href="index.html#', 'href="#')
    if not target.is_file() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")


def render(work: Path, args) -> int:
    """The Sphinx runs into a staging copy of the output: the book, then the print view if
    a page changed. Only a build that passes replaces WORK/<builder>, so a failed build
    never leaves a half-updated book behind (a page without its listing, say)."""
    final = work / args.builder
    staging = work / f"{args.builder}.next"
    shutil.rmtree(staging, ignore_errors=True)
    if final.exists():  # copy2 keeps the mtimes Sphinx's incremental build compares
        shutil.copytree(final, staging, copy_function=shutil.copy2, symlinks=True)
    code = render_into(work, staging, args)
    if code != 0:
        shutil.rmtree(staging, ignore_errors=True)
        step(f"{final} is left as it was")
        return code
    old = work / f"{args.builder}.old"
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        final.rename(old)
    staging.rename(final)
    shutil.rmtree(old, ignore_errors=True)
    return 0


def render_into(work: Path, out: Path, args) -> int:
    step("chapters: Sphinx -W --keep-going (MyST, Breathe, local MathJax)")
    env = dict(os.environ, LLMFS_DOXYGEN_XML=str(work / "xml"))
    command = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-j", "1", "-b", args.builder,
               "-c", str(ROOT / "docs"),
               *(["-D", "exclude_patterns=" + ",".join(["README.md", "**/README.md", *args.exclude])] if args.exclude else []), "-d", str(work / "doctrees"), str(ROOT / "chapters"), str(out)]
    result = subprocess.run(command, env=env, cwd=ROOT)
    if result.returncode != 0:
        step(f"FAILED (Sphinx exit {result.returncode}); the messages above name file:line")
        return result.returncode
    if args.builder == "html" and not args.no_print and print_outdated(out):
        step("print view: the whole book on one page (Sphinx singlehtml)")
        single = work / "singlehtml"
        # A copy of the HTML build's environment, already up to date (nothing is read again);
        # sharing the folder itself made each run re-pickle the doctrees and the next HTML
        # build rewrite every page.
        shutil.copytree(work / "doctrees", work / "doctrees-print", dirs_exist_ok=True)
        command = [*command[:command.index("-b") + 1], "singlehtml", *command[command.index("-b") + 2:-1], str(single)]
        command[command.index("-d") + 1] = str(work / "doctrees-print")
        result = subprocess.run(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL)
        if result.returncode != 0:
            step(f"FAILED (Sphinx singlehtml exit {result.returncode})")
            return result.returncode
        write_print_page(single / "index.html", out / "print.html")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", default=str(ROOT / "build" / "book"), help="work folder (html/ goes inside)")
    parser.add_argument("--clean", action="store_true", help="remove the work folder first")
    parser.add_argument("--builder", default="html")
    parser.add_argument("--skip-doxygen", action="store_true",
                        help="reuse WORK/xml from an earlier run (a quick chapters-only rebuild)")
    parser.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                        help="leave chapters matching GLOB out (e.g. while their code is being written)")
    parser.add_argument("--no-print", action="store_true", help="skip the one-page print view (print.html)")
    parser.add_argument("--check-tools", action="store_true",
                        help="only check the versions of Doxygen, Sphinx, MyST, Breathe and furo")
    args = parser.parse_args()
    problems = check_tools()
    for problem in problems:
        print(f"book: {problem}", file=sys.stderr)
    if problems:
        return 3
    if args.check_tools:
        step("tools: " + ", ".join(f"{name} {found_version(name)}" for name in TOOLS))
        return 0
    work = Path(args.work).resolve()
    if args.clean and work.exists():
        step(f"clean: removing {work}")
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)

    start = time.monotonic()
    if args.skip_doxygen:
        step(f"API reference: reusing {work / 'xml'} (--skip-doxygen)")
    else:
        step("API reference: Doxygen XML of src/llmfs/**/*.hpp (warnings are errors)")
        raw = run_doxygen(work)
        changed, moved = sync_xml(raw, work / "xml")
        step(f"API reference: {changed} XML file(s) changed")
        # A compound that appears or disappears (a class moved to another namespace or
        # header) leaves Sphinx's C++ domain with empty symbols from the old pages, which
        # shadow the new ones when an unchanged page is resolved again (the print view
        # resolves every page): read every page again, as a clean build would.
        if moved and (work / "doctrees").exists():
            step(f"API reference: {moved} compound(s) added or removed; reading every page again")
            shutil.rmtree(work / "doctrees")
            shutil.rmtree(work / "doctrees-print", ignore_errors=True)

    code = render(work, args)
    if code != 0:
        return code
    step(f"done in {time.monotonic() - start:.1f} s: open {work / args.builder / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
