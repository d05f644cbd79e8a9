"""The book's Sphinx extension: real source, checked output and trace diagrams in chapters.

Directives (MyST fences in chapters/*.md):

  ```{region} src/llmfs/attention/multi_head.cpp#head-layout
  :caption: Split and merge the head axis
  ```
      One region of a source file (path relative to the repository root), nested marker
      lines removed, dedented; the caption names the path, region and line span and links
      to a copy of the file in the HTML output (_code/PATH.html#Lstart).

  ```{demo-output} ch30-multi-head-attention
  :keys: config,input          (report lines whose key matches; shell-style globs allowed)
  :lines: 1-5,8                (or: 1-based line ranges; not both)
  :caption: optional caption
  ```
      The demo's golden stdout snippets/NAME/expected.txt, whole or a selection.

  ```{trace-diagram} ch30-multi-head-attention
  :caption: optional caption
  ```
      Parses snippets/NAME/trace.txt (trace_records.py) and calls render(records) from
      docs/_ext/diagrams/chNN.py -> (html, text_alternative); emits the HTML in a figure
      and the text alternative in a "Read this diagram as text" <details> block.

  :::{answer}
  ```{demo-output} ch16-model-autodiff-ops
  :keys: fixture_*
  ```

  Prose that explains the answers.
  :::
      A Predict section's answers, folded: the body (Markdown, any directives) is rendered
      inside <details class="llmfs-answer"><summary>Show the program's answer</summary>, closed
      on the chapter's page so the questions above it can be answered first, and open in the
      print view (the singlehtml builder; a @media print rule opens it on paper as well).
      Every chapter whose "## Predict" section shows the program's output folds it
      (tests/book/book_checks.py predict).

  ```{course}
  # Part V · Attention
  27 Self-attention
  ```
      The whole course (llmfs_course.py): written chapters as links, the others named and
      marked "to come"; one hidden toctree per part for navigation; the sidebar is
      rewritten to list the whole course the same way. Chapter mentions in prose link to
      written chapters; a mention of an unwritten one must say "to come" or the build fails.

  ```{api-reference}
  ```
      The table of contents of the API pages that llmfs_api.py generates from the Doxygen
      XML, one per folder of src/llmfs/ (chapters/reference/api/*.md, git-ignored).

For HTML builders, listings are written as linked HTML (llmfs_links.py: names link to the
C++ domain's entries), demo outputs as key=value fields that wrap with a continuation mark,
and inline code that names an API entity becomes a link. Each shown file gets a source view
_code/PATH.html (highlighted, linked, the span in the address marked, links back to the
chapters). furo's unbundled Debian assets are repaired for file:// (furo_assets()).

An edit to the extensions themselves (docs/_ext/*.py) re-renders every page: their content's
digest is the config value llmfs_extensions_digest, registered as "env", so Sphinx finds its
pickled environment's config changed and reads and writes every page again (extensions_digest()).
The diagram renderers (docs/_ext/diagrams/) are left out: each chapter that draws one notes
its renderer as a dependency, so editing one re-renders only its chapter.

Every problem (missing file, missing/duplicated/unbalanced/malformed region, bad argument,
empty selection, malformed trace record, failing renderer) is reported as an ERROR at the
chapter's file:line, with the file:line of the cause in the message, and fails the build
(even without -W): a chapter is never rendered with an empty or broken block silently.
"""

from __future__ import annotations

import fnmatch
import hashlib
import html
import importlib.util
import os
import posixpath
import re
import shutil
import sys
import traceback
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.errors import ExtensionError
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

sys.path.insert(0, str(Path(__file__).resolve().parent))
import llmfs_api  # noqa: E402
import llmfs_course  # noqa: E402
import llmfs_links  # noqa: E402
import llmfs_regions  # noqa: E402
import trace_records  # noqa: E402

logger = logging.getLogger(__name__)

CODE_DIR = "_code"  # copies of shown source files in the HTML output
_SNIPPET = re.compile(r"^ch(?P<number>[0-9]{2})-[a-z0-9]+(?:-[a-z0-9]+)*$")
_LANGUAGES = {".cpp": "cpp", ".hpp": "cpp", ".h": "cpp", ".cc": "cpp", ".py": "python", ".sh": "bash",
              ".cmake": "cmake", ".txt": "text"}


class BookError(Exception):
    """A problem to report at the directive's location (the message names the cause's file:line)."""


# --------------------------------------------------------------------------- helpers

def extensions_digest(folder: Path = Path(__file__).resolve().parent) -> str:
    """SHA-256 over the name and bytes of every docs/_ext/*.py: what these extensions are.
    A changed value is a changed "env" config value, which makes Sphinx re-read every page
    (an edited extension would otherwise leave every unchanged page as the old code drew it)."""
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.py")):
        digest.update(path.name.encode("utf-8") + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def _root(env) -> Path:
    return Path(env.config.llmfs_repo_root).resolve()


def _record_error(env, docname: str) -> None:
    errors = env.__dict__.setdefault("llmfs_errors", {})
    errors[docname] = errors.get(docname, 0) + 1


def _publish(env, docname: str, relpath: str) -> None:
    published = env.__dict__.setdefault("llmfs_code_files", {})
    published.setdefault(docname, set()).add(relpath)


def _note_span(env, docname: str, relpath: str, first: int, last: int, anchor: str, what: str) -> None:
    """Where a chapter shows lines of a file: the code page links back to it."""
    spans = env.__dict__.setdefault("llmfs_code_spans", {})
    spans.setdefault(docname, []).append((relpath, first, last, anchor, what))


def _code_uri(docname: str, relpath: str, line: int | None = None, last: int | None = None) -> str:
    target = f"{CODE_DIR}/{relpath}.html"
    uri = posixpath.relpath(target, posixpath.dirname(docname) or ".")
    if line and last and last > line:
        return uri + f"#L{line}-L{last}"
    return uri + (f"#L{line}" if line else "")


def _snippet_dir(env, name: str, lineno: int) -> tuple[Path, str]:
    if not _SNIPPET.match(name):
        raise BookError(f"bad snippet name {name!r}: expected a folder name like ch30-multi-head-attention")
    rel = f"snippets/{name}"
    folder = _root(env) / rel
    if not folder.is_dir():
        raise BookError(f"snippet folder {rel}/ does not exist")
    return folder, rel


class _BookDirective(SphinxDirective):
    """Runs `build()`; turns BookError into an ERROR at this directive's file:line."""

    def run(self):
        try:
            return self.build()
        except BookError as error:
            _record_error(self.env, self.env.docname)
            raise self.error(f"{{{self.name}}} {error}")

    def build(self):  # pragma: no cover - overridden
        raise NotImplementedError

    def caption_nodes(self, text: str):
        inline, messages = self.state.inline_text(text, self.lineno)
        return inline, messages


def _wrapped_block(directive: _BookDirective, code: str, language: str, caption_children, classes):
    block = nodes.literal_block(code, code)
    block["language"] = language
    block["classes"] += ["llmfs-code"]
    directive.set_source_info(block)
    caption = nodes.caption("", "", *caption_children)
    directive.set_source_info(caption)
    wrapper = nodes.container("", literal_block=True, classes=["literal-block-wrapper", *classes])
    wrapper += caption
    wrapper += block
    return wrapper


def _provenance(code: str, uri: str, after: str = "", before: str = ""):
    ref = nodes.reference("", "", internal=False, refuri=uri, classes=["llmfs-source-link"])
    if before:
        ref += nodes.Text(before)
    ref += nodes.literal(code, code)
    if after:
        ref += nodes.Text(after)
    span = nodes.inline("", "", classes=["llmfs-provenance"])
    span += ref
    return span


# --------------------------------------------------------------------------- {region}

class RegionDirective(_BookDirective):
    required_arguments = 1
    optional_arguments = 0
    final_argument_whitespace = False
    has_content = False
    option_spec = {"caption": directives.unchanged_required}

    def build(self):
        try:
            relpath, name = llmfs_regions.split_reference(self.arguments[0])
        except ValueError as error:
            raise BookError(str(error))
        if "caption" not in self.options:
            raise BookError(f"{relpath}#{name}: the :caption: option is required (say what the code does)")
        path = _root(self.env) / relpath
        if not path.is_file():
            raise BookError(f"{relpath}: no such file (paths are relative to the repository root)")
        self.env.note_dependency(str(path))
        try:
            regions = llmfs_regions.parse_file(_root(self.env), relpath)
        except llmfs_regions.RegionError as error:
            raise BookError(str(error))
        if name not in regions:
            known = ", ".join(sorted(regions)) or "none"
            raise BookError(f"{relpath}:1: no region '{name}' in this file (its regions: {known})")
        region = regions[name]
        _publish(self.env, self.env.docname, relpath)
        caption_text, messages = self.caption_nodes(self.options["caption"])
        link = _provenance(f"{relpath}#{name}",
                           _code_uri(self.env.docname, relpath, region.first_line, region.last_line),
                           after=f" · lines {region.first_line}–{region.last_line}")
        language = _LANGUAGES.get(path.suffix, "text")
        wrapper = _wrapped_block(self, region.text(), language,
                                 [*caption_text, nodes.inline("", " "), link], ["llmfs-region"])
        anchor = nodes.make_id(f"region-{relpath}-{name}")
        wrapper["ids"].append(anchor)
        wrapper["llmfs_context"] = llmfs_links.context_namespace(relpath)
        _note_span(self.env, self.env.docname, relpath, region.first_line, region.last_line, anchor,
                   self.options["caption"])
        return [wrapper, *messages]


# --------------------------------------------------------------------------- {demo-output}

def _parse_ranges(spec: str, count: int) -> list[int]:
    chosen: list[int] = []
    for part in spec.split(","):
        part = part.strip()
        m = re.fullmatch(r"([0-9]+)(?:-([0-9]+))?", part)
        if not m:
            raise BookError(f":lines: {spec!r}: {part!r} is not a line number or a range like 3-7")
        first = int(m[1])
        last = int(m[2]) if m[2] else first
        if first < 1 or last < first:
            raise BookError(f":lines: {spec!r}: {part!r} is not an increasing range of 1-based lines")
        if last > count:
            raise BookError(f":lines: {spec!r}: {part!r} goes past the last line ({count})")
        chosen.extend(range(first, last + 1))
    return chosen


class DemoOutputDirective(_BookDirective):
    required_arguments = 1
    has_content = False
    option_spec = {"keys": directives.unchanged_required, "lines": directives.unchanged_required,
                   "caption": directives.unchanged_required}

    def build(self):
        name = self.arguments[0]
        folder, rel = _snippet_dir(self.env, name, self.lineno)
        golden = folder / "expected.txt"
        if not golden.is_file():
            raise BookError(f"{rel}/expected.txt: no such file (run the demo and 'make traces')")
        self.env.note_dependency(str(golden))
        lines = golden.read_text(encoding="utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if not lines:
            raise BookError(f"{rel}/expected.txt:1: the golden is empty")
        if "keys" in self.options and "lines" in self.options:
            raise BookError("use :keys: or :lines:, not both")
        numbers = list(range(1, len(lines) + 1))
        what = "whole"
        if "keys" in self.options:
            keys = [k.strip() for k in self.options["keys"].split(",") if k.strip()]
            if not keys:
                raise BookError(":keys: is empty")
            numbers = []
            for key in keys:
                hits = [i for i, line in enumerate(lines, 1)
                        if "=" in line and fnmatch.fnmatchcase(line.split("=", 1)[0], key)]
                if not hits:
                    present = sorted({l.split('=', 1)[0] for l in lines if '=' in l})
                    raise BookError(f":keys: {key!r} matches no report line of {rel}/expected.txt "
                                    f"(its keys: {', '.join(present) or 'none'})")
                numbers.extend(hits)
            numbers = sorted(set(numbers))
            what = f"keys {', '.join(keys)}"
        elif "lines" in self.options:
            numbers = _parse_ranges(self.options["lines"], len(lines))
            what = f"lines {self.options['lines']}"
        text = "\n".join(lines[i - 1] for i in numbers)
        _publish(self.env, self.env.docname, f"{rel}/expected.txt")
        caption_children, messages = ([], [])
        if "caption" in self.options:
            caption_children, messages = self.caption_nodes(self.options["caption"])
            caption_children = [*caption_children, nodes.inline("", " ")]
        contiguous = numbers == list(range(numbers[0], numbers[-1] + 1))
        link = _provenance(f"{rel}/expected.txt",
                           _code_uri(self.env.docname, f"{rel}/expected.txt", numbers[0],
                                     numbers[-1] if contiguous else None),
                           after="" if what == "whole" else f" · {what}")
        wrapper = _wrapped_block(self, text, "text", [*caption_children, link], ["llmfs-demo-output"])
        anchor = nodes.make_id(f"output-{name}-{self.lineno}")
        wrapper["ids"].append(anchor)
        _note_span(self.env, self.env.docname, f"{rel}/expected.txt", numbers[0], numbers[-1], anchor,
                   self.options.get("caption", f"the demo's output ({what})"))
        return [wrapper, *messages]


# --------------------------------------------------------------------------- {trace-diagram}

def _load_renderer(path: Path):
    spec = importlib.util.spec_from_file_location(f"llmfs_diagram_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _where_in(path: Path, tb) -> str:
    frames = [f for f in traceback.extract_tb(tb) if Path(f.filename).resolve() == path.resolve()]
    return f":{frames[-1].lineno}" if frames else ""


class TraceDiagramDirective(_BookDirective):
    required_arguments = 1
    has_content = False
    option_spec = {"caption": directives.unchanged_required}

    def build(self):
        name = self.arguments[0]
        folder, rel = _snippet_dir(self.env, name, self.lineno)
        number = _SNIPPET.match(name)["number"]
        trace = folder / "trace.txt"
        if not trace.is_file():
            raise BookError(f"{rel}/trace.txt: no such file (run the demo with --trace, or 'make traces')")
        diagrams = Path(self.config.llmfs_diagrams_dir)
        renderer_path = diagrams / f"ch{number}.py"
        renderer_rel = os.path.relpath(renderer_path, _root(self.env))
        if not renderer_path.is_file():
            raise BookError(f"{renderer_rel}: no such renderer (write render(records) -> (html, text))")
        shared = diagrams / "common.py"  # helpers some renderers import
        for dep in (trace, renderer_path, Path(trace_records.__file__), shared):
            if dep.is_file():
                self.env.note_dependency(str(dep))
        try:
            records = trace_records.parse_file(trace, f"{rel}/trace.txt")
        except trace_records.TraceFormatError as error:
            raise BookError(str(error))
        try:
            module = _load_renderer(renderer_path)
            result = module.render(records)
        except trace_records.TraceFormatError as error:
            raise BookError(f"{error} (raised by {renderer_rel})")
        except Exception as error:  # a renderer bug must name the renderer and its line
            raise BookError(f"{renderer_rel}{_where_in(renderer_path, error.__traceback__)}: "
                            f"render() failed on {rel}/trace.txt: {type(error).__name__}: {error}")
        if (not isinstance(result, tuple) or len(result) != 2
                or not all(isinstance(x, str) and x.strip() for x in result)):
            raise BookError(f"{renderer_rel}: render() must return (html, text_alternative), two non-empty strings")
        body, alternative = result
        _publish(self.env, self.env.docname, f"{rel}/trace.txt")
        _note_span(self.env, self.env.docname, f"{rel}/trace.txt", 1, records[-1].line if records else 1,
                   figure_id := nodes.make_id(f"diagram-{name}"), "the diagram's trace records")
        figure = nodes.figure("", classes=["llmfs-diagram"])
        figure["ids"].append(figure_id)
        figure += nodes.raw("", f'<div class="llmfs-diagram-body">{body}</div>', format="html")
        details = (f'<details class="llmfs-diagram-text"><summary>Read this diagram as text</summary>'
                   f'<pre>{html.escape(alternative.strip())}</pre></details>')
        figure += nodes.raw("", details, format="html")
        messages = []
        caption = nodes.caption("", "")
        title = self.options.get("caption") or getattr(module, "TITLE", "")
        if not isinstance(title, str) or not title.strip():
            raise BookError(f"{renderer_rel}: the figure has no title: give the directive a :caption: "
                            f"or the renderer a TITLE string")
        inline, messages = self.caption_nodes(title)
        caption += inline
        caption += nodes.inline("", " ")
        caption += _provenance(f"{rel}/trace.txt", _code_uri(self.env.docname, f"{rel}/trace.txt", 1,
                                                              records[-1].line if records else None),
                               before="drawn from ", after=f" ({len(records)} records)")
        figure += caption
        return [figure, *messages]


# --------------------------------------------------------------------------- {log-figure}

class LogFigureDirective(_BookDirective):
    """A long run's figure: an SVG that a script in tools/ drew from a committed log (the test
    book.figures redraws it and compares), inlined so that its currentColor follows the light
    and dark themes (an <img> would not inherit the page's colour). The caption names the log;
    the text alternative lists the figure's label and the <title> of every marked point."""

    required_arguments = 1
    has_content = False
    option_spec = {"caption": directives.unchanged_required, "log": directives.unchanged_required}

    def build(self):
        rel = self.arguments[0]
        root = _root(self.env)
        if not (rel.startswith("docs/_static/") and rel.endswith(".svg")):
            raise BookError(f"{rel}: a log figure is an .svg under docs/_static/, drawn by a script in tools/")
        if not (root / rel).is_file():
            raise BookError(f"{rel}: no such file (run the long-run command that draws it)")
        log = self.options.get("log", "")
        if not log or not (root / log).is_file():
            raise BookError(f":log: {log or '(missing)'}: no such file (the log the figure is drawn from)")
        title = self.options.get("caption", "")
        if not title.strip():
            raise BookError("the figure has no :caption:")
        body = (root / rel).read_text(encoding="utf-8")
        if not body.lstrip().startswith("<svg") or "aria-label=" not in body:
            raise BookError(f"{rel}: expected an <svg> element with an aria-label")
        # The text alternative: the figure's label and every marked point's <title>, in order.
        points = [html.unescape(t) for t in re.findall(r"<title>(.*?)</title>", body, flags=re.S)]
        if not points:
            raise BookError(f"{rel}: no <title> on any point, so the figure has no text alternative")
        label = html.unescape(re.search(r'aria-label="([^"]*)"', body).group(1))
        alternative = "\n".join([label, *points])
        for dep in (rel, log):
            self.env.note_dependency(str(root / dep))
        figure = nodes.figure("", classes=["llmfs-diagram", "llmfs-log-figure"])
        figure["ids"].append(nodes.make_id(f"figure-{Path(rel).stem}"))
        figure += nodes.raw("", f'<div class="llmfs-diagram-body">{body}</div>', format="html")
        figure += nodes.raw("", f'<details class="llmfs-diagram-text"><summary>Read this figure as text'
                                f'</summary><pre>{html.escape(alternative)}</pre></details>', format="html")
        caption = nodes.caption("", "")
        inline, messages = self.caption_nodes(title)
        caption += inline
        caption += nodes.inline("", " ")
        caption += nodes.inline("", "", nodes.Text("drawn from "), nodes.literal(log, log),
                                classes=["llmfs-provenance"])
        figure += caption
        return [figure, *messages]


# --------------------------------------------------------------------------- {answer}

ANSWER_SUMMARY = "Show the program's answer"
ANSWER_PRINTED = "The program's answer"  # the summary's words on paper and in the print view


class answer(nodes.General, nodes.Element):
    """A Predict section's answers: a closed <details> in HTML (open in the print view)."""


def _visit_answer_html(self, node):
    # The print view (singlehtml) is read on paper or in one go: its answers are open.
    opened = " open" if self.builder.name == "singlehtml" else ""
    self.body.append(f'<details class="llmfs-answer"{opened}><summary><span class="llmfs-answer-show">'
                     f'{html.escape(ANSWER_SUMMARY)}</span><span class="llmfs-answer-printed">'
                     f'{html.escape(ANSWER_PRINTED)}</span></summary><div class="llmfs-answer-body">')


def _depart_answer_html(self, node):
    self.body.append("</div></details>")


def _pass(self, node):
    pass


class AnswerDirective(_BookDirective):
    """The program's answer to a Predict section, folded until the reader asks for it."""
    has_content = True

    def build(self):
        if not any(line.strip() for line in self.content):
            raise BookError("the answer is empty: put the demo output and the prose that explains it inside")
        node = answer()
        self.set_source_info(node)
        self.state.nested_parse(self.content, self.content_offset, node)
        return [node]


# --------------------------------------------------------------------------- {course-parts}

class CourseDirective(_BookDirective):
    """The whole course (llmfs_course.py): written chapters as links, the rest 'to come'."""
    has_content = True

    def build(self):
        try:
            parts = llmfs_course.parse("\n".join(self.content), f"{self.env.docname}.md {{course}}")
        except ValueError as error:
            raise BookError(str(error))
        found = self.env.found_docs
        course = nodes.container(classes=["llmfs-course"])
        toctrees = []
        for part in parts:
            course += nodes.rubric(part.title, part.title)
            items = nodes.bullet_list()
            written = []
            for entry in part.entries:
                doc = llmfs_course.document_of(entry, found)
                paragraph = nodes.paragraph()
                if doc is not None:
                    written.append(doc)
                    title = llmfs_course.label(entry) if entry.key else (
                        self.env.titles[doc].astext() if doc in self.env.titles else doc)
                    ref = addnodes.pending_xref("", nodes.inline("", title), refdomain="std", reftype="doc",
                                                reftarget="/" + doc, refexplicit=True, refwarn=True)
                    paragraph += ref
                    item = nodes.list_item("", paragraph)
                else:
                    paragraph += nodes.Text(llmfs_course.label(entry))
                    paragraph += nodes.inline("", "to come", classes=["llmfs-badge"])
                    item = nodes.list_item("", paragraph, classes=["llmfs-to-come"])
                items += item
            course += items
            if written:
                toctrees += ["```{toctree}", ":hidden:", ":maxdepth: 2", f":caption: {part.title}", "",
                             *["/" + d for d in written], "```", ""]
        hidden = nodes.container()
        self.state.nested_parse(StringList(toctrees, self.env.docname), self.content_offset, hidden)
        return [course, *hidden.children]


# --------------------------------------------------------------------------- {api-reference}

class ApiReferenceDirective(_BookDirective):
    """The table of contents of the generated per-folder API pages (llmfs_api.py)."""
    has_content = False

    def build(self):
        folders = getattr(self.env, "llmfs_api_folders", None)
        if folders is None:
            raise BookError("no API pages were generated: set llmfs_api_dir in conf.py")
        if not folders:
            text = ["The public headers under `src/llmfs/` declare nothing yet."]
        else:
            base = posixpath.relpath(self.config.llmfs_api_dir, posixpath.dirname(self.env.docname) or ".")
            text = ["```{toctree}", ":maxdepth: 2", "", *[f"{base}/{f}" for f in folders], "```", ""]
        container = nodes.container(classes=["llmfs-api"])
        self.state.nested_parse(StringList(text, self.env.docname), self.content_offset, container)
        return container.children


def _xml_dir(config) -> Path:
    return Path(config.breathe_projects[config.breathe_default_project])


def _generate_api(app):
    if not app.config.llmfs_api_dir:
        return
    xml_dir = _xml_dir(app.config)
    if not (xml_dir / "index.xml").is_file():
        raise ExtensionError(f"{xml_dir}/index.xml: no Doxygen XML (tools/build-book.py runs Doxygen first)")
    app.env.llmfs_api_folders = llmfs_api.generate(xml_dir, Path(app.srcdir) / app.config.llmfs_api_dir)


def _configure_api(app, config):
    """Settings that follow the namespaces in the XML. Set at config-inited, before Sphinx
    compares the configuration with the pickled one (later, they would force a full re-read)."""
    if not config.llmfs_api_dir or not (_xml_dir(config) / "index.xml").is_file():
        return
    xml_dir = _xml_dir(config)
    # Signatures qualify names with their namespaces (llmfs::tensor::Shape), and Sphinx makes
    # each qualifier a reference; a namespace is a folder here, not an entry of its own, so
    # exactly the namespaces Doxygen found are accepted as qualifiers (nothing else is).
    ignore = set(config.nitpick_ignore)
    ignore.update(("cpp:identifier", ns) for ns in llmfs_api.namespaces(xml_dir))
    config.nitpick_ignore = sorted(ignore)


# --------------------------------------------------------------------------- events

def _purge(app, env, docname):
    env.__dict__.setdefault("llmfs_errors", {}).pop(docname, None)
    env.__dict__.setdefault("llmfs_code_files", {}).pop(docname, None)
    env.__dict__.setdefault("llmfs_code_spans", {}).pop(docname, None)


def _merge(app, env, docnames, other):
    for attr in ("llmfs_errors", "llmfs_code_files", "llmfs_code_spans"):
        mine = env.__dict__.setdefault(attr, {})
        theirs = other.__dict__.get(attr, {})
        for doc in docnames:
            if doc in theirs:
                mine[doc] = theirs[doc]


def _outdated(app, env, added, changed, removed):
    # A chapter with errors is read again on every build, so its errors are never hidden by
    # an incremental build.
    again = [d for d in env.__dict__.get("llmfs_errors", {}) if d in env.found_docs]
    if getattr(app, "llmfs_static_changed", False) and env.config.root_doc in env.found_docs:
        again.append(env.config.root_doc)
    return again


def _stage_mathjax(app):
    """Copy the trimmed local MathJax 2 tree next to the doctrees; add it to html_static_path."""
    source = Path(app.config.llmfs_mathjax_source)
    if not (source / "MathJax.js").is_file():
        raise ExtensionError(f"{source}/MathJax.js not found: install libjs-mathjax (tools/deps.txt)")
    stage = Path(app.doctreedir).parent / "mathjax-stage"
    target = stage / "mathjax"
    keep = ["MathJax.js", "config/TeX-AMS_CHTML.js", "extensions", "jax/input/TeX", "jax/output/CommonHTML",
            "jax/element/mml", "fonts/HTML-CSS/TeX/woff", "fonts/HTML-CSS/TeX/otf"]
    for item in keep:
        src = source / item
        files = [src] if src.is_file() else [p for p in src.rglob("*") if p.is_file()]
        for f in files:
            dst = target / f.relative_to(source)
            if dst.is_file() and dst.stat().st_size == f.stat().st_size:
                continue
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, dst)
    if str(stage) not in app.config.html_static_path:
        app.config.html_static_path.append(str(stage))


_DARK_BLOCK = re.compile(r'@media not print \{\s*(body\[data-theme="dark"\] \{[^}]*\})')


def furo_assets(theme_static: Path, normalize_css: Path) -> dict[str, str]:
    """Debian's unbundled furo, made to work from file:// (checked by the browser test).

    - scripts/furo.js is an ES module (`import Gumshoe from "./gumshoe-patched.js"`) loaded
      as a classic script: it throws and the theme toggle, the table-of-contents highlight
      and back-to-top never run. The bundle is gumshoe (a UMD script that sets
      window.Gumshoe) followed by furo.js without its import line, in one function scope;
      gumshoe's getActive() is guarded against a table of contents with no items.
    - styles/furo.css starts with `@import url(/javascript/normalize.css/normalize.css)`,
      an absolute path that fails offline: normalize.css (Debian's node-normalize.css) is
      inlined in its place.
    - Debian's Sass compiler dropped furo's nested `@media (prefers-color-scheme: dark)`
      rule, so the OS dark preference left the page white: the dark variables block is
      repeated under that media query for `body:not([data-theme="light"])`.
    Every step checks that the text it rewrites is there, so a new furo fails loudly here.
    """
    furo_js = (theme_static / "scripts" / "furo.js").read_text(encoding="utf-8")
    gumshoe = (theme_static / "scripts" / "gumshoe-patched.js").read_text(encoding="utf-8")
    import_line = 'import Gumshoe from "./gumshoe-patched.js";'
    if not furo_js.startswith(import_line) or "import " in furo_js[len(import_line):] or "export " in furo_js:
        raise ExtensionError(f"{theme_static}/scripts/furo.js: not the furo 2022.12 module this book bundles")
    last_item = "var useLastItem = function (item, settings) {"
    if "root.Gumshoe = factory(root)" not in gumshoe or gumshoe.count(last_item) != 1:
        raise ExtensionError(f"{theme_static}/scripts/gumshoe-patched.js: not the UMD gumshoe this book bundles")
    # A page whose table of contents has no target on the page (the index) left gumshoe
    # with no items: getActive() then read `undefined.content` and threw on every scroll.
    gumshoe = gumshoe.replace(last_item, last_item + " if (!item) return false;")
    script = ("/* furo.js bundled for file:// by docs/_ext/llmfs_book.py: gumshoe (UMD) + furo.js */\n"
              + gumshoe + "\n;(function () {\n" + furo_js[len(import_line):] + "\n})();\n")
    css = (theme_static / "styles" / "furo.css").read_text(encoding="utf-8")
    import_rule = "@import url(/javascript/normalize.css/normalize.css);"
    if not css.startswith(import_rule):
        raise ExtensionError(f"{theme_static}/styles/furo.css: expected it to start with {import_rule}")
    if not normalize_css.is_file():
        raise ExtensionError(f"{normalize_css}: not found (install node-normalize.css, a dependency of furo)")
    dark = _DARK_BLOCK.search(css)
    if not dark or "prefers-color-scheme" in css:
        raise ExtensionError(f"{theme_static}/styles/furo.css: its dark-theme block was not found where expected")
    auto_dark = dark[1].replace('body[data-theme="dark"]', 'body:not([data-theme="light"])', 1)
    css = (normalize_css.read_text(encoding="utf-8") + "\n" + css[len(import_rule):]
           + "\n/* added by llmfs_book: the OS dark preference (theme 'auto') */\n"
           + "@media not print { @media (prefers-color-scheme: dark) { " + auto_dark + " } }\n")
    return {"scripts/furo.js": script, "styles/furo.css": css}


def _stage_theme(app):
    """Theme files that replace furo's broken ones (html_static_path overrides theme static)."""
    if app.config.html_theme != "furo":
        return
    import furo
    theme_static = Path(furo.__file__).resolve().parent / "theme" / "furo" / "static"
    stage = Path(app.doctreedir).parent / "theme-stage"
    for rel, text in furo_assets(theme_static, Path(app.config.llmfs_normalize_css)).items():
        target = stage / rel
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            app.llmfs_static_changed = True  # Sphinx copies static files only when a page is written
    if str(stage) not in app.config.html_static_path:
        app.config.html_static_path.append(str(stage))


_LANGUAGE_OF_TEXT = {".txt": "text"}


def _code_page(app, relpath: str, text: str, shown: list) -> str:
    """A highlighted, navigable copy of a shown file: numbered lines, API links, the span in
    the address (#L5-L20) marked, and a link back to every place a chapter shows it."""
    page = f"{CODE_DIR}/{relpath}.html"
    static = llmfs_links.relative(page, "_static")
    language = _LANGUAGES.get(Path(relpath).suffix, "text")
    index = getattr(app, "llmfs_api_index", None)

    def link(target):
        return llmfs_links.relative(page, target.docname + app.builder.out_suffix) + "#" + target.anchor

    lines = llmfs_links.highlight_lines(text, language, index, link, llmfs_links.context_namespace(relpath))
    rows = "".join(f'<tr id="L{n}"><td class="llmfs-n"><a href="#L{n}">{n}</a></td><td class="llmfs-src">{line or " "}</td></tr>'
                   for n, line in enumerate(lines, 1))
    back = []
    for docname, first, last, anchor, what in shown:
        href = llmfs_links.relative(page, docname + app.builder.out_suffix) + "#" + anchor
        title = app.env.titles[docname].astext() if docname in app.env.titles else docname
        back.append(f'<li><a href="{html.escape(href)}">{html.escape(title)}</a>: {html.escape(what)} '
                    f'(<a href="#L{first}-L{last}">lines {first}–{last}</a>)</li>')
    index_href = llmfs_links.relative(page, app.config.root_doc + app.builder.out_suffix)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>{html.escape(relpath)} · {html.escape(app.config.project)}</title>
<link rel="stylesheet" href="{static}/pygments.css">
<link rel="stylesheet" href="{static}/llmfs-code.css">
</head><body>
<header><p><a href="{html.escape(index_href)}">{html.escape(app.config.project)}</a> · source</p>
<h1>{html.escape(relpath)}</h1>
<nav aria-label="Shown in"><p>Shown in the book:</p><ul>{''.join(back)}</ul></nav></header>
<main class="highlight"><table class="llmfs-source"><tbody>{rows}</tbody></table></main>
<script src="{static}/llmfs-code.js"></script>
</body></html>
"""


def _resolved(app, doctree, docname):
    """Listings and outputs as linked HTML; inline code that names an API entity, a link."""
    if app.builder.format != "html":
        return
    index = getattr(app, "llmfs_api_index", None)

    def link(target):
        return llmfs_links.uri(app.builder, docname, target)

    for block in list(doctree.findall(nodes.literal_block)):
        wrapper = block.parent
        if "llmfs-code" not in block.get("classes", []) or not isinstance(wrapper, nodes.container):
            continue
        if "llmfs-demo-output" in wrapper["classes"]:
            block.replace_self(nodes.raw("", llmfs_links.output_html(block.astext()), format="html"))
        elif "llmfs-region" in wrapper["classes"]:
            code = llmfs_links.listing_html(block.astext(), block["language"], index, link,
                                            wrapper.get("llmfs_context", "llmfs"))
            block.replace_self(nodes.raw("", code, format="html"))
    if index and not docname.startswith(app.config.llmfs_api_dir + "/"):
        llmfs_links.link_prose(doctree, docname, index, app.builder)
    if getattr(app, "llmfs_course", None):
        llmfs_course.link(doctree, docname, app.llmfs_course, app.env.found_docs, app.builder)


def _assets_for_print(app):
    # singlehtml renders every document into index: MathJax must be on it although the
    # index document itself has no formula.
    if app.builder.name == "singlehtml":
        app.set_html_assets_policy("always")


def _read_course(app):
    index = Path(app.srcdir) / f"{app.config.root_doc}.md"
    try:
        app.llmfs_course = llmfs_course.read_index(index) if index.is_file() else []
    except ValueError as error:
        raise ExtensionError(str(error))


def _check_mentions(app, doctree):
    parts = getattr(app, "llmfs_course", [])
    if not parts:
        return
    docname = app.env.docname
    if app.config.llmfs_api_dir and docname.startswith(app.config.llmfs_api_dir + "/"):
        return  # Doxygen comments name the chapter a declaration comes from; they link, unchecked
    source = None
    for line, mention, message in llmfs_course.check(doctree, docname, parts, app.env.found_docs):
        # The paragraph's line, moved to the line that holds the mention itself.
        if source is None:
            source = Path(app.env.doc2path(docname)).read_text(encoding="utf-8").split("\n")
        first = mention.split()[0]
        for n in range(max((line or 1) - 1, 0), len(source)):
            if mention in source[n] or (first in source[n] and mention.split()[1] in source[n]):
                line = n + 1
                break
        _record_error(app.env, docname)
        logger.error(message, location=(docname, line))


def _sidebar(app, pagename, templatename, context, doctree):
    parts = getattr(app, "llmfs_course", [])
    if parts and "furo_navigation_tree" in context:
        context["furo_navigation_tree"] = llmfs_course.sidebar(
            context["furo_navigation_tree"], parts, app.env.found_docs, pagename, context["pathto"])


def _index_api(app, env):
    app.llmfs_api_index = llmfs_links.ApiIndex(env.get_domain("cpp").get_objects())
    return []


def _finished(app, exception):
    if exception is not None:
        return
    env = app.env
    errors = env.__dict__.get("llmfs_errors", {})
    if errors:
        where = ", ".join(f"{app.env.doc2path(d, base=False)} ({n})" for d, n in sorted(errors.items()))
        raise ExtensionError(f"the book has errors in: {where}; see the ERROR lines above")
    if app.builder.format != "html" or app.builder.name == "singlehtml":
        return
    root = _root(env)
    shown: dict[str, list] = {}
    for docname, spans in sorted(env.__dict__.get("llmfs_code_spans", {}).items()):
        for relpath, first, last, anchor, what in spans:
            shown.setdefault(relpath, []).append((docname, first, last, anchor, what))
    out = Path(app.outdir) / CODE_DIR
    for relpath in sorted(shown):
        page = out / f"{relpath}.html"
        content = _code_page(app, relpath, (root / relpath).read_text(encoding="utf-8"), shown[relpath])
        if page.is_file() and page.read_text(encoding="utf-8") == content:
            continue
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(content, encoding="utf-8")
    # A file no chapter shows any more (or that is gone) loses its page, so an incremental
    # build is left with what a clean one makes (its links pointed at removed listings).
    wanted = {out / f"{relpath}.html" for relpath in shown}
    for page in sorted(out.rglob("*.html")) if out.is_dir() else []:
        if page not in wanted:
            page.unlink()


def _book_cpp_domain():
    """Sphinx's C++ domain, with parameters kept out of the search index (priority -1):
    they flooded results ("multi-head" gave 98, the first six for "RoPE" were parameters)."""
    from sphinx.domains.cpp import CPPDomain

    class BookCPPDomain(CPPDomain):
        def get_objects(self):
            for entry in super().get_objects():
                if entry[2] in ("functionParam", "templateParam"):
                    yield (*entry[:5], -1)
                else:
                    yield entry

    return BookCPPDomain


def setup(app):
    app.add_config_value("llmfs_repo_root", str(Path(__file__).resolve().parents[2]), "env")
    app.add_config_value("llmfs_diagrams_dir", str(Path(__file__).resolve().parent / "diagrams"), "env")
    app.add_config_value("llmfs_mathjax_source", "/usr/share/javascript/mathjax", "html")
    app.add_config_value("llmfs_stage_mathjax", True, "html")
    app.add_config_value("llmfs_normalize_css", "/usr/share/javascript/normalize.css/normalize.css", "html")
    app.add_config_value("llmfs_api_dir", "", "env")
    app.add_config_value("llmfs_extensions_digest", extensions_digest(), "env")
    app.add_domain(_book_cpp_domain(), override=True)
    app.add_directive("region", RegionDirective)
    app.add_directive("demo-output", DemoOutputDirective)
    app.add_directive("trace-diagram", TraceDiagramDirective)
    app.add_directive("log-figure", LogFigureDirective)
    app.add_directive("course", CourseDirective)
    app.add_node(answer, html=(_visit_answer_html, _depart_answer_html), text=(_pass, _pass),
                 latex=(_pass, _pass), man=(_pass, _pass), texinfo=(_pass, _pass))
    app.add_directive("answer", AnswerDirective)
    app.add_directive("api-reference", ApiReferenceDirective)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-get-outdated", _outdated)
    app.connect("builder-inited", lambda a: _stage_mathjax(a) if a.config.llmfs_stage_mathjax and a.builder.format == "html" else None)
    app.connect("builder-inited", lambda a: _stage_theme(a) if a.builder.format == "html" else None)
    app.connect("config-inited", _configure_api)
    app.connect("builder-inited", _generate_api)
    app.connect("env-updated", _index_api)
    app.connect("builder-inited", _read_course)
    app.connect("builder-inited", _assets_for_print)
    app.connect("doctree-read", _check_mentions)
    app.connect("html-page-context", _sidebar, priority=600)
    app.connect("doctree-resolved", _resolved)
    app.connect("build-finished", _finished)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 1}
