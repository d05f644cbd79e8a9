#!/usr/bin/python3
"""Open every rendered page in headless Chromium with no network; check math, diagrams, links.

    browser_check.py HTML_DIR            the browser check (label `browser`)
    browser_check.py --offline HTML_DIR  only the static scan for remote URLs (label `book`)

Browser check, per chapter page: Chromium runs inside `unshare -n` (a network namespace
with no interfaces, so nothing remote could load even if referenced), `--dump-dom` after
`--virtual-time-budget` lets MathJax finish. Then:
  - every formula Sphinx emitted (`class="math"` spans and divs) was typeset by the local
    MathJax: as many MathJax script elements as formulas, as many rendered CommonHTML
    elements, no MathJax error, no raw TeX delimiters left in the text;
  - MathJax was loaded from _static/mathjax (a local path);
  - a page whose HTML has a trace diagram still has it, with its text alternative.
Static scan, every .html and .css file: no remote URL (http:, https:, protocol-relative)
in src, href, srcset, poster, data, action or CSS url(), except <a href> links to the
primary sources listed in ALLOWED_LINK_HOSTS (papers a chapter cites; following them
is the reader's choice and loads nothing into the page).
If Chromium or unshare is missing or fails, the check FAILS: it never skips silently.
"""

from __future__ import annotations

import html.parser
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# Citations only: a chapter's History section may link the paper it cites.
ALLOWED_LINK_HOSTS = {"arxiv.org", "doi.org", "aclanthology.org", "proceedings.neurips.cc", "papers.nips.cc",
                      "openreview.net", "jmlr.org", "www.jmlr.org", "proceedings.mlr.press", "pytorch.org"}
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run", "--virtual-time-budget=10000", "--dump-dom"]
REMOTE = re.compile(r"^\s*(https?:)?//", re.IGNORECASE)
URL_ATTRS = {"src", "href", "srcset", "poster", "data", "action", "xlink:href"}


class Scan(html.parser.HTMLParser):
    """Collects URL attributes, math elements, MathJax output and visible text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.urls: list[tuple[str, str, str, int]] = []  # (tag, attribute, value, line)
        self.math = 0
        self.mathjax_scripts = 0
        self.mathjax_rendered = 0
        self.mathjax_errors = 0
        self.diagrams = 0
        self.diagram_text = 0
        self.text: list[str] = []
        self._skip = 0
        self.scripts_src: list[str] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        for name, value in attrs:
            if name in URL_ATTRS and value:
                self.urls.append((tag, name, value, self.getpos()[0]))
        if "math" in classes and tag in ("span", "div"):
            self.math += 1
        if tag == "script":
            kind = attributes.get("type") or ""
            if kind.startswith("math/tex"):
                self.mathjax_scripts += 1
            if attributes.get("src"):
                self.scripts_src.append(attributes["src"])
        if "MathJax_CHTML" in classes:
            self.mathjax_rendered += 1
        if "MathJax_Error" in classes or "merror" in classes or "mjx-merror" in classes:
            self.mathjax_errors += 1
        if tag == "figure" and "llmfs-diagram" in classes:
            self.diagrams += 1
        if tag == "details" and "llmfs-diagram-text" in classes:
            self.diagram_text += 1
        if tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.text.append(data)


def scan(text: str) -> Scan:
    parser = Scan()
    parser.feed(text)
    parser.close()
    return parser


def host_of(url: str) -> str:
    return re.sub(r"^\s*(https?:)?//", "", url, flags=re.IGNORECASE).split("/")[0].split(":")[0].lower()


def offline_problems(html_dir: Path) -> list[str]:
    problems = []
    for path in sorted(html_dir.rglob("*.html")):
        rel = path.relative_to(html_dir)
        result = scan(path.read_text(encoding="utf-8", errors="replace"))
        for tag, attribute, value, line in result.urls:
            if not REMOTE.match(value):
                continue
            if tag == "a" and attribute == "href" and host_of(value) in ALLOWED_LINK_HOSTS:
                continue
            problems.append(f"{rel}:{line}: <{tag} {attribute}=\"{value}\"> is a remote URL (the book must work offline)")
    for path in sorted(html_dir.rglob("*.css")):
        for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for url in re.findall(r"url\(\s*['\"]?([^'\")]+)", line):
                if REMOTE.match(url):
                    problems.append(f"{path.relative_to(html_dir)}:{number}: url({url}) is remote")
            if re.search(r"@import\s+(url\()?['\"]?(https?:)?//", line):
                problems.append(f"{path.relative_to(html_dir)}:{number}: @import of a remote stylesheet")
    return problems


def chapter_pages(html_dir: Path) -> list[Path]:
    pages = [p for p in sorted(html_dir.glob("*.html")) if p.name not in ("genindex.html", "search.html")]
    pages += sorted((html_dir / "reference").glob("*.html"))
    return pages


def dump_dom(page: Path, chromium: str) -> str:
    with tempfile.TemporaryDirectory(prefix="llmfs-chromium-") as profile:
        command = ["unshare", "-n", chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", page.as_uri()]
        result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if result.returncode != 0 or "<html" not in result.stdout:
        raise RuntimeError(f"chromium failed on {page} (exit {result.returncode}):\n{result.stderr[-2000:]}")
    return result.stdout


def check_page(html_dir: Path, page: Path, chromium: str) -> tuple[list[str], str]:
    problems: list[str] = []
    rel = page.relative_to(html_dir)
    static = scan(page.read_text(encoding="utf-8"))
    try:
        dom = scan(dump_dom(page, chromium))
    except (RuntimeError, subprocess.TimeoutExpired) as error:
        return [f"{rel}: {error}"], ""
    if static.math:
        if not any("_static/mathjax/MathJax.js" in s and not REMOTE.match(s) for s in static.scripts_src):
            problems.append(f"{rel}: MathJax is not loaded from the local _static/mathjax/MathJax.js")
        if dom.mathjax_scripts != static.math:
            problems.append(f"{rel}: {static.math} formulas in the HTML but MathJax typeset "
                            f"{dom.mathjax_scripts} (local MathJax did not run, or skipped some)")
        if dom.mathjax_rendered < static.math:
            problems.append(f"{rel}: only {dom.mathjax_rendered} of {static.math} formulas rendered as CommonHTML")
    if dom.mathjax_errors:
        problems.append(f"{rel}: {dom.mathjax_errors} MathJax error(s) (bad TeX)")
    visible = "".join(dom.text)
    for delimiter in ("\\(", "\\[", "$$", "\\begin{"):
        if delimiter in visible:
            i = visible.index(delimiter)
            problems.append(f"{rel}: raw TeX left in the page: {visible[max(0, i - 40):i + 40]!r}")
            break
    if static.diagrams and (dom.diagrams != static.diagrams or dom.diagram_text != static.diagrams):
        problems.append(f"{rel}: {static.diagrams} diagram(s) in the HTML, {dom.diagrams} in the browser's DOM "
                        f"with {dom.diagram_text} text alternative(s)")
    return problems, f"ok    {rel}: {static.math} formulas typeset, {static.diagrams} diagram(s)"


def browser_problems(html_dir: Path) -> tuple[list[str], list[str]]:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        return ["chromium is not installed: install the 'chromium' package (tools/deps.txt); "
                "the browser check does not skip"], []
    if not shutil.which("unshare"):
        return ["unshare (util-linux) is not available: the browser check needs a network namespace"], []
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        return [f"'unshare -n' failed (needs root or user namespaces): {probe.stderr.strip()}; "
                "the browser check does not skip"], []
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda page: check_page(html_dir, page, chromium), chapter_pages(html_dir)))
    problems = [p for page_problems, _ in results for p in page_problems]
    notes = [note for page_problems, note in results if not page_problems]
    return problems, notes


def main(argv: list[str]) -> int:
    offline_only = "--offline" in argv
    args = [a for a in argv[1:] if a != "--offline"]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    html_dir = Path(args[0]).resolve()
    if not (html_dir / "index.html").is_file():
        print(f"{html_dir}/index.html does not exist: build the book first", file=sys.stderr)
        return 1
    problems = offline_problems(html_dir)
    if not offline_only:
        more, notes = browser_problems(html_dir)
        problems += more
        print("\n".join(notes))
    for problem in problems:
        print(f"FAIL  {problem}")
    what = "offline scan" if offline_only else "browser check"
    print(f"{what}: {len(problems)} problem(s) in {html_dir}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
