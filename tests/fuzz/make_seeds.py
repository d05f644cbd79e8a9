#!/usr/bin/python3
"""Write the fuzzer's seed corpus tests/fuzz/corpus/ (Chapter 35), with a second writer of
the checkpoint format in plain Python (struct, json, hashlib), independent of the C++.

    /usr/bin/python3 tests/fuzz/make_seeds.py          # rewrite the corpus
    /usr/bin/python3 tests/fuzz/make_seeds.py --check  # exit 1 if it differs

Valid seeds (tests/chapters/ch35_checkpoints_test.cpp reads each with the C++ loader, so
a file written by this writer is read by that reader) and damaged ones, each under 1 KB
so that libFuzzer's -max_len=4096 covers them: the tiny file of the Predict, the special
doubles as bit patterns (NaN payloads included), a scalar, a zero-size and a 2-D tensor,
metadata with quotes, newlines and non-ASCII text, a file with no tensor; then truncated,
wrong-version, F32 and duplicate-key files.
"""

import hashlib
import json
import struct
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "corpus"
PREFIX = b'"llmfs.sha256":"'


def seal(data):
    at = data.index(PREFIX) + len(PREFIX)
    zeroed = data[:at] + b"0" * 64 + data[at + 64:]
    return zeroed[:at] + hashlib.sha256(zeroed).hexdigest().encode() + zeroed[at + 64:]


def write(tensors, metadata=None, version="1", dtype="F64"):
    """tensors: [(name, shape, [64-bit patterns])] in file order."""
    meta = dict(metadata or {})
    meta.update({"llmfs.format": "llmfs-checkpoint", "llmfs.format_version": version,
                 "llmfs.sha256": "0" * 64})
    header, data = {"__metadata__": meta}, b""
    for name, shape, words in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + 8 * len(words)]}
        data += b"".join(struct.pack("<Q", w) for w in words)
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=True).encode()
    text += b" " * (-len(text) % 8)
    return seal(struct.pack("<Q", len(text)) + text + data)


def bits(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def seeds():
    tiny = write([("w", [2], [bits(1.0), bits(-2.0)])])
    special = [bits(0.1), bits(-0.0), bits(5e-324), bits(1.7976931348623157e308),
               0x7FF8000000000123, 0xFFF0000000000001, 0x7FF0000000000000, 0xFFF0000000000000]
    duplicate = tiny.replace(b'"w":{"dtype"', b'"w":{"dtype":"F64","dtype"', 1)
    return {
        "valid-tiny": tiny,
        "valid-special": write([("special", [2, 4], special)]),
        "valid-shapes": write([("scalar", [], [bits(3.5)]), ("empty", [0, 3], []),
                               ("matrix", [2, 3], [bits(float(i)) for i in range(6)])]),
        "valid-metadata": write([("b", [1], [bits(1.0)])],
                                {"note": 'a "quoted" value,\nwith a newline', "word": "\u00e9t\u00e9"}),
        "valid-no-tensors": write([], {"step": "0"}),
        "bad-truncated": tiny[:-3],
        "bad-version": write([("w", [1], [bits(1.0)])], version="2"),
        "bad-dtype": write([("w", [1], [bits(1.0)])], dtype="F32"),
        "bad-duplicate": duplicate,
    }


def main(check):
    stale = []
    for name, data in seeds().items():
        path = CORPUS / name
        if check:
            if not path.exists() or path.read_bytes() != data:
                stale.append(name)
        else:
            path.write_bytes(data)
    if stale:
        print("stale seeds: %s; run /usr/bin/python3 tests/fuzz/make_seeds.py" % ", ".join(stale),
              file=sys.stderr)
        return 1
    print("seed corpus %s" % ("is current" if check else "written"))
    return 0


if __name__ == "__main__":
    sys.exit(main("--check" in sys.argv[1:]))
