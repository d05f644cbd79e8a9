#!/usr/bin/python3
"""Static checks of the book's sources (no Sphinx build needed).

    book_checks.py regions ROOT   two-way region check
    book_checks.py fences  ROOT   no hand-typed code in chapters
    book_checks.py predict ROOT   every Predict section folds the program's answer
    book_checks.py predict --self-test   the predict check fails an unfolded section

regions: every `{region} PATH#NAME` in chapters/**/*.md names a file whose markers are
well-formed and balanced and that defines NAME exactly once; every region defined in
src/ or snippets/ is shown by exactly one chapter listing; every marker in src/ and snippets/ is
well-formed and balanced (even in files no chapter shows yet).

fences: chapters contain no fenced code block whose info string is not a `{directive}`,
no indented code block, and no directive that shows hand-typed code (code-block, code,
sourcecode, literalinclude, raw): code comes from {region}, output from {demo-output}.
Chapters are tokenized with MyST's own parser, so what is checked is what Sphinx sees.

predict: every chapter section headed "## Predict..." (with its ### subsections) holds at
least one {answer} (the program's answer folded in a closed <details>) and shows no
{demo-output} outside one: the output must not sit in plain view under the questions.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))

import llmfs_regions  # noqa: E402
from myst_parser.config.main import MdParserConfig  # noqa: E402
from myst_parser.parsers.mdit import create_md_parser  # noqa: E402
from markdown_it.renderer import RendererHTML  # noqa: E402

FORBIDDEN_DIRECTIVES = {"code-block", "code", "sourcecode", "literalinclude", "raw", "highlight", "include", "eval-rst"}
# Directives whose body is Markdown (admonitions and the like): their content is checked too.
MARKDOWN_BODY = {"note", "tip", "hint", "important", "warning", "caution", "attention", "danger", "error",
                 "admonition", "seealso", "dropdown", "topic", "sidebar", "container", "div", "answer"}


def _parser():
    config = MdParserConfig(enable_extensions=["dollarmath", "amsmath", "colon_fence"], dmath_allow_digits=False)
    return create_md_parser(config, RendererHTML)


def chapter_files(root: Path) -> list[Path]:
    return sorted(p for p in (root / "chapters").rglob("*.md") if p.name != "README.md")


def directives(text: str, offset: int = 0):
    """Yield (token_type, name, argument, line, body) for fences in text; recurse into Markdown bodies."""
    md = _parser()
    for token in md.parse(text):
        line = offset + (token.map[0] + 1 if token.map else 0)
        if token.type in ("fence", "colon_fence"):
            info = token.info.strip()
            if info.startswith("{") and "}" in info:
                name = info[1:info.index("}")]
                argument = info[info.index("}") + 1:].strip()
                yield token.type, name, argument, line, token.content
                if name in MARKDOWN_BODY:
                    # body lines start one line after the fence opening (options would shift it)
                    yield from directives(token.content, line)
            else:
                yield token.type, None, info, line, token.content
        elif token.type == "code_block":
            yield "code_block", None, "", line, token.content


def check_fences(root: Path) -> list[str]:
    problems = []
    for path in chapter_files(root):
        rel = path.relative_to(root)
        for kind, name, argument, line, _ in directives(path.read_text(encoding="utf-8")):
            if kind == "code_block":
                problems.append(f"{rel}:{line}: indented code block (hand-typed code): show a {{region}} instead, "
                                f"or un-indent the text if it is prose")
            elif name is None:
                problems.append(f"{rel}:{line}: hand-typed fenced code block ```{argument}: show a {{region}} of "
                                f"real source or a {{demo-output}}; commands go in inline code")
            elif name in FORBIDDEN_DIRECTIVES:
                problems.append(f"{rel}:{line}: {{{name}}} shows hand-typed or unchecked code: use {{region}}")
    return problems


def region_references(root: Path):
    for path in chapter_files(root):
        rel = path.relative_to(root)
        for _, name, argument, line, _ in directives(path.read_text(encoding="utf-8")):
            if name == "region":
                yield f"{rel}:{line}", argument


def defined_regions(root: Path, problems: list[str]) -> dict[tuple[str, str], llmfs_regions.Region]:
    found = {}
    for top in ("src", "snippets"):
        for path in sorted((root / top).rglob("*")):
            if not path.is_file() or path.suffix not in llmfs_regions.SOURCE_SUFFIXES:
                continue
            rel = str(path.relative_to(root))
            try:
                regions = llmfs_regions.parse_text(path.read_text(encoding="utf-8"), rel)
            except llmfs_regions.RegionError as error:
                problems.append(str(error))
                continue
            except UnicodeDecodeError:
                continue
            for name, region in regions.items():
                found[(rel, name)] = region
    return found


def check_regions(root: Path) -> list[str]:
    problems: list[str] = []
    defined = defined_regions(root, problems)
    shown: dict[tuple[str, str], list[str]] = {}
    for where, argument in region_references(root):
        try:
            relpath, name = llmfs_regions.split_reference(argument)
        except ValueError as error:
            problems.append(f"{where}: {error}")
            continue
        path = root / relpath
        if not path.is_file():
            problems.append(f"{where}: {relpath}#{name}: {relpath} does not exist")
            continue
        try:
            regions = llmfs_regions.parse_text(path.read_text(encoding="utf-8"), relpath)
        except llmfs_regions.RegionError as error:
            problems.append(f"{where}: {relpath}#{name}: {error}")
            continue
        if name not in regions:
            problems.append(f"{where}: {relpath}#{name}: no such region in {relpath} "
                            f"(its regions: {', '.join(sorted(regions)) or 'none'})")
            continue
        shown.setdefault((relpath, name), []).append(where)
    for (relpath, name), places in sorted(shown.items()):
        if len(places) > 1:
            problems.append(f"{places[1]}: {relpath}#{name} is shown {len(places)} times "
                            f"({', '.join(places)}): a region is shown exactly once; split it "
                            f"or refer to the first listing in prose")
    for (relpath, name), region in sorted(defined.items()):
        if (relpath, name) not in shown:
            problems.append(f"{relpath}:{region.start}: region '{name}' is defined but no chapter shows it "
                            f"(show it with a {{region}} {relpath}#{name}, or remove the markers)")
    return problems


def predict_problems(text: str, rel: str) -> tuple[list[str], int]:
    """The Predict sections of one chapter's text: (problems, number of sections)."""
    tokens = _parser().parse(text)
    problems, sections = [], 0
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if not (token.type == "heading_open" and token.tag == "h2"
                and tokens[i + 1].content.strip().startswith("Predict")):
            i += 1
            continue
        sections += 1
        line = token.map[0] + 1
        title = tokens[i + 1].content.strip()
        answers, unfolded = 0, []
        i += 1
        while i < len(tokens) and not (tokens[i].type == "heading_open" and tokens[i].tag in ("h1", "h2")):
            t = tokens[i]
            if t.type in ("fence", "colon_fence") and t.info.strip().startswith("{"):
                name = t.info.strip()[1:t.info.strip().index("}")]
                if name == "answer":
                    answers += 1
                elif name == "demo-output":
                    unfolded.append(t.map[0] + 1)
            i += 1
        if not answers:
            problems.append(f"{rel}:{line}: '## {title}' folds no answer: put the program's output and the "
                            f"prose that explains it in a :::{{answer}} block under the questions")
        for where in unfolded:
            problems.append(f"{rel}:{where}: a {{demo-output}} in '## {title}' outside an {{answer}} block "
                            f"gives the answer away under the questions: move it into the :::{{answer}}")
    return problems, sections


def check_predict(root: Path) -> list[str]:
    problems = []
    for path in chapter_files(root):
        found, _ = predict_problems(path.read_text(encoding="utf-8"), str(path.relative_to(root)))
        problems += found
    return problems


def predict_self_test() -> int:
    """The predict check fails an unfolded Predict section and one without an answer, and
    passes a folded one (a demo output outside Predict is not its business)."""
    fence, colons = "`" * 3, ":::"
    demo = f"{fence}{{demo-output}} ch00-the-parts-of-an-llm\n:keys: prompt\n{fence}\n"
    cases = [
        ("unfolded", f"# C\n\n## Predict\n\nQ?\n\n{demo}\nWhy.\n\n## Derive\n", 2),
        ("no answer", "# C\n\n## Predict before you run\n\nQ?\n\n### Sub\n\nText.\n", 1),
        ("folded", f"# C\n\n## Predict\n\nQ?\n\n{colons}{{answer}}\n{demo}\nWhy.\n{colons}\n\n## Build\n\n{demo}", 0),
    ]
    failures = 0
    for name, text, wanted in cases:
        problems, sections = predict_problems(text, name)
        ok = len(problems) == wanted and sections == 1
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {len(problems)} problem(s), want {wanted}: {problems}")
    print(f"book predict self-test: {failures} failure(s)")
    return 1 if failures else 0


def main(argv: list[str]) -> int:
    if argv[1:] == ["predict", "--self-test"]:
        return predict_self_test()
    if len(argv) != 3 or argv[1] not in ("regions", "fences", "predict"):
        print(__doc__, file=sys.stderr)
        return 2
    root = Path(argv[2]).resolve()
    checks = {"regions": check_regions, "fences": check_fences, "predict": check_predict}
    problems = checks[argv[1]](root)
    for problem in problems:
        print(problem)
    chapters = len(chapter_files(root))
    if problems:
        print(f"book {argv[1]}: {len(problems)} problem(s) in {chapters} chapter file(s) and the sources")
        return 1
    if argv[1] == "regions":
        count = len(list(region_references(root)))
        print(f"book regions: {count} references in {chapters} chapter files, all defined exactly once; "
              f"every region in src/ and snippets/ is shown")
    elif argv[1] == "predict":
        sections = sum(predict_problems(p.read_text(encoding="utf-8"), p.name)[1] for p in chapter_files(root))
        print(f"book predict: {sections} Predict sections in {chapters} chapter files, every one folds its answer")
    else:
        print(f"book fences: {chapters} chapter files, no hand-typed code")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
