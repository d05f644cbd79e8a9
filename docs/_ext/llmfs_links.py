"""Links from listings and prose to the API reference, resolved from Sphinx's C++ domain.

After all chapters and API pages are read, every entity the C++ domain knows (classes,
structs, enums, enumerators, type aliases, functions, data members; never parameters) is
indexed by each of its qualified suffixes: `llmfs::attention::MultiHeadAttention::create`
is found as `create`, `MultiHeadAttention::create`, `attention::MultiHeadAttention::create`...

In a C++ listing (a `{region}` of a .cpp/.hpp file) a run of names joined by `::` links
to its entry when exactly one entity matches (ties are broken by the listing's own
namespace, from its folder), and, for unqualified names, only where the use cannot be a
local variable of the same spelling: a member after `.` or `->`, a free function before
`(` or `<`, a type anywhere. Inline code in prose (`MultiHeadAttention::forward`,
`softmax()`, `Tensor`) links by the same rules. Every link is built from the domain's own
document and anchor, so it cannot point at nothing (the browser test checks every link).

Listings and demo outputs are written here as HTML (raw nodes) for HTML builders:
    - listings keep Pygments' token classes, with <a class="llmfs-api"> around names;
    - demo outputs become one <span class="llmfs-out-line"> per line and one
      <span class="llmfs-field"> per space-separated `key=value` field, so a long report
      line wraps between fields (and inside a list only after a comma), with a
      continuation mark drawn by CSS on every wrapped row.
"""

from __future__ import annotations

import html
import posixpath
import re
from dataclasses import dataclass

from docutils import nodes
from pygments.lexers import get_lexer_by_name
from pygments.token import STANDARD_TYPES, Token

LINKED_TYPES = {"class", "union", "type", "enum", "enumerator", "function", "member", "concept"}
TYPE_LIKE = {"class", "union", "type", "enum", "concept"}


@dataclass(frozen=True)
class Target:
    name: str
    objtype: str
    docname: str
    anchor: str
    member: bool  # declared inside a class


class ApiIndex:
    def __init__(self, objects):
        first: dict[str, Target] = {}
        raw = [o for o in objects if o[2] in LINKED_TYPES]
        classes = {o[0] for o in raw if o[2] in ("class", "union")}
        for name, _disp, objtype, docname, anchor, _prio in raw:
            if name in first or "::detail" in name:
                continue  # overloads: the first declaration stands for the name
            parent = name.rsplit("::", 1)[0] if "::" in name else ""
            first[name] = Target(name, objtype, docname, anchor, parent in classes)
        self.targets = first
        self.by_suffix: dict[str, set[str]] = {}
        for name in first:
            parts = name.split("::")
            for i in range(len(parts)):
                self.by_suffix.setdefault("::".join(parts[i:]), set()).add(name)

    def __len__(self):
        return len(self.targets)

    def resolve(self, qualified: str, before: str = "", after: str = "", context: str = "") -> Target | None:
        names = self.by_suffix.get(qualified)
        if not names:
            return None
        if len(names) > 1 and context:
            scoped = {n for n in names if n.startswith(context + "::")}
            names = scoped or names
        if len(names) != 1:
            return None
        target = self.targets[next(iter(names))]
        if "::" in qualified:
            return target
        access = before in (".", "->")
        if target.member:
            return target if access else None
        if access:
            return None
        if target.objtype == "function":
            return target if after in ("(", "<") else None
        if target.objtype == "enumerator":
            return None
        return target


def uri(builder, fromdoc: str, target: Target) -> str:
    if builder.name == "singlehtml":
        return "#" + target.anchor
    return builder.get_relative_uri(fromdoc, target.docname) + "#" + target.anchor


def _css_class(ttype) -> str:
    while ttype not in STANDARD_TYPES:
        ttype = ttype.parent
    return STANDARD_TYPES[ttype]


def _is_name(ttype) -> bool:
    return ttype in Token.Name


def highlight_lines(code: str, language: str, index: ApiIndex | None, link, context: str = "") -> list[str]:
    """Pygments HTML of `code`, one string per source line, names linked via link(target)."""
    lexer = get_lexer_by_name(language, stripnl=False, ensurenl=False)
    tokens = [(t, v) for t, v in lexer.get_tokens(code) if v]
    # Merge ':' ':' into one '::' token (Pygments' C++ lexer emits two).
    merged = []
    for t, v in tokens:
        if v == ":" and merged and merged[-1][1] == ":" and merged[-1][0] in Token.Operator:
            merged[-1] = (Token.Operator, "::")
        else:
            merged.append((t, v))
    tokens = merged
    out: list[list[str]] = [[]]
    wanted = index is not None and language == "cpp"

    def emit(ttype, value):
        pieces = value.split("\n")
        for k, piece in enumerate(pieces):
            if k:
                out.append([])
            if piece:
                cls = _css_class(ttype)
                text = html.escape(piece, quote=False)
                out[-1].append(f'<span class="{cls}">{text}</span>' if cls else text)

    def neighbour(i, step):
        j = i + step
        while 0 <= j < len(tokens) and not tokens[j][1].strip():
            j += step
        return tokens[j][1] if 0 <= j < len(tokens) else ""

    i = 0
    while i < len(tokens):
        ttype, value = tokens[i]
        if wanted and _is_name(ttype):
            j = i + 1
            while j + 1 < len(tokens) and tokens[j][1] == "::" and _is_name(tokens[j + 1][0]):
                j += 2
            run = tokens[i:j]
            parts = [v for t, v in run if v != "::"]
            before = neighbour(i, -1)
            target = None
            # the longest prefix of the run that names one entity (Tensor::zeros -> Tensor)
            for n in range(len(parts), 0, -1):
                after = neighbour(j - 1, 1) if n == len(parts) else "::"
                target = index.resolve("::".join(parts[:n]), before if before != "::" else "",
                                       after, context)
                if target:
                    break
            if before == "::":
                target = None  # ::global or Template<...>::name: not a name of ours
            if target:
                cut = 2 * n - 1
                out[-1].append(f'<a class="llmfs-api" href="{html.escape(link(target))}" '
                               f'title="{html.escape(target.name)}">')
                for t, v in run[:cut]:
                    emit(t, v)
                out[-1].append("</a>")
                for t, v in run[cut:]:
                    emit(t, v)
                i = j
                continue
        emit(ttype, value)
        i += 1
    lines = ["".join(parts) for parts in out]
    if lines and lines[-1] == "" and code.endswith("\n"):
        lines.pop()
    return lines


def listing_html(code: str, language: str, index, link, context: str) -> str:
    """One <span class="llmfs-line"> per source line (literal newlines between them, so
    copying gives the source exactly): a line too long for the column wraps with a hanging
    indent and a continuation mark instead of scrolling (llmfs.css)."""
    body = "\n".join(f'<span class="llmfs-line">{line}</span>'
                     for line in highlight_lines(code, language, index, link, context))
    return (f'<div class="highlight-{language} notranslate"><div class="highlight"><pre><span></span>'
            f"{body}\n</pre></div></div>")


_COMMA = re.compile(r",(?=\S)")


def output_html(text: str) -> str:
    rows = []
    for line in text.split("\n"):
        fields = line.split(" ")
        spans = []
        for k, field in enumerate(fields):
            escaped = _COMMA.sub(",<wbr>", html.escape(field, quote=False))
            if k == 0 and "=" in field:
                key, _, rest = escaped.partition("=")
                escaped = f'<span class="llmfs-key">{key}=</span>{rest}'
            spans.append(f'<span class="llmfs-field">{escaped}</span>')
        rows.append(f'<span class="llmfs-out-line">{" ".join(spans) or " "}</span>')
    return ('<div class="highlight-text notranslate llmfs-output"><div class="highlight"><pre>'
            + "".join(rows) + "</pre></div></div>")


def context_namespace(relpath: str) -> str:
    parts = relpath.split("/")
    if len(parts) >= 4 and parts[0] == "src" and parts[1] == "llmfs" and parts[2] != "core":
        return f"llmfs::{parts[2]}"
    return "llmfs"


_PROSE = re.compile(r"^(?:llmfs::)?([A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_~][A-Za-z0-9_]*)*)(\(.*\))?$")


def link_prose(doctree, docname: str, index: ApiIndex, builder) -> int:
    """Wrap inline code that names an API entity in a link; returns how many."""
    count = 0
    for literal in list(doctree.findall(nodes.literal)):
        if isinstance(literal.parent, (nodes.reference, nodes.title, nodes.literal_block)) or \
                any(isinstance(a, (nodes.reference, nodes.title, nodes.caption)) or
                    a.get("classes") and "sig" in " ".join(a.get("classes", [])) for a in _ancestors(literal)):
            continue
        m = _PROSE.match(literal.astext().strip())
        if not m:
            continue
        name = m[1]
        # Prose names things on purpose: a free function links with or without "()"; a
        # member only when qualified (`MultiHeadAttention::forward`), never as a bare name.
        target = index.resolve(name, "", "(")
        if target is None or (target.member and "::" not in name):
            continue
        ref = nodes.reference("", "", internal=True, refuri=uri(builder, docname, target),
                              classes=["llmfs-api-ref"], reftitle=target.name)
        literal.replace_self(ref)
        ref += literal
        count += 1
    return count


def _ancestors(node):
    node = node.parent
    while node is not None:
        yield node
        node = node.parent


def code_page_uri(relpath: str) -> str:
    return f"_code/{relpath}.html"


def relative(from_file: str, to_file: str) -> str:
    return posixpath.relpath(to_file, posixpath.dirname(from_file) or ".")
