#!/usr/bin/python3
"""The long runs' figures and tables are what their scripts draw from the committed logs.

    /usr/bin/python3 tests/book/figures_check.py ROOT

A long run (`make train-ngram`, ...) writes a log; a script in tools/ turns the log into the
files the chapter shows. This check reruns each script on the committed log into a temporary
folder and compares the result with the committed files byte for byte, so a figure can
neither be edited by hand nor drift from its log. A missing log or output is an error.
"""

import filecmp
import subprocess
import sys
import tempfile
from pathlib import Path

# (script, log, the script's output argument, the suffixes it appends to it)
FIGURES = [
    ("tools/plot-ngram-log.py", "docs/_static/ch23-train-ngram.jsonl",
     "docs/_static/ch23-train-ngram", (".svg", ".txt")),
    ("tools/plot-training-log.py", "docs/_static/ch33-train-decoder.jsonl",
     "docs/_static/ch33-train-decoder.svg", ("",)),
    ("tools/plot-ch39-run.py", "docs/_static/ch39-train.jsonl",
     "docs/_static/ch39-run", (".svg", ".txt")),
    ("tools/plot-ch42-run.py", "docs/_static/ch42-train.jsonl",
     "docs/_static/ch42-run", (".svg", ".txt")),
]


def check(root):
    problems = []
    for script, log, prefix, suffixes in FIGURES:
        if not (root / log).is_file():
            problems.append("%s: missing (run the long run that writes it)" % log)
            continue
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / Path(prefix).name
            done = subprocess.run([sys.executable, str(root / script), str(root / log), str(out)],
                                  capture_output=True, text=True)
            if done.returncode != 0:
                problems.append("%s on %s failed: %s" % (script, log, done.stderr.strip()))
                continue
            for suffix in suffixes:
                committed = root / (prefix + suffix)
                if not committed.is_file():
                    problems.append("%s: missing; run %s %s %s" % (committed.relative_to(root), script, log, prefix))
                elif not filecmp.cmp(str(out) + suffix, committed, shallow=False):
                    problems.append("%s differs from what %s draws from %s; rerun the script"
                                    % (committed.relative_to(root), script, log))
    return problems


def main(argv):
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    problems = check(Path(argv[0]))
    for p in problems:
        print("figures: " + p, file=sys.stderr)
    if not problems:
        print("figures: %d long-run figure sets match their logs" % len(FIGURES))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
