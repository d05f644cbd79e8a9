# Sphinx configuration of the book. The source folder is chapters/; this file lives in docs/:
#   /usr/bin/python3 -m sphinx -W --keep-going -b html -c docs chapters build/book/html
# tools/build-book.py runs Doxygen first and passes the XML folder in LLMFS_DOXYGEN_XML.
import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(DOCS / "_ext"))

project = "LLM from Scratch in C++"
author = "the llmfs authors"
copyright = "2026, the llmfs authors"
language = "en"

extensions = [
    "myst_parser",
    "sphinx.ext.mathjax",
    "sphinx_copybutton",
    "breathe",
    "llmfs_book",
]

root_doc = "index"
source_suffix = {".md": "markdown"}
exclude_patterns = ["README.md", "**/README.md"]
templates_path = [str(DOCS / "_templates")]

# Strictness: every cross-reference must resolve (C++ ones included).
nitpicky = True
# Names from the standard library and fmt appear in signatures but are not documented here.
nitpick_ignore_regex = [
    ("cpp:identifier", r"(std|fmt)(::.*)?"),
    ("cpp:identifier", r"(size_t|uint64_t|int64_t|uint32_t|int32_t|uint8_t)"),
]

# MyST: $...$ and $$...$$ math, amsmath environments; MathJax 2 setup left to Sphinx
# (TOOLCHAIN pitfall 1); "$5 or $10" stays text (pitfall 12).
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence"]
myst_update_mathjax = False
myst_dmath_allow_digits = False
myst_heading_anchors = 3

# MathJax 2 served from _static (staged from Debian's libjs-mathjax by llmfs_book, trimmed).
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS_CHTML"
mathjax2_config = {
    "tex2jax": {"inlineMath": [["\\(", "\\)"]], "displayMath": [["\\[", "\\]"]], "processEscapes": True},
    "CommonHTML": {"linebreaks": {"automatic": False}},
    "menuSettings": {"zoom": "None"},
    "showMathMenu": False,
    "messageStyle": "none",
}

# Breathe: Doxygen XML of the public headers src/llmfs/**/*.hpp.
breathe_projects = {"llmfs": os.environ.get("LLMFS_DOXYGEN_XML", str(ROOT / "build" / "book" / "xml"))}
breathe_default_project = "llmfs"
# One API page per folder of src/llmfs/, generated into chapters/reference/api/ (llmfs_api.py).
llmfs_api_dir = "reference/api"
# The general index sorts by name without the namespace (not one "L" section of llmfs::).
# From the namespaces in the XML, in reverse alphabetical order (a longer prefix still comes
# first): Sphinx sorts this list so in place, and any other order made the pickled value
# differ from conf.py's on the next build, which then re-read every page.
if (Path(breathe_projects["llmfs"]) / "index.xml").is_file():
    import llmfs_api
    cpp_index_common_prefix = sorted((n + "::" for n in llmfs_api.namespaces(Path(breathe_projects["llmfs"]))
                                      if n.startswith("llmfs")), reverse=True)
breathe_domain_by_extension = {"hpp": "cpp", "h": "cpp"}
breathe_show_include = False
primary_domain = "cpp"
highlight_language = "cpp"

html_theme = "furo"
# Code colours that meet WCAG AA (4.5:1) on their own backgrounds, token by token: Pygments'
# "default" (light) and "github-dark" (dark); furo's tango/native have tokens at 2.4:1 and 3:1.
pygments_style = "default"
pygments_dark_style = "github-dark"
html_title = project
html_static_path = [str(DOCS / "_static")]
html_css_files = ["llmfs.css"]
html_js_files = ["llmfs.js"]
html_show_sphinx = False
html_copy_source = False
html_show_sourcelink = False
html_theme_options = {"navigation_with_keys": True}

copybutton_prompt_text = r"\$ "
copybutton_prompt_is_regexp = True

llmfs_repo_root = str(ROOT)
llmfs_diagrams_dir = str(DOCS / "_ext" / "diagrams")
