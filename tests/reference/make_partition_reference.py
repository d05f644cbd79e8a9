#!/usr/bin/python3
"""Write (or check) Chapter 2's partition reference: tests/reference/data/text/ch02_partitions.txt.

    /usr/bin/python3 tests/reference/make_partition_reference.py CORPUS          # rewrite the file
    /usr/bin/python3 tests/reference/make_partition_reference.py CORPUS --check  # exit 1 if stale

CORPUS is the extracted King James text (build/default/corpus/kjv.txt, CMake target `corpus`).
Written independently of the book's C++: the documents are found with a regular expression
over the file, hashes come from Python's hashlib, and the partition rule is applied from
its statement in tools/corpus-partitions.tsv's `rule` line (Chapter 2):

    bucket = int.from_bytes(sha256(title)[:8], "big") % 100
    train 0-89, validation 90-94, test 95-99

The C++ test tests/chapters/ch02_corpus_partitions_test.cpp reads the committed file and
needs no Python. Format: `#` comments, then `key=value` lines:

    corpus_sha256=...             the file's SHA-256
    documents=1189 bytes=...      the whole corpus
    split.train=documents:N bytes:B     (also validation, test; bytes include headings)
    titles.validation=Genesis 9|...     (also test; file order, `|`-separated)
    books.test=N                  distinct books (title minus its chapter number) in test
    leak.line_split=test_lines:N neighbour_in_train:M   each verse hashed alone as "Title:k"
    leak.document_split=test_lines:N verbatim_in_train:M
"""

import hashlib
import re
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from text_common import corpus_main  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "text" / "ch02_partitions.txt"
SPLITS = ("train", "validation", "test")


def bucket(text):
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") % 100


def split_of(b):
    return "train" if b < 90 else "validation" if b < 95 else "test"


def documents(data):
    """(title, bytes in the file, verse lines) for every `# ` heading of the file."""
    found = []
    for m in re.finditer(rb"^# ([^\n]*)\n((?:(?!# )[^\n]*\n)*)", data, re.M):
        found.append((m.group(1).decode("utf-8"), m.end() - m.start(),
                      m.group(2).decode("utf-8").splitlines()))
    if sum(size for _, size, _ in found) != len(data):
        raise SystemExit("the documents found do not cover the file")
    return found


def reference(corpus):
    data = corpus.read_bytes()
    docs = documents(data)
    lines = ["# script: tests/reference/make_partition_reference.py",
             "# reference: Python hashlib SHA-256 and a regular expression over the corpus file",
             "corpus_sha256=" + hashlib.sha256(data).hexdigest(),
             "documents=%d bytes=%d" % (len(docs), len(data))]
    split = [split_of(bucket(title)) for title, _, _ in docs]
    for name in SPLITS:
        chosen = [d for d, s in zip(docs, split) if s == name]
        lines.append("split.%s=documents:%d bytes:%d" % (name, len(chosen),
                                                          sum(size for _, size, _ in chosen)))
    for name in ("validation", "test"):
        lines.append("titles.%s=%s" % (name, "|".join(t for (t, _, _), s in zip(docs, split)
                                                     if s == name)))
    lines.append("books.test=%d" % len({t.rsplit(" ", 1)[0] for (t, _, _), s in zip(docs, split)
                                        if s == "test"}))
    train_verses = {v.split(" ", 1)[1] for (_, _, vs), s in zip(docs, split) if s == "train"
                    for v in vs}
    line_test = line_near = doc_test = doc_verbatim = 0
    for (title, _, verses), s in zip(docs, split):
        by_line = [split_of(bucket("%s:%d" % (title, k))) for k in range(len(verses))]
        for k, verse in enumerate(verses):
            if by_line[k] == "test":
                line_test += 1
                line_near += ((k > 0 and by_line[k - 1] == "train")
                              or (k + 1 < len(verses) and by_line[k + 1] == "train"))
            if s == "test":
                doc_test += 1
                doc_verbatim += verse.split(" ", 1)[1] in train_verses
    lines.append("leak.line_split=test_lines:%d neighbour_in_train:%d" % (line_test, line_near))
    lines.append("leak.document_split=test_lines:%d verbatim_in_train:%d" % (doc_test, doc_verbatim))
    return "\n".join(lines) + "\n"


def main(argv):
    return corpus_main(argv, __doc__, reference, DATA, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
