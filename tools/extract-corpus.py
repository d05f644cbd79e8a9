#!/usr/bin/python3
"""Extract the course's corpus, the King James Version, from Debian's bible-kjv package.

    /usr/bin/python3 tools/extract-corpus.py --out build/default/corpus/kjv.txt
    /usr/bin/python3 tools/extract-corpus.py --print-hash   # the hash to pin, writes nothing
    /usr/bin/python3 tools/extract-corpus.py --self-test    # a wrong pin fails, writes nothing

The `bible` program (package bible-kjv, text in bible-kjv-text) prints every chapter as a
blank line, a heading such as `Genesis 1`, a blank line, then one verse per line as
`  N text`. Its line wrapping follows $COLUMNS, so it runs here with `-l1000` (no
wrapping), COLUMNS=80 and LC_ALL=C: the output is then a function of the package alone.

The corpus file has one document per chapter of the Bible, 1,189 in all, in canonical
order. A document is a heading line and its verses, with no blank lines:

    # Genesis 1
    1 In the beginning God created the heaven and the earth.
    2 And the earth was without form, and void; ...

A heading line starts with `# ` (the text itself contains no `#`, which this script
checks); every other line is `N text`, one verse. Every line ends with `\\n`.

The SHA-256 of that file is pinned in tools/corpus.sha256. The file is written to a
temporary name beside --out and renamed only when its hash matches the pin; on a mismatch,
or any other failure, the script names what was wrong (the expected and the found hash,
the package version, the line of `bible` output it could not read), removes the temporary
file, leaves --out as it was, and exits 1.
"""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PIN = ROOT / "tools" / "corpus.sha256"
COMMAND = ["bible", "-l1000", "Gen1:1-Rev22:21"]
HEADING = re.compile(r"^(\S.*) (\d+)$")
VERSE = re.compile(r"^  (\d+) (\S.*)$")


class CorpusError(Exception):
    """A failure to report as `corpus: ...` and exit 1."""


def package_version():
    try:
        result = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "bible-kjv-text"],
                                capture_output=True, text=True, check=False)
    except OSError:
        return "unknown (no dpkg-query)"
    return result.stdout.strip() if result.returncode == 0 else "not installed"


def run_bible():
    if shutil.which("bible") is None:
        raise CorpusError("the `bible` program is missing: install the Debian package "
                          "bible-kjv (tools/install-deps.sh installs tools/deps.txt)")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C", "COLUMNS": "80"}
    result = subprocess.run(COMMAND, capture_output=True, env=env, check=False)
    if result.returncode != 0:
        raise CorpusError("`%s` exited with %d: %s" % (" ".join(COMMAND), result.returncode,
                                                        result.stderr.decode(errors="replace")))
    return result.stdout


def to_documents(output):
    """bible's output -> the corpus text and its number of documents."""
    try:
        text = output.decode("ascii")
    except UnicodeDecodeError as error:
        raise CorpusError("`bible` printed a non-ASCII byte at offset %d" % error.start)
    lines, documents = [], 0
    for number, line in enumerate(text.split("\n"), start=1):
        if not line:
            continue
        verse = VERSE.match(line)
        heading = None if verse else HEADING.match(line)
        if "#" in line or not (verse or heading):
            raise CorpusError("line %d of `bible` output is neither a heading nor a verse: %r"
                              % (number, line[:80]))
        if heading:
            documents += 1
            lines.append("# %s %s" % (heading.group(1), heading.group(2)))
        elif documents == 0:
            raise CorpusError("line %d of `bible` output is a verse before any heading" % number)
        else:
            lines.append("%s %s" % (verse.group(1), verse.group(2)))
    return ("\n".join(lines) + "\n").encode("ascii"), documents


def pinned_hash(pin):
    for line in pin.read_text(encoding="ascii").splitlines():
        if line and not line.startswith("#"):
            return line.split()[0]
    raise CorpusError("%s holds no hash line" % pin)


def extract(out, pin):
    data, documents = to_documents(run_bible())
    found = hashlib.sha256(data).hexdigest()
    expected = pinned_hash(pin)
    if found != expected:
        raise CorpusError("SHA-256 mismatch for the extracted King James text: expected %s "
                          "(%s), found %s (bible-kjv-text %s, %d documents, %d bytes); %s "
                          "was not written" % (expected, pin.name, found, package_version(),
                                               documents, len(data), out))
    out.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=out.name + ".", suffix=".tmp", dir=out.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
        os.replace(temporary, out)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    print("corpus: %s: %d documents, %d bytes, sha256 %s (bible-kjv-text %s)"
          % (out, documents, len(data), found, package_version()))


def self_test():
    """A wrong pin must fail, name both hashes and leave no file behind."""
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        wrong = work / "wrong.sha256"
        wrong.write_text("0" * 64 + "  kjv.txt\n", encoding="ascii")
        out = work / "kjv.txt"
        result = subprocess.run([sys.executable, __file__, "--out", str(out), "--pin", str(wrong)],
                                capture_output=True, text=True, check=False)
        found = hashlib.sha256(to_documents(run_bible())[0]).hexdigest()
        problems = []
        if result.returncode != 1:
            problems.append("exit status %d, not 1" % result.returncode)
        if "0" * 64 not in result.stderr or found not in result.stderr:
            problems.append("the message does not name both hashes: %r" % result.stderr)
        if list(work.iterdir()) != [wrong]:
            problems.append("files were left behind: %s" % sorted(p.name for p in work.iterdir()))
        if problems:
            print("corpus self-test FAILED: " + "; ".join(problems), file=sys.stderr)
            return 1
    print("corpus self-test: a wrong pin fails with both hashes named and writes nothing")
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="where to write the corpus")
    parser.add_argument("--pin", type=Path, default=PIN, help="the file holding the SHA-256")
    parser.add_argument("--print-hash", action="store_true", help="print the hash, write nothing")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args(argv)
    try:
        if args.self_test:
            return self_test()
        if args.print_hash:
            data, documents = to_documents(run_bible())
            print("%s  kjv.txt  (%d documents, %d bytes, bible-kjv-text %s)"
                  % (hashlib.sha256(data).hexdigest(), documents, len(data), package_version()))
            return 0
        if args.out is None:
            parser.error("--out is required")
        extract(args.out, args.pin)
        return 0
    except CorpusError as error:
        print("corpus: %s" % error, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
