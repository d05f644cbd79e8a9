"""The whole course, written or not: the index's list, the sidebar, and chapter mentions.

chapters/index.md holds the course in a `{course}` fence, one line each:

    # Part V · Attention                 a part
    27 Self-attention                     chapter 27: the document 27-*.md, if it exists
    40 Checking ... = appendix-pytorch-parity    an explicit document name
    A Outgrowing one machine = appendix-outgrowing-one-machine
    - reference/building                  a document listed under the part as it is

The directive renders every entry: a link where the document exists, the course's title
with a "to come" mark where it does not; and one hidden toctree per part of the documents
that exist (Sphinx's navigation: previous/next, the sidebar). The sidebar (furo's tree,
rewritten at html-page-context) lists the not-yet-written chapters the same way, so a
reader sees the whole course and never meets a link that 404s.

Chapter mentions in prose ("Chapter 28", "chapters 20–31", "chapter 18"): a mention of a
written chapter becomes a link to it; a mention of a chapter that is not written must say
so within the same clause ("Chapter 31 (to come)", "chapter 18, to come"), or the build
fails at the chapter's file:line. A number outside the course always fails.
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from pathlib import Path

from docutils import nodes

MENTION = re.compile(r"\b([Cc]hapters?)\s+(\d{1,2})(?:\s*(?:–|-|to)\s*(\d{1,2}))?"
                     r"((?:\s*(?:,|and|or)\s*\d{1,2}\b)*)")
TO_COME = re.compile(r"^[^.;:]{0,40}?\bto come\b")


@dataclass
class Entry:
    key: str  # "27", "A", or "" for a plain document line
    title: str
    pattern: str  # a document name or a glob


@dataclass
class Part:
    title: str
    entries: list


def parse(text: str, where: str = "course") -> list[Part]:
    parts: list[Part] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("# "):
            parts.append(Part(line[2:].strip(), []))
            continue
        if not parts:
            raise ValueError(f"{where}, line {number}: an entry before the first '# Part' line")
        if line.startswith("- "):
            parts[-1].entries.append(Entry("", "", line[2:].strip()))
            continue
        m = re.fullmatch(r"(\d{2}|[A-Z])\s+(.+?)(?:\s+=\s+(\S+))?", line)
        if not m:
            raise ValueError(f"{where}, line {number}: expected 'NN Title [= document]', '# Part' "
                             f"or '- document', got {line!r}")
        key, title, doc = m.groups()
        parts[-1].entries.append(Entry(key, title, doc or f"{key}-*"))
    return parts


def read_index(index_md: Path) -> list[Part]:
    """The {course} fence of chapters/index.md (read before any document is parsed)."""
    text = index_md.read_text(encoding="utf-8")
    m = re.search(r"^```\{course\}[^\n]*\n(.*?)^```", text, re.S | re.M)
    if not m:
        return []
    return parse(m[1], str(index_md))


def document_of(entry: Entry, found_docs) -> str | None:
    matches = sorted(d for d in found_docs if fnmatch.fnmatchcase(d, entry.pattern))
    return matches[0] if matches else None


def chapters(parts: list[Part], found_docs) -> dict[int, tuple[Entry, str | None]]:
    """Chapter number -> (entry, document or None)."""
    out = {}
    for part in parts:
        for entry in part.entries:
            if entry.key.isdigit():
                out[int(entry.key)] = (entry, document_of(entry, found_docs))
    return out


def label(entry: Entry) -> str:
    return f"{int(entry.key)} · {entry.title}" if entry.key.isdigit() else (
        f"Appendix {entry.key} · {entry.title}" if entry.key else entry.title)


def mentions(text: str):
    """(start, end, [numbers], is_range) for each chapter mention in a piece of prose."""
    for m in MENTION.finditer(text):
        first = int(m[2])
        numbers = list(range(first, int(m[3]) + 1)) if m[3] else [first]
        numbers += [int(n) for n in re.findall(r"\d{1,2}", m[4] or "")]
        yield m.start(), m.end(), numbers, bool(m[3])


def prose_text_nodes(doctree):
    skip = (nodes.literal, nodes.literal_block, nodes.reference, nodes.raw, nodes.title, nodes.target,
            nodes.comment, nodes.math, nodes.math_block)
    for text in list(doctree.findall(nodes.Text)):
        node, ok = text.parent, True
        while node is not None:
            if isinstance(node, skip) or "pending_xref" in type(node).__name__:
                ok = False
                break
            node = node.parent
        if ok:
            yield text


def check(doctree, docname: str, parts, found_docs) -> list[tuple[int | None, str, str]]:
    """Problems: (paragraph line, mention, message) for mentions of chapters that are not
    written and not marked 'to come', or not in the course at all."""
    known = chapters(parts, found_docs)
    problems = []
    for text in prose_text_nodes(doctree):
        value = str(text)
        for start, end, numbers, _ in mentions(value):
            mention = value[start:end]
            unknown = [n for n in numbers if n not in known]
            unwritten = [n for n in numbers if n in known and known[n][1] is None]
            if unknown:
                problems.append((_line(text), mention, f"'{mention}': there is no chapter "
                                 f"{', '.join(map(str, unknown))} in the course (chapters/index.md)"))
            elif not unwritten and TO_COME.search(value[end:]):
                problems.append((_line(text), mention, f"'{mention}' is written: drop "
                                 f"'to come' after it (it becomes a link)"))
            elif unwritten and not TO_COME.search(value[end:]):
                names = "; ".join(f"{n} {known[n][0].title}" for n in unwritten)
                problems.append((_line(text), mention, f"'{mention}': not written yet ({names}): say so, "
                                 f"e.g. '{mention} (to come)'"))
    return problems


def _line(node):
    while node is not None:
        if getattr(node, "line", None):
            return node.line
        node = node.parent
    return None


def link(doctree, docname: str, parts, found_docs, builder) -> int:
    """Turn mentions of written chapters into links; returns how many links were made."""
    known = chapters(parts, found_docs)
    made = 0
    for text in list(prose_text_nodes(doctree)):
        value = str(text)
        found = [(s, e, n) for s, e, n, is_range in mentions(value)]
        if not found:
            continue
        pieces, cursor = [], 0
        for start, end, numbers in found:
            written = [known[n][1] for n in numbers if n in known and known[n][1]]
            if not written or len(numbers) != 1:
                # a range or a list: link each written number inside it
                segment = value[start:end]
                pieces.append(nodes.Text(value[cursor:start]))
                inner = 0
                for m in re.finditer(r"\d{1,2}", segment):
                    n = int(m[0])
                    if n in known and known[n][1] and len(numbers) > 1:
                        pieces.append(nodes.Text(segment[inner:m.start()]))
                        pieces.append(_reference(builder, docname, known[n][1], m[0]))
                        inner = m.end()
                        made += 1
                pieces.append(nodes.Text(segment[inner:]))
                cursor = end
                continue
            pieces.append(nodes.Text(value[cursor:start]))
            pieces.append(_reference(builder, docname, written[0], value[start:end]))
            cursor = end
            made += 1
        pieces.append(nodes.Text(value[cursor:]))
        parent = text.parent
        index = parent.index(text)
        parent.remove(text)
        for offset, piece in enumerate(p for p in pieces if str(p) or not isinstance(p, nodes.Text)):
            parent.insert(index + offset, piece)
    return made


def _reference(builder, fromdoc: str, todoc: str, text: str):
    if fromdoc == todoc:
        return nodes.Text(text)
    if builder.name == "singlehtml":
        uri = f"#document-{todoc}"
    else:
        uri = builder.get_relative_uri(fromdoc, todoc)
    return nodes.reference(text, text, internal=True, refuri=uri, classes=["llmfs-chapter-ref"])


def sidebar(tree_html: str, parts, found_docs, pagename: str, pathto) -> str:
    """furo's navigation tree with every course entry, in course order, parts included."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(tree_html, "html.parser")
    items = {}
    for li in soup.find_all("li", class_="toctree-l1"):
        a = li.find("a", recursive=False) or li.find("a")
        if a and a.get("href") is not None:
            # furo links the current page as "#": keep it under "#", not "", so the
            # current page keeps furo's entry (its course label and "current" mark)
            items[a["href"].split("#")[0] or "#"] = li
    out = BeautifulSoup("", "html.parser")
    for part in parts:
        caption = out.new_tag("p", attrs={"class": "caption", "role": "heading"})
        span = out.new_tag("span", attrs={"class": "caption-text"})
        span.string = part.title
        caption.append(span)
        ul = out.new_tag("ul")
        for entry in part.entries:
            doc = document_of(entry, found_docs)
            if doc is not None:
                href = pathto(doc)
                li = items.get("#" if doc == pagename else href) or items.get(href)
                if li is None:
                    li = out.new_tag("li", attrs={"class": "toctree-l1"})
                    a = out.new_tag("a", attrs={"class": "reference internal", "href": href})
                    a.string = entry.title or doc
                    li.append(a)
                ul.append(li)
            else:
                li = out.new_tag("li", attrs={"class": "toctree-l1 llmfs-to-come"})
                li.string = f"{label(entry)} (to come)"
                ul.append(li)
        out.append(caption)
        out.append(ul)
    return str(out)
