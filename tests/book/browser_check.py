#!/usr/bin/python3
"""Open every rendered page in headless Chromium with no network; measure what a reader sees.

    browser_check.py HTML_DIR            the static scans, then the browser check
    browser_check.py --offline HTML_DIR  only the static scans (book.offline)
    browser_check.py --browser HTML_DIR  only the browser check (book.browser; book.offline
                                         makes the static scans of the same folder)
    browser_check.py --self-test HTML_DIR  breaks six chapters of a copy, one way each (a
                                         console error, a remote image, a listing too wide
                                         at 1280 px, a pale caption, a Predict answer left
                                         open, diagram text past its SVG), and two source
                                         views (a console error, a missing stylesheet):
                                         each must be named
    --tabs N                             pages checked side by side (default: one per core, at most 2)
    --pages A,B                          only these pages (paths inside HTML_DIR)

Static scans, every .html and .css file: no remote URL (http:, https:, protocol-relative)
in src, href, srcset, poster, data, action or CSS url(), except <a href> links to the
primary sources in ALLOWED_LINK_HOSTS; and every internal link resolves (the file exists,
and so does the #id in it).

Browser check: one Chromium inside `unshare -n` (a network namespace with no interfaces),
driven over the DevTools protocol (cdp.py, a stdlib client on --remote-debugging-pipe);
measure.js runs in each page (MathJax told to typeset in one pass, MATHJAX_ONE_PASS: the same
formulas, without the pauses and redraws meant for a reader). Each page is a job, run in
whichever of the tabs is free (each tab its own browser context, so no storage is shared),
costliest first; each book page is
loaded once, at 1280 px, and measured there, then in OS dark, at 390 px and as print by
changing the emulation of the loaded page (about:blank comes between pages, so the next
page's size never lays out the previous one). Every page (chapters, reference and API
pages, index, search, general index, print view) and every source view under _code/ must
load with no console error, no uncaught exception and no failed request. A source view is
proved clean from its markup when it is of the one template's shape (static_source_views: only
the template's tags and attributes, no inline script, fetching existing local files whose
stylesheets fetch nothing more, the script pinned by its hash); the largest and smallest of
each group, and every view not of that shape, are loaded in the browser. On every book page:
  - math: every formula typeset by the local MathJax, no MathJax error, no raw TeX;
  - the theme's script ran (no `no-js`), a theme toggle is visible; figures have titles;
  - a page with a Predict section folds the program's answer: each details.llmfs-answer is
    closed on load, its text hidden, its summary "Show the program's answer"; a click on the
    summary opens it and shows the text (the measures below run with the answers open);
    printed, the closed answers show; in print.html every answer is open;
  - diagram text (every <text> of a diagram's SVG) lies inside the SVG's shown box and
    viewBox and inside its clip region, and no drawn line crosses it;
  - at 1280 px: no listing or demo output scrolls sideways, the page does not, the copy
    button covers no text; WCAG contrast >= 4.5:1 for code, output, diagram, caption and
    prose text and the copy icon, light and with the OS dark preference (which must give a
    dark page with light text and no light boxes);
  - at 390 px: the page does not scroll sideways, demo outputs wrap with a continuation
    mark on every wrapped row, caption text is at least 12 px and stays in the column;
  - printed (print media, 700 px of A4): no code cut off, no copy buttons.
Then, on the page already loaded (back at 1280 px, light): the theme toggle cycles to a dark
and a light page (on the last chapter, in a browser context of its own); chapter 30's tall
diagram is compact and opens whole with one click; from chapter 30, a listing's source link
opens a highlighted view with exactly its span marked and a link back to the chapter
(contrast light and dark). Search finds "softmax", "RoPE", "multi-head" offline, with
excerpts and a chapter first (each query in a fresh context: the search page stores its
terms for the next page to highlight). Console errors are collected from a page's load to
its last check.
A table of per-page numbers is printed. If Chromium or unshare is missing or fails, the
check FAILS: it never skips silently.
"""

from __future__ import annotations

import argparse
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

# Citations only: a chapter's History section may link the paper it cites.
ALLOWED_LINK_HOSTS = {"arxiv.org", "doi.org", "aclanthology.org", "proceedings.neurips.cc", "papers.nips.cc",
                      "openreview.net", "jmlr.org", "www.jmlr.org", "proceedings.mlr.press", "pytorch.org"}
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


_scanned: dict[Path, Scan] = {}


def scan_file(path: Path) -> Scan:
    """scan() of a file, parsed once: the remote-URL scan and the link check read the
    same pages (344 of them, two million tags: parsing is most of book.offline's time)."""
    if path not in _scanned:
        _scanned[path] = scan(path.read_text(encoding="utf-8", errors="replace"))
    return _scanned[path]


def host_of(url: str) -> str:
    return re.sub(r"^\s*(https?:)?//", "", url, flags=re.IGNORECASE).split("/")[0].split(":")[0].lower()


def offline_problems(html_dir: Path) -> list[str]:
    problems = []
    for path in sorted(html_dir.rglob("*.html")):
        rel = path.relative_to(html_dir)
        for tag, attribute, value, line in scan_file(path).urls:
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


def link_problems(html_dir: Path) -> tuple[list[str], int]:
    """Every internal link of every page: the file exists and so does the #anchor in it."""
    ids: dict[Path, set[str]] = {}
    pages = sorted(html_dir.rglob("*.html"))

    def ids_of(path: Path) -> set[str]:
        if path not in ids:
            text = path.read_text(encoding="utf-8", errors="replace")
            ids[path] = set(re.findall(r'\bid="([^"]+)"', text)) | set(re.findall(r'\bname="([^"]+)"', text))
        return ids[path]

    problems, count = [], 0
    for page in pages:
        rel = page.relative_to(html_dir)
        for tag, attribute, value, line in scan_file(page).urls:
            if tag != "a" or attribute != "href" or REMOTE.match(value) or value.startswith(("mailto:", "javascript:")):
                continue
            target, _, anchor = value.partition("#")
            path = (page.parent / target).resolve() if target else page
            count += 1
            if "?" in target:
                continue
            if not path.is_file():
                problems.append(f"{rel}:{line}: link to {value}: no such file")
            elif anchor and path.suffix == ".html" and anchor not in ids_of(path) and not (
                    path.parent.name != "" and "_code" in path.parts and re.fullmatch(r"L\d+(-L\d+)?", anchor)):
                problems.append(f"{rel}:{line}: link to {value}: no id '{anchor}' in {path.relative_to(html_dir)}")
    return problems, count


def book_pages(html_dir: Path) -> list[Path]:
    pages = [p for p in sorted(html_dir.glob("*.html"))]
    pages += sorted((html_dir / "reference").rglob("*.html"))
    return pages


def chapter_like(rel: str) -> bool:
    return not rel.startswith(("_code/", "genindex", "search", "reference/api")) and rel != "print.html"


_MEASURE = (Path(__file__).with_name("measure.js")).read_text(encoding="utf-8")


def measure(contrast: bool = False, text: bool = False, skip: tuple[str, ...] = ()) -> str:
    """measure.js with its options; skip: sections whose results this caller does not read
    ("covered", "lines", "captions"; their keys are then absent, so reading one fails)."""
    return _MEASURE.replace("__OPTIONS__", json.dumps({"contrast": contrast, "text": text, "skip": list(skip)}))


MEASURE = measure()
ONLY_LAYOUT = ("covered", "lines", "captions")  # for the measures that read only overflow and buttons
MIN_CONTRAST = 4.5  # WCAG AA for text; applied to the copy icon too
WIDE, PHONE, PAPER = 1280, 390, 700  # PAPER: the text width of A4 with 15 mm margins, in CSS px
MATH_DONE = ("!document.querySelector('span.math, div.math') || (window.MathJax && MathJax.isReady && "
             "MathJax.Hub.queue.pending === 0 && MathJax.Hub.queue.running === 0 && "
             "document.querySelectorAll('script[type^=\"math/tex\"]').length >= "
             "document.querySelectorAll('span.math, div.math').length)")
# MathJax 2 typesets in chunks with pauses between them (EqnChunk 100 formulas, then
# EqnChunkDelay 100 ms; processSectionDelay 50 ms) and hands the page back to the browser
# every processUpdateTime 250 ms to redraw what it has so far, a relayout of the whole page
# each time. A reader sees the formulas appear piecemeal; the check reads the page only when
# every one is typeset (MATH_DONE), so it asks for all of them in one pass: the same output
# (the page's own MathJax.Hub.Config, run after this, changes none of these settings), about
# a second sooner on a long chapter. Set before MathJax.js loads (window.MathJax is its
# author configuration), in every document a tab opens.
MATHJAX_ONE_PASS = ("window.MathJax = {processSectionDelay: 0, processUpdateTime: 1e9, processUpdateDelay: 0,"
                    " CommonHTML: {EqnChunk: 1e9, EqnChunkFactor: 1, EqnChunkDelay: 0}};")
SOURCE_LINK = ("(() => { const links = [...document.querySelectorAll('.llmfs-region a.llmfs-source-link')];"
               " const a = links.find(a => a.href.includes('/_code/src/llmfs/')) || links[0];"
               " return a ? a.href : null; })()")


# A Predict section's folded answers ({answer}): their state, the page's Predict headings.
ANSWERS = ("(() => ({predict: [...document.querySelectorAll('article section > h2')]"
           ".filter(h => h.textContent.trim().startsWith('Predict')).length,"
           " answers: [...document.querySelectorAll('details.llmfs-answer')].map(d => {"
           " const body = d.querySelector(':scope > .llmfs-answer-body'), summary = d.querySelector(':scope > summary');"
           " const shown = (e) => !!e && e.checkVisibility() && e.getBoundingClientRect().height > 0;"
           " return {open: d.open, shown: shown(body), text: body ? body.textContent.trim().length : 0,"
           " summary: shown(summary) ? summary.innerText.trim() : null}; })}))()")
CLICK_ANSWERS = ("(() => { document.querySelectorAll('details.llmfs-answer > summary').forEach(s => s.click()); "
                 "return document.querySelectorAll('details.llmfs-answer').length; })()")
# One round trip: the answers' state on load, then (if there are any) each summary clicked
# and their state after the clicks (opening a <details> by a click is synchronous).
ANSWERS_CLICKED = (f"(() => {{ const before = {ANSWERS};"
                   f" const after = before.answers.length ? ({CLICK_ANSWERS}, {ANSWERS}.answers) : [];"
                   f" return {{...before, after}}; }})()")
CLOSE_ANSWERS = "(() => { document.querySelectorAll('details.llmfs-answer').forEach(d => { d.open = false; }); return 0; })()"
ANSWER_SUMMARY = "Show the program's answer"


def new_tab(browser):
    """A tab in a browser context of its own, MathJax set to typeset in one pass."""
    page = browser.new_page(isolated=True)
    page.send("Page.addScriptToEvaluateOnNewDocument", {"source": MATHJAX_ONE_PASS})
    return page


def check_answers(report, page, rel) -> int:
    """On a loaded chapter page: a page with a Predict section folds its answers in closed
    <details> whose text is hidden until the summary is clicked; a click opens each and shows
    its text. Leaves them open, so that the measures that follow see the outputs inside."""
    state = page.evaluate(ANSWERS_CLICKED)
    answers = state["answers"]
    if state["predict"]:
        report.expect(bool(answers), f"{rel}: a Predict section with no folded answer "
                                     f"(details.llmfs-answer): the program's answer shows under the questions")
    for i, a in enumerate(answers):
        report.expect(not a["open"] and not a["shown"],
                      f"{rel}: answer {i + 1} is open on load: the program's answer shows under the questions ({a})")
        report.expect(a["summary"] == ANSWER_SUMMARY,
                      f"{rel}: answer {i + 1}'s summary reads {a['summary']!r}, not {ANSWER_SUMMARY!r}")
        report.expect(a["text"] > 0, f"{rel}: answer {i + 1} is empty")
    if answers:
        after = state["after"]
        report.expect(all(a["open"] and a["shown"] for a in after),
                      f"{rel}: clicking 'Show the program's answer' did not show every answer ({after})")
    return len(answers)


class Report:
    """What one job (a page and the checks made on it) found; merged in a fixed order."""

    def __init__(self):
        self.problems: list[str] = []
        self.rows: list[str] = []
        self.late_rows: list[str] = []  # the one-off checks' lines, printed after the page table
        self.timings: list[tuple[float, str]] = []

    def fail(self, message: str):
        self.problems.append(message)

    def expect(self, condition: bool, message: str):
        if not condition:
            self.fail(message)


def _contrast_failures(report, rel, mode, measured):
    for group, data in measured["contrast"].items():
        if data["min"] < MIN_CONTRAST:
            report.fail(f"{rel} [{mode}]: {group} text contrast {data['min']}:1 < {MIN_CONTRAST}:1, e.g. "
                        + "; ".join(data["worst"]))


def _check_on_paper(report, page, rel, answers: bool = False):
    """Print media at paper width: no code cut off, no copy buttons. Returns the measure;
    answers: with the Predict answers' state on paper (ANSWERS) in the same round trip, as
    printed["answers"]."""
    page.media("print")
    page.viewport(PAPER, 1000)
    if answers:
        both = page.evaluate(f"[{measure(skip=ONLY_LAYOUT)}, {ANSWERS}.answers]")
        printed = {**both[0], "answers": both[1]}
    else:
        printed = page.evaluate(measure(skip=ONLY_LAYOUT))
    report.expect(not printed["allPreOverflow"], f"{rel} [print]: code cut off on paper: {printed['allPreOverflow'][:3]}")
    report.expect(printed["copyButtons"] == 0, f"{rel} [print]: {printed['copyButtons']} copy buttons print")
    return printed


def _page_problems(report, page, rel):
    """Console errors, exceptions and failed requests since the page was opened."""
    for problem in page.problems:
        report.fail(f"{rel}: {problem}")


def check_print_page(report, page, html_dir, rel):
    """print.html: loads cleanly, every chapter in it, no copy buttons, code not cut off."""
    # The whole book on one page: on a machine shared by parallel builds its load took 26-40 s
    # (11 s when idle), past the 30 s every other page is given.
    page.open((html_dir / rel).as_uri(), WIDE, timeout=120)
    page.wait_for("document.readyState === 'complete'")
    static = scan((html_dir / rel).read_text(encoding="utf-8"))
    report.expect(any("_static/mathjax/MathJax.js" in s and not REMOTE.match(s) for s in static.scripts_src),
                  f"{rel}: MathJax is not loaded from the local _static/mathjax/MathJax.js")
    chapters = [str(p.relative_to(html_dir))[:-5] for p in book_pages(html_dir) if chapter_like(str(p.relative_to(html_dir)))]
    present = page.evaluate("[...document.querySelectorAll('[id^=\"document-\"]')].map(e => e.id.slice(9))")
    missing = [c for c in chapters if c not in present and c != "index"]  # the root is the page itself
    report.expect(not missing, f"{rel}: chapters missing from the print view: {missing}")
    screen = page.evaluate(measure(skip=ONLY_LAYOUT))
    report.expect(screen["copyButtons"] == 0, f"{rel}: {screen['copyButtons']} copy buttons on the print view")
    answers = page.evaluate(ANSWERS)["answers"]
    report.expect(bool(answers), f"{rel}: no folded Predict answers in the print view")
    closed = [i + 1 for i, a in enumerate(answers) if not (a["open"] and a["shown"])]
    report.expect(not closed, f"{rel}: {len(closed)} of {len(answers)} Predict answers are not open in the print view "
                              f"(numbers {closed[:5]})")
    printed = _check_on_paper(report, page, rel)
    _page_problems(report, page, rel)
    report.rows.append(f"{rel}: {len(present)} documents, {len(answers)} answers open, "
                       f"{printed['listings']}+{printed['outputs']} listings+outputs, "
                       f"print: {len(printed['allPreOverflow'])} cut off, {printed['copyButtons']} copy buttons")


def check_book_page(report, page, html_dir, rel, toggle=False, tall=False, source_view=False) -> dict:
    """One load at 1280 px (light), then the same page in OS dark, at 390 px, and as print;
    then, on the pages chosen for them, the one-off checks that start from this page at
    1280 px: the theme toggle, the tall diagram, a listing's source view."""
    page.open((html_dir / rel).as_uri(), WIDE)
    # After the load event readyState is 'complete' already: one wait for both.
    if not page.wait_for(f"({MATH_DONE}) && document.readyState === 'complete'", timeout=60):
        report.fail(f"{rel}: MathJax did not finish within 60 s")
    answers = check_answers(report, page, rel)  # leaves them open: the outputs inside are measured too
    wide = page.evaluate(measure(contrast=True, text=True, skip=("captions",)))
    source = (html_dir / rel).read_text(encoding="utf-8")
    static = scan(source)
    # Math: every formula Sphinx emitted was typeset by the local MathJax.
    if static.math:
        report.expect(any("_static/mathjax/MathJax.js" in s and not REMOTE.match(s) for s in static.scripts_src),
                      f"{rel}: MathJax is not loaded from the local _static/mathjax/MathJax.js")
        report.expect(wide["mathScripts"] == static.math,
                      f"{rel}: {static.math} formulas in the HTML but MathJax typeset {wide['mathScripts']}")
        report.expect(wide["mathRendered"] >= static.math,
                      f"{rel}: only {wide['mathRendered']} of {static.math} formulas rendered as CommonHTML")
    report.expect(not wide["mathErrors"], f"{rel}: {wide['mathErrors']} MathJax error(s) (bad TeX)")
    for delimiter in ("\\(", "\\[", "$$", "\\begin{"):
        if delimiter in wide["text"]:
            i = wide["text"].index(delimiter)
            report.fail(f"{rel}: raw TeX left in the page: {wide['text'][max(0, i - 40):i + 40]!r}")
            break
    if static.diagrams:
        report.expect(len(wide["diagrams"]) == static.diagrams == static.diagram_text,
                      f"{rel}: {static.diagrams} diagram(s) in the HTML, {len(wide['diagrams'])} in the browser, "
                      f"{static.diagram_text} text alternative(s)")
        for d in wide["diagrams"]:
            report.expect(len(d["title"]) >= 10, f"{rel}: a figure without a title ({d})")
    for problem in wide["diagramText"]:
        report.fail(f"{rel} [1280 px]: diagram text out of place: {problem}")
    report.expect(not wide["noJs"], f"{rel}: <html class='no-js'> stayed: the theme's script did not run")
    report.expect(wide["theme"]["toggles"] >= 1, f"{rel}: no visible theme toggle")
    report.expect(not wide["listingOverflow"], f"{rel} [1280 px]: listings scroll sideways: {wide['listingOverflow']}")
    report.expect(not wide["outputOverflow"], f"{rel} [1280 px]: demo outputs scroll sideways: {wide['outputOverflow']}")
    report.expect(wide["pageOverflow"] <= 0, f"{rel} [1280 px]: the page scrolls sideways by {wide['pageOverflow']} px")
    report.expect(not wide["covered"], f"{rel} [1280 px]: the copy button covers text: {wide['covered'][:3]}")
    report.expect(not wide["badCopy"], f"{rel}: copied demo output would contain continuation marks")
    _contrast_failures(report, rel, "light", wide)
    if "src/llmfs/" in source and 'class="llmfs-region' in source and 'llmfs-region' in source:
        shows_library = re.search(r'_code/src/llmfs/[^"]+\.(?:c|h)pp\.html', source)
        if shows_library:
            report.expect(wide["apiLinks"] > 0, f"{rel}: listings of src/llmfs show no identifier linked to the API")

    page.media("", dark=True)
    dark = page.evaluate(measure(contrast=True, skip=ONLY_LAYOUT))
    bg, ink = dark["theme"]["bg"], dark["theme"]["ink"]
    report.expect(bg is not None and sum(bg[:3]) < 3 * 60,
                  f"{rel} [OS dark]: the page background stays light ({bg}): the dark preference is ignored")
    report.expect(ink is not None and sum(ink[:3]) > 3 * 150, f"{rel} [OS dark]: body text is not light ({ink})")
    report.expect(dark["lightBoxCount"] == 0,
                  f"{rel} [OS dark]: {dark['lightBoxCount']} light boxes on the dark page, e.g. {dark['lightBoxes']}")
    _contrast_failures(report, rel, "OS dark", dark)

    page.media("", dark=False)
    page.viewport(PHONE, 800, mobile=True)
    # The answers closed again in the same round trip, after the measure: on paper the print
    # rule opens them.
    phone = page.evaluate(f"(() => {{ const m = {MEASURE}; {CLOSE_ANSWERS}; return m; }})()" if answers else MEASURE)
    report.expect(phone["pageOverflow"] <= 0, f"{rel} [390 px]: the page scrolls sideways by {phone['pageOverflow']} px")
    report.expect(not phone["outputOverflow"], f"{rel} [390 px]: demo outputs scroll sideways: {phone['outputOverflow']}")
    report.expect(not phone["unmarked"], f"{rel} [390 px]: {phone['unmarked']} wrapped output lines without a continuation mark")
    report.expect(not phone["smallCaption"], f"{rel} [390 px]: caption text under 12 px: {phone['smallCaption'][:3]}")
    report.expect(not phone["captionOverflow"], f"{rel} [390 px]: captions run past the column: {phone['captionOverflow'][:3]}")
    report.expect(not phone["covered"], f"{rel} [390 px]: the copy button covers text: {phone['covered'][:3]}")

    printed = _check_on_paper(report, page, rel, answers=bool(answers))
    if answers:
        hidden = [i + 1 for i, a in enumerate(printed["answers"]) if not a["shown"]]
        report.expect(not hidden, f"{rel} [print]: Predict answers {hidden} do not print (closed on paper)")

    c = lambda m, g: m["contrast"].get(g, {}).get("min", "-")
    report.rows.append(
        f"{rel:42} {wide['listings']:>3}+{wide['outputs']:<3} answers {answers} "
        f"1280: {len(wide['listingOverflow'])}/{len(wide['outputOverflow'])} page {max(wide['pageOverflow'], 0)}  "
        f"390: {len(phone['listingOverflow'])}/{len(phone['outputOverflow'])} page {max(phone['pageOverflow'], 0)} "
        f"wrapped {phone['wrapped']}  print: {len(printed['allPreOverflow'])}  "
        f"links {wide['apiLinks']}+{wide['proseApiLinks']}  "
        f"contrast light code {c(wide, 'code')} out {c(wide, 'output')} diagram {c(wide, 'diagram')} "
        f"copy {c(wide, 'copy')} / dark code {c(dark, 'code')} out {c(dark, 'output')} diagram {c(dark, 'diagram')} "
        f"copy {c(dark, 'copy')} prose {c(wide, 'prose')}/{c(dark, 'prose')} caption {c(wide, 'caption')}/{c(dark, 'caption')}")

    if toggle or tall or source_view:
        # Back to the state the page was loaded in (a relayout, cheaper than loading it again:
        # nothing in the page depends on the sizes it was shown at in between).
        page.media("", dark=False)
        page.viewport(WIDE)
        if toggle:
            check_toggle(report, page, rel)
        if tall:
            check_tall_diagram(report, page, rel, wide["diagrams"])
    _page_problems(report, page, rel)  # everything above, from the load on
    if source_view:
        check_source_view(report, page, html_dir, rel)
    return wide


def check_toggle(report, page, rel):
    """On the loaded page at 1280 px: the theme toggle is visible and cycles to a dark and a
    light page."""
    page.evaluate("localStorage.removeItem('theme'), 0")
    seen = []
    for _ in range(3):
        clicked = page.evaluate("(() => { const b = [...document.querySelectorAll('.theme-toggle')]"
                                ".find(b => b.getClientRects().length && b.offsetWidth > 0); if (!b) return false;"
                                " b.click(); return true; })()")
        if not clicked:
            report.fail(f"{rel}: no visible theme toggle to click")
            return
        state = page.evaluate("[document.body.dataset.theme, getComputedStyle(document.body).backgroundColor]")
        seen.append(state)
    themes = {t for t, _ in seen}
    dark_bg = [bg for t, bg in seen if t == "dark"]
    light_bg = [bg for t, bg in seen if t == "light"]
    report.expect({"dark", "light"} <= themes, f"{rel}: the toggle did not reach both dark and light: {seen}")
    report.expect(all(bg != "rgb(255, 255, 255)" for bg in dark_bg) and dark_bg,
                  f"{rel}: the toggle's dark theme keeps a white page: {seen}")
    report.expect(all(bg == "rgb(255, 255, 255)" for bg in light_bg) and light_bg,
                  f"{rel}: the toggle's light theme is not white: {seen}")
    page.evaluate("localStorage.removeItem('theme'), 0")
    report.late_rows.append(f"theme toggle on {rel}: {' -> '.join(t for t, _ in seen)}")


def check_tall_diagram(report, page, rel, before):
    """On the loaded page at 1280 px, before: its diagrams as measured once MathJax was done."""
    tall = [d for d in before if d["full"] > 1500]
    report.expect(bool(tall), f"{rel}: expected a diagram taller than 1500 px to test ({before})")
    for d in tall:
        report.expect(d["height"] <= 600 and d["button"],
                      f"{rel}: a {d['full']} px diagram is not compact on the page ({d})")
    page.evaluate("document.querySelector('button.llmfs-expand').click(), 0")
    after = page.evaluate(measure(skip=ONLY_LAYOUT))["diagrams"]
    opened = [d for d in after if d["full"] > 1500]
    report.expect(all(d["height"] >= d["full"] - 2 for d in opened),
                  f"{rel}: 'Show the whole diagram' did not show it whole ({opened})")
    report.late_rows.append(f"tall diagram on {rel}: {[(d['full'], d['height']) for d in tall]} px (whole, compact); "
                            f"opened: {[d['height'] for d in opened]} px")


def check_source_view(report, page, html_dir, rel):
    """From the loaded page: a listing's source link opens a highlighted view, the whole span
    marked, with a link back to the chapter."""
    href = page.evaluate(SOURCE_LINK)
    if not href:
        report.fail(f"{rel}: no listing source link")
        return
    m = re.search(r"#L(\d+)-L(\d+)$", href)
    report.expect(bool(m), f"{rel}: the source link {href} does not name a span #La-Lb")
    page.open(href, WIDE)
    for problem in page.problems:
        report.fail(f"{href}: {problem}")
    data = page.evaluate("(() => ({marked: [...document.querySelectorAll('tr.llmfs-marked')].map(r => r.id),"
                         " tokens: document.querySelectorAll('td.llmfs-src span[class]').length,"
                         " api: document.querySelectorAll('td.llmfs-src a.llmfs-api').length,"
                         " back: [...document.querySelectorAll('nav a')].map(a => a.href),"
                         " top: document.getElementById(location.hash.slice(1).split('-')[0])?.getBoundingClientRect().top,"
                         " bottom: window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2,"
                         " height: window.innerHeight}))()")
    if m:
        first, last = int(m[1]), int(m[2])
        want = [f"L{n}" for n in range(first, last + 1)]
        report.expect(data["marked"] == want, f"{href}: marked {len(data['marked'])} rows, want lines {first}-{last}")
        # The first marked line is at the top of the window, or, in a file too short to
        # scroll that far, the page is scrolled to its end with the line in view.
        top = data["top"]
        in_view = top is not None and (abs(top) < 5 or (data["bottom"] and 0 <= top < data["height"]))
        report.expect(in_view, f"{href}: line {first} is not scrolled into view (top {top})")
    report.expect(data["tokens"] > 20, f"{href}: the source view is not highlighted ({data['tokens']} tokens)")
    light = page.evaluate(measure(contrast=True, skip=ONLY_LAYOUT))
    page.media("", dark=True)
    dark = page.evaluate(measure(contrast=True, skip=ONLY_LAYOUT))
    short = href.split("/_code/")[1]
    _contrast_failures(report, short, "light", light)
    _contrast_failures(report, short, "OS dark", dark)
    report.expect(dark["theme"]["bg"] is not None and sum(dark["theme"]["bg"][:3]) < 3 * 60,
                  f"{short} [OS dark]: the source view stays light")
    chapter = (html_dir / rel).as_uri()
    report.expect(any(b.startswith(chapter + "#") for b in data["back"]),
                  f"{href}: no link back to {rel} (links: {data['back'][:3]})")
    report.late_rows.append(f"source view {short}: {len(data['marked'])} rows marked, {data['tokens']} highlighted "
                            f"tokens, {data['api']} API links, {len(data['back'])} back links; contrast code "
                            f"{light['contrast'].get('code', {}).get('min')} light / {dark['contrast'].get('code', {}).get('min')} dark")


def check_code_page(report, page, html_dir, rel):
    """A source view under _code/ loaded in the browser: no console error, no failed request."""
    page.open((html_dir / rel).as_uri(), WIDE)
    _page_problems(report, page, rel)


# ---- Source views (_code/): what loading one can report, proved from its markup.
# A load reports a console error, an uncaught exception or a failed request only through
# what the page makes the browser fetch or run: the parser itself logs nothing. A source view
# (docs/_ext/llmfs_book.py, _code_page) is static markup from one template: a table of
# highlighted lines and links, two stylesheets and one script. So a page is checked without
# the browser when its markup proves that its load does what a loaded sibling's did:
#   - every "<" in it opens a tag of the template's shape (SOURCE_VIEW_TAGS: those tags, those
#     attributes, each value in double quotes; no <style>, no style= or on...= attribute, no
#     <img>, <iframe>, <base>, <meta http-equiv>, no inline script), so nothing else is fetched
#     or run, and it is parsed into the same kinds of element;
#   - what it fetches (<link rel="stylesheet" href>, <script src>) is local and exists (the
#     browser's request for a missing file fails: reported here with the same words), and
#     the stylesheets have no url() or @import (which would fetch by what a page contains);
#   - its <head> is the sibling's (the same tags, attributes and values; only the title's
#     text differs), so the same three files are fetched by the same relative addresses;
#   - the script is the one llmfs-code.js whose text SOURCE_VIEW_SCRIPT_SHA256 pins: on load
#     it reads location.hash (none on these loads: it then only unmarks the
#     tr.llmfs-marked rows, which the template never writes) and adds a hashchange listener,
#     whatever the table holds. If that file changes, the argument is not remade silently:
#     every source view is loaded in the browser again (and a row says why) until the
#     script has been re-read and the pin moved.
# Pages grouped by <head> (one group per folder depth, the relative addresses differ): the
# largest and the smallest page of each group are loaded in the browser and must pass, and so
# is every page that is not of the template's shape. A page listed in neither is reported
# only through the static proof, with the browser's wording ("failed request: ...").
SOURCE_VIEW_TAGS = {  # tag: the attributes _code_page and highlight_lines write on it
    "html": {"lang"}, "head": set(), "meta": {"charset", "name", "content"}, "title": set(),
    "link": {"rel", "href"}, "body": set(), "header": set(), "p": set(), "h1": set(),
    "nav": {"aria-label"}, "ul": set(), "li": set(), "a": {"href", "class", "title"},
    "main": {"class"}, "table": {"class"}, "tbody": set(), "tr": {"id"}, "td": {"class"},
    "span": {"class"}, "script": {"src"},
}
SOURCE_VIEW_SCRIPT = "_static/llmfs-code.js"
SOURCE_VIEW_SCRIPT_SHA256 = "bd60d8e1d22a824c71fb6a9e82c03ad85111ebd855f9e4cef24545c12a076f6e"
_TOKEN = re.compile(r"<[^<>]*>")  # what a "<" opens, up to its ">"
_TAG = re.compile(r'<(?:!DOCTYPE html|/([a-z][a-z0-9]*)|([a-z][a-z0-9]*)((?:\s+[a-z][a-z-]*="[^"<>]*")*))>')
_ATTR = re.compile(r'\s+([a-z][a-z-]*)="([^"<>]*)"')
_tag_verdicts: dict[str, str | tuple[str, dict[str, str]] | None] = {}


def _template_tag(token: str) -> str | tuple[str, dict[str, str]] | None:
    """One "<...>" of a source view: None for an end tag or the doctype, (tag, attributes) for
    a start tag of the template's shape, or why it is not (memoised: most repeat)."""
    if token in _tag_verdicts:
        return _tag_verdicts[token]
    import html as html_module
    m = _TAG.fullmatch(token)
    verdict: str | tuple[str, dict[str, str]] | None = None
    if not m:
        verdict = f"markup outside the template: {token[:60]!r}"
    elif m.group(2):
        tag = m.group(2)
        attrs = [(name, html_module.unescape(value)) for name, value in _ATTR.findall(m.group(3) or "")]
        names = [name for name, _ in attrs]
        values = dict(attrs)
        if tag not in SOURCE_VIEW_TAGS:
            verdict = f"<{tag}> is not a tag of the template"
        elif len(set(names)) != len(names) or not set(names) <= SOURCE_VIEW_TAGS[tag]:
            verdict = f"<{tag}> with attributes {names}"
        elif tag == "meta" and values.get("name", "viewport") != "viewport":
            verdict = f"<meta name={values['name']!r}>"
        elif tag == "link" and (values.get("rel") != "stylesheet" or not values.get("href")):
            verdict = f"a <link> that is not rel=\"stylesheet\" with an href: {values}"
        elif tag == "script" and not values.get("src"):
            verdict = "a <script> with code in the page"
        else:
            verdict = (tag, values)
    _tag_verdicts[token] = verdict
    return verdict


def source_view_markup(text: str) -> tuple[tuple, list[tuple[str, str]]] | str:
    """The <head> of a source view (its tags, the title's text left out) and what it fetches
    [(tag, address)] in document order; or, for markup the template does not write, why not.
    Every "<" must open a tag of the template's shape ("<" in the text is written &lt;)."""
    tokens = _TOKEN.findall(text)
    if len(tokens) != text.count("<"):
        return "a '<' that opens no tag (text the template would have escaped)"
    fetches: list[tuple[str, str]] = []
    for token in tokens:
        verdict = _template_tag(token)
        if isinstance(verdict, str):
            return verdict
        if verdict and verdict[0] in ("link", "script"):
            fetches.append((verdict[0], verdict[1]["src" if verdict[0] == "script" else "href"]))
    # A script's text is code even when it has a src: each <script> must end at once.
    if text.count("<script") != len(re.findall(r"<script\b[^<>]*></script>", text)):
        return "a <script> with code in the page"
    end = text.find("</head>")
    if end < 0:
        return "no </head>"
    return tuple(_TOKEN.findall(text, 0, end)), fetches


def static_source_views(html_dir: Path, rels: list[str]) -> tuple[list[str], list[str], list[str]]:
    """The source views rels checked from their markup (the comment above): (problems, the
    pages to load in the browser, rows for the table)."""
    import hashlib
    problems: list[str] = []
    load: list[str] = []
    groups: dict[tuple, list[tuple[int, str]]] = {}
    script = html_dir / SOURCE_VIEW_SCRIPT
    pinned = script.is_file() and hashlib.sha256(script.read_bytes()).hexdigest() == SOURCE_VIEW_SCRIPT_SHA256
    sheets: dict[Path, bool] = {}  # stylesheet: has no url() or @import

    def sheet_ok(path: Path) -> bool:
        if path not in sheets:
            css = path.read_text(encoding="utf-8", errors="replace")
            sheets[path] = "url(" not in css and "@import" not in css
        return sheets[path]

    odd: list[str] = []
    for rel in rels:
        path = html_dir / rel
        text = path.read_text(encoding="utf-8", errors="replace")
        shape = source_view_markup(text)
        if isinstance(shape, str):
            odd.append(f"{rel} ({shape})")
            load.append(rel)
            continue
        head, fetches = shape
        resolved, missing = [], False
        for tag, address in fetches:
            if REMOTE.match(address) or re.match(r"^[a-z][a-z0-9+.-]*:", address, re.IGNORECASE):
                problems.append(f"{rel}: failed request: <{tag}> {address} is not a file of the book (no network)")
                missing = True
                continue
            target = (path.parent / address.split("#")[0].split("?")[0]).resolve()
            if not target.is_file() or not target.is_relative_to(html_dir):
                problems.append(f"{rel}: failed request: <{tag}> {address}: no file {target}")
                missing = True
                continue
            resolved.append(target)
        if missing:
            continue  # reported as the browser would: a failed request
        if not all(sheet_ok(t) for t, (tag, _) in zip(resolved, fetches) if tag == "link") \
                or [t for t, (tag, _) in zip(resolved, fetches) if tag == "script"] != [script.resolve()] or not pinned:
            load.append(rel)
            continue
        groups.setdefault((head, tuple(resolved)), []).append((path.stat().st_size, rel))
    sample = sorted({rel for members in groups.values() for rel in (min(members)[1], max(members)[1])})
    load += sample
    proved = sum(len(m) for m in groups.values()) - len(sample)
    rows = [f"source views: {proved} proved from their markup (the template's tags only, fetching only existing "
            f"files with no url() or @import), {len(load)} loaded in the browser: the largest and smallest of each "
            f"of {len(groups)} <head> group(s) ({len(sample)}), {len(odd)} not of the template's shape"
            + (f" ({'; '.join(odd[:3])})" if odd else "")]
    if not pinned:
        rows.append(f"source views: {SOURCE_VIEW_SCRIPT} is not the script the static proof was made for "
                    f"(SOURCE_VIEW_SCRIPT_SHA256): every source view is loaded in the browser")
    return problems, sorted(load), rows


SEARCH_TERMS = ("softmax", "RoPE", "multi-head")


def check_search(report, page, html_dir, term):
    """Offline search for one term: results with excerpts, a chapter ranked above API entries."""
    page.open((html_dir / "search.html").as_uri() + f"?q={term}", WIDE)
    done = page.wait_for("document.querySelector('#search-results > p')?.textContent.includes('found')", timeout=30)
    report.expect(done, f"search '{term}': never finished")
    data = page.evaluate("(() => { const items = [...document.querySelectorAll('#search-results ul.search > li')];"
                         " return {n: items.length, first: items.slice(0, 5).map(li => li.querySelector('a').getAttribute('href')),"
                         " excerpts: document.querySelectorAll('#search-results p.context').length}; })()")
    page.wait_for("document.querySelectorAll('#search-results p.context').length > 0", timeout=5)
    excerpts = page.evaluate("document.querySelectorAll('#search-results p.context').length")
    for problem in page.problems:
        report.fail(f"search.html?q={term}: {problem}")
    report.expect(data["n"] > 0, f"search '{term}': no results")
    report.expect(excerpts > 0, f"search '{term}': results without text excerpts")
    first = data["first"][0] if data["first"] else ""
    report.expect(bool(first) and not first.startswith("reference/api"),
                  f"search '{term}': an API entry ranks first ({data['first']}), not a chapter")
    report.late_rows.append(f"search '{term}': {data['n']} results, {excerpts} excerpts, top: {data['first'][:3]}")


class Job:
    """One page's checks, run in whichever tab is free; its Report is merged by `order`.
    fresh: the job leaves state in the browser's storage (the search page stores its terms
    for the next page to highlight, the theme toggle its choice), so it runs in a tab and
    browser context of its own, discarded after it."""

    def __init__(self, order: int, name: str, cost: float, run, fresh: bool = False):
        self.order, self.name, self.cost, self.run, self.fresh = order, name, cost, run, fresh
        self.report = Report()
        self.done = False


def source_views(html_dir: Path) -> list[str]:
    return sorted(str(p.relative_to(html_dir)) for p in (html_dir / "_code").rglob("*.html"))


def jobs_for(html_dir: Path, codes: list[str]) -> list[Job]:
    """Every check as a job: each book page (with the one-off checks on their pages), each
    source view of codes (those static_source_views leaves to the browser), each search.
    cost: the bytes of HTML, so that the longest start first."""
    pages = [str(p.relative_to(html_dir)) for p in book_pages(html_dir)]
    chapters = [r for r in pages if chapter_like(r) and r != "index.html" and not r.startswith("reference/")]
    toggle_on = chapters[-1] if chapters else None
    tall_on = next((r for r in chapters if r.startswith("30-")), None)
    source_from = tall_on or toggle_on
    jobs = []
    for rel in pages:
        size = (html_dir / rel).stat().st_size
        if rel == "print.html":
            run = lambda report, page, rel=rel: check_print_page(report, page, html_dir, rel)
            size *= 4  # laid out at two widths with MathJax running: by far the longest
        else:
            run = lambda report, page, rel=rel: check_book_page(
                report, page, html_dir, rel, toggle=rel == toggle_on, tall=rel == tall_on,
                source_view=rel == source_from)
        jobs.append(Job(len(jobs), rel, size, run, fresh=rel == toggle_on))
    for rel in codes:  # a source view: no console error, no failed request
        run = lambda report, page, rel=rel: check_code_page(report, page, html_dir, rel)
        jobs.append(Job(len(jobs), rel, (html_dir / rel).stat().st_size, run))
    for term in SEARCH_TERMS:
        run = lambda report, page, term=term: check_search(report, page, html_dir, term)
        jobs.append(Job(len(jobs), f"search.html?q={term}", 1e6, run, fresh=True))
    return jobs


def run_jobs(browser, jobs: list[Job], tabs: int) -> None:
    """Each tab (its own browser context: the toggle's localStorage is not shared) takes the
    costliest job left. A job that fails in the DevTools layer is reported and its tab
    replaced; a job no tab could run is reported too."""
    from cdp import CdpError
    waiting = sorted(jobs, key=lambda j: -j.cost)
    lock = threading.Lock()

    def close(tab):
        try:
            tab.close()
        except CdpError:
            pass

    def work():
        page = None
        while True:
            with lock:
                if not waiting:
                    break
                job = waiting.pop(0)
            started = time.monotonic()
            tab = None
            try:
                if job.fresh:
                    tab = new_tab(browser)
                else:
                    page = page or new_tab(browser)
                job.run(job.report, tab or page)
            except CdpError as error:
                job.report.fail(f"DevTools ({job.name}): {error}")
                if page and not tab:
                    close(page)
                    page = None
            except Exception as error:  # a bug in a check must fail the check, not end a tab
                job.report.fail(f"{job.name}: the check raised {type(error).__name__}: {error}")
            if tab:
                close(tab)
            job.report.timings.append((time.monotonic() - started, job.name))
            job.done = True

    threads = [threading.Thread(target=work, daemon=True) for _ in range(max(1, tabs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for job in jobs:
        if not job.done:
            job.report.fail(f"{job.name}: not checked (no tab left to run it)")


def default_tabs() -> int:
    """One tab per core (two on CI): the renderers of two tabs run side by side."""
    return max(1, min(2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1))


def browser_problems(html_dir: Path, tabs: int | None = None, only: list[str] | None = None) -> tuple[list[str], list[str]]:
    """The browser check; only: these jobs (page paths, `search.html?q=TERM`), not all."""
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
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from cdp import Browser, CdpError

    codes = source_views(html_dir)
    if only is not None:
        codes = [rel for rel in codes if rel in only]
    static, loaded, code_rows = static_source_views(html_dir, codes)
    jobs = jobs_for(html_dir, loaded)
    if only is not None:
        unknown = set(only) - {j.name for j in jobs} - set(codes)
        if unknown:
            return [f"--pages: no such page or job: {sorted(unknown)}"], []
        jobs = [j for j in jobs if j.name in only]
    tabs = tabs or default_tabs()
    started = time.monotonic()
    try:
        with Browser(chromium) as browser:
            run_jobs(browser, jobs, tabs)
    except CdpError as error:
        return [f"DevTools: {error}"], []
    wall = time.monotonic() - started
    problems = static + [p for job in jobs for p in job.report.problems]
    pages = [j for j in jobs if not j.name.startswith(("_code/", "search.html?"))]
    opened = [j for j in jobs if j.name.startswith("_code/")]
    rows = [f"{len(pages)} book pages and {len(opened)} source views opened offline (unshare -n), "
            f"{tabs} tab(s) side by side, {wall:.1f} s", *code_rows]
    rows += [r for job in pages for r in job.report.rows]
    rows += [r for job in jobs for r in job.report.late_rows]
    slow = sorted((t for job in pages for t in job.report.timings), reverse=True)[:4]
    rows.append("slowest pages: " + ", ".join(f"{rel} {t:.1f} s" for t, rel in slow))
    return problems, rows


SELF_TEST_MARK = "llmfs-self-test"


def self_test(html_dir: Path, tabs: int | None) -> int:
    """Break six chapters and two source views of a copy of the book, one way each, and check
    that the browser check names each page and each fault, and passes an unbroken page and
    unbroken source views beside them (one of which it proves from its markup)."""
    remote = f"https://example.invalid/{SELF_TEST_MARK}.png"
    # A listing that no longer wraps (its long lines wrap at 1280 px by design): its first
    # line made 240 characters long and its <pre> kept from wrapping.
    listing = '<div class="highlight"><pre><span></span><span class="llmfs-line">'
    unwrapped = ('<div class="highlight"><pre style="white-space: pre; overflow-wrap: normal"><span></span>'
                 '<span class="llmfs-line">' + "x" * 240)
    # A caption that starts with its own text (a demo output's caption is only a link, whose
    # colours are its own): the pale colour must reach the caption's words.
    caption_re = re.compile(r'<div class="code-block-caption"><span class="caption-text">(?=[^<])')
    # The smallest chapters (the quickest to check), each one with what its fault needs.
    chapters = sorted(html_dir.glob("[0-9][0-9]-*.html"), key=lambda p: p.stat().st_size)
    chosen: list[str] = []
    def has(page: Path, needs) -> bool:
        text = page.read_text(encoding="utf-8")
        return bool(needs.search(text)) if isinstance(needs, re.Pattern) else needs in text

    # A Predict answer left open (the answer in plain view under the questions), and a label
    # drawn past the right edge of a diagram's SVG.
    folded = '<details class="llmfs-answer">'
    svg_re = re.compile(r'(<div class="llmfs-diagram-body">(?:(?!</figure>).)*?<svg\b[^>]*\bviewBox="[^"]*"[^>]*>)', re.S)
    overflow_text = rf'\1<text x="99999" y="8" font-size="9" fill="currentColor">{SELF_TEST_MARK} label</text>'
    for needs in ("</body>", "</body>", listing, caption_re, folded, svg_re):
        page = next((p.name for p in chapters if p.name not in chosen and has(p, needs)), None)
        if page is None:
            print(f"self-test: no chapter left in {html_dir} with {needs!r} to break", file=sys.stderr)
            return 1
        chosen.append(page)
    a, b, c, d, e, f = chosen
    # Two source views of the folder with the most, broken: one given an inline script with a
    # console error (no longer of the template's shape: loaded in the browser), one whose
    # stylesheet is missing (found from its markup); three unbroken ones beside them, of which
    # the middle one is proved from its markup, not loaded.
    by_folder: dict[Path, list[Path]] = {}
    for view in (html_dir / "_code").rglob("*.html"):
        by_folder.setdefault(view.parent, []).append(view)
    folder = max(by_folder.values(), key=len) if by_folder else []
    if len(folder) < 5:
        print(f"self-test: no folder of source views in {html_dir}/_code with five views", file=sys.stderr)
        return 1
    g, h, *clean_views = [str(v.relative_to(html_dir)) for v in sorted(folder, key=lambda v: (v.stat().st_size, v))[:5]]
    missing_css = f"{SELF_TEST_MARK}-missing.css"
    faults = {  # page: (what is done to it, (old, new) on its HTML, the messages that must name it)
        a: ("a console error", ("</body>", f"<script>console.error('{SELF_TEST_MARK}: deliberate')</script></body>"),
            [f"{a}: console.error: {SELF_TEST_MARK}: deliberate"]),
        b: ("an image from a remote URL", ("</body>", f'<img src="{remote}" alt=""></body>'),
            [f"{b}: failed request: ", remote]),
        c: ("a listing too wide for 1280 px", (listing, unwrapped), [f"{c} [1280 px]: listings scroll sideways"]),
        d: ("a pale caption (#bbb on white)", (caption_re, '<div class="code-block-caption"><span class="caption-text" style="color: #bbb">'),
            [f"{d} [light]: caption text contrast"]),
        e: ("a Predict answer left open", (folded, '<details class="llmfs-answer" open>'),
            [f"{e}: answer 1 is open on load"]),
        f: ("diagram text past its SVG's right edge", (svg_re, overflow_text),
            [f"{f} [1280 px]: diagram text out of place: ", f'"{SELF_TEST_MARK} label" runs']),
        g: ("a source view with a console error", ("</body>", f"<script>console.error('{SELF_TEST_MARK}: view')</script></body>"),
            [f"{g}: console.error: {SELF_TEST_MARK}: view"]),
        h: ("a source view whose stylesheet is missing", ('/llmfs-code.css"', f'/{missing_css}"'),
            [f"{h}: failed request: ", missing_css]),
    }
    failures = []
    with tempfile.TemporaryDirectory(prefix="llmfs-browser-self-test-") as tmp:
        copy = Path(tmp) / "html"
        shutil.copytree(html_dir, copy)
        for page, (what, (old, new), _) in faults.items():
            text = (copy / page).read_text(encoding="utf-8")
            if isinstance(old, re.Pattern):
                text, count = old.subn(new, text, count=1)
            else:
                count = text.count(old)
                text = text.replace(old, new, 1)
            if count == 0:
                failures.append(f"{page}: cannot add {what}: no {old!r} in it")
            (copy / page).write_text(text, encoding="utf-8")
        problems, rows = browser_problems(copy, tabs, only=[*faults, "index.html", *clean_views])
        static = offline_problems(copy)
    for page, (what, _, wanted) in faults.items():
        found = [p for p in problems if p.startswith(page)]
        missing = [w for w in wanted if not any(w in p for p in found)]
        print(f"self-test: {page} with {what}: " + ("; ".join(found) if found else "no problem found"))
        if missing:
            failures.append(f"{page} with {what}: the browser check did not report {missing}")
    clean = [p for p in problems if not p.startswith(tuple(faults))]
    print(f"self-test: index.html and {len(clean_views)} source views unbroken: {len(clean)} problem(s)")
    proved = [int(m[1]) for r in rows for m in [re.match(r"source views: (\d+) proved", r)] if m]
    print(f"self-test: {proved[0] if proved else 0} unbroken source view(s) proved from their markup, not loaded")
    if not proved or proved[0] < 1:
        failures.append(f"no unbroken source view among {clean_views} was proved from its markup: {rows}")
    failures += [f"unbroken page failed: {p}" for p in clean]
    static_hit = [p for p in static if p.startswith(b) and remote in p]
    print(f"self-test: static scan of {b}: " + ("; ".join(static_hit) or "nothing"))
    if not static_hit:
        failures.append(f"the static scan did not report {remote} in {b}")
    for failure in failures:
        print(f"FAIL  {failure}")
    print(f"browser check self-test: {len(failures)} problem(s)")
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("html_dir", type=Path)
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--offline", action="store_true", help="only the static scans")
    only.add_argument("--browser", action="store_true", help="only the browser check")
    only.add_argument("--self-test", action="store_true",
                      help="break six chapters and two source views of a copy of HTML_DIR; the check must name each")
    parser.add_argument("--tabs", type=int, default=None, help="pages checked side by side (default: one per core, at most 2)")
    parser.add_argument("--pages", help="only these pages (comma-separated paths inside HTML_DIR, or search.html?q=TERM)")
    args = parser.parse_args(argv[1:])
    html_dir = args.html_dir.resolve()
    if not (html_dir / "index.html").is_file():
        print(f"{html_dir}/index.html does not exist: build the book first", file=sys.stderr)
        return 1
    if args.self_test:
        return self_test(html_dir, args.tabs)
    problems = []
    if not args.browser:
        problems += offline_problems(html_dir)
        broken, links = link_problems(html_dir)
        problems += broken
        print(f"links: {links} internal links checked, {len(broken)} broken")
    if not args.offline:
        more, notes = browser_problems(html_dir, args.tabs, args.pages.split(",") if args.pages else None)
        problems += more
        print("\n".join(notes))
    for problem in problems:
        print(f"FAIL  {problem}")
    what = "offline scan" if args.offline else "browser check"
    print(f"{what}: {len(problems)} problem(s) in {html_dir}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
