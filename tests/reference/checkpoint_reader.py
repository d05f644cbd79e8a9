"""A reader of the book's checkpoint files (Chapter 35), standard library + NumPy only.

    import sys; sys.path.insert(0, "tests/reference")
    from checkpoint_reader import read_checkpoint, CheckpointError
    tensors, metadata = read_checkpoint("run/step-4.safetensors")

The file is Hugging Face's safetensors layout: an 8-byte little-endian header length N, N
bytes of JSON (per tensor: dtype, shape, data_offsets relative to the data; an optional
__metadata__ object of string -> string), then the raw little-endian tensors. The book's
files add llmfs.format = "llmfs-checkpoint", llmfs.format_version = "1" and llmfs.sha256,
the SHA-256 of the whole file with those 64 hex digits replaced by "0". Every check of
src/llmfs/training/safetensors.cpp is made again here, written from the chapter's rules
and not from the C++: a bad file raises CheckpointError naming the byte offset and stage.
"""

import hashlib
import json
import struct

import numpy as np

MAX_HEADER = 100_000_000
DIGEST_PREFIX = b'"llmfs.sha256":"'


class CheckpointError(Exception):
    """A file the reader refuses: `offset` is the byte, `stage` the step that failed."""

    def __init__(self, offset, stage, message):
        super().__init__("byte %d, %s: %s" % (offset, stage, message))
        self.offset, self.stage = offset, stage


def _no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise CheckpointError(8, "header json", "duplicate key")
    return dict(pairs)


def read_checkpoint(path):
    """({name: float64 ndarray}, {metadata key: value}) of a checked checkpoint file."""
    data = open(path, "rb").read()
    if len(data) < 8:
        raise CheckpointError(len(data), "header length", "truncated")
    (n,) = struct.unpack("<Q", data[:8])
    if n > MAX_HEADER:
        raise CheckpointError(0, "header length", "header too large")
    if n > len(data) - 8:
        raise CheckpointError(len(data), "header length", "truncated")
    header_bytes = data[8:8 + n]
    try:
        header = json.loads(header_bytes.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CheckpointError(8, "header json", str(error)) from None
    metadata = header.pop("__metadata__", {})
    if metadata.get("llmfs.format") != "llmfs-checkpoint":
        raise CheckpointError(8, "version", "not an llmfs checkpoint")
    if metadata.get("llmfs.format_version") != "1":
        raise CheckpointError(8, "version", "unsupported version %r" % metadata.get("llmfs.format_version"))
    # The tensors tile the data: sorted by offsets, each begins where the last ended
    start, end_of_data = 8 + n, len(data)
    entries = sorted(header.items(), key=lambda item: (item[1]["data_offsets"], item[0]))
    position = 0
    tensors = {}
    for name, entry in entries:
        if entry.get("dtype") != "F64":
            raise CheckpointError(8, "tensor entry", "%s: dtype %r" % (name, entry.get("dtype")))
        begin, end = entry["data_offsets"]
        count = int(np.prod(entry["shape"], dtype=np.uint64)) if entry["shape"] else 1
        if begin != position or end - begin != 8 * count:
            raise CheckpointError(start + position, "data offsets", name)
        if start + end > end_of_data:
            raise CheckpointError(end_of_data, "data offsets", "truncated")
        tensors[name] = np.frombuffer(data, dtype="<f8", count=count, offset=start + begin).reshape(entry["shape"])
        position = end
    if start + position != end_of_data:
        raise CheckpointError(start + position, "data offsets", "bytes after the last tensor")
    # The checksum: the digest's place found exactly once, zeroed, the file hashed
    at = header_bytes.find(DIGEST_PREFIX)
    if at < 0 or header_bytes.find(DIGEST_PREFIX, at + 1) >= 0:
        raise CheckpointError(8, "checksum", "digest field not found exactly once")
    digest_at = 8 + at + len(DIGEST_PREFIX)
    zeroed = data[:digest_at] + b"0" * 64 + data[digest_at + 64:]
    if hashlib.sha256(zeroed).hexdigest() != metadata.get("llmfs.sha256"):
        raise CheckpointError(digest_at, "checksum", "checksum mismatch")
    return tensors, metadata
