#!/usr/bin/python3
"""Write (or check) Chapter 35's reference: tests/reference/data/training/ch35_logits.txt.

    /usr/bin/python3 tests/reference/make_checkpoint_reference.py          # rewrite
    /usr/bin/python3 tests/reference/make_checkpoint_reference.py --check  # exit 1 if stale

Reads the committed checkpoint data/training/ch35_checkpoint.safetensors (the demo's model
after step 8, written by `ch35-checkpoints --save`) with checkpoint_reader.py (standard
library + NumPy, not the C++), builds the decoder's configuration from its metadata, loads
its model.* tensors into the PyTorch float64 decoder of Chapter 32
(decoder_reference.py), encodes the prompt with the merges stored in the checkpoint (the
rule of Chapter 4, written naively: merge the lowest-rank adjacent pair until none is
left; the prompt has no chunk boundary a merge could cross), and writes the logits.
tests/chapters/ch35_checkpoints_test.cpp compares the C++ logits with these within 1e-12.

Records (numbers with 17 significant digits):

    FILE|sha256=..|step=..|tensors=..
    PROMPT|text=In the beginning|ids=..
    LOGITS|position=t|values=v_0,...,v_{V-1}
"""

import hashlib
import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from checkpoint_reader import read_checkpoint  # noqa: E402
from decoder_reference import DecoderConfig, forward, parameter_specs  # noqa: E402
from text_common import script_main  # noqa: E402

CHECKPOINT = HERE / "data" / "training" / "ch35_checkpoint.safetensors"
DATA = HERE / "data" / "training" / "ch35_logits.txt"
PROMPT = "In the beginning"


def encode(text, merges_text):
    """Byte-level BPE with the merges file's lines `id left right` in rank order."""
    lines = merges_text.splitlines()[1:]
    rank = {}
    for r, line in enumerate(lines):
        _, left, right = (int(x) for x in line.split())
        rank[(left, right)] = r
    ids = list(text.encode("utf-8"))
    while True:
        pairs = [(rank[p], i) for i, p in enumerate(zip(ids, ids[1:])) if p in rank]
        if not pairs:
            return ids
        r, i = min(pairs)
        ids[i:i + 2] = [256 + r]


def reference():
    tensors, meta = read_checkpoint(CHECKPOINT)
    c = lambda key: meta["config.model." + key]  # noqa: E731
    config = DecoderConfig(int(c("vocab_size")), int(c("model_width")), int(c("heads")),
                           int(c("layers")), int(c("hidden_width")), int(c("context_length")),
                           float(c("rope_base")), float(c("epsilon")))
    params = {name: torch.from_numpy(tensors["model." + name].copy())
              for name, _ in parameter_specs(config)}
    ids = encode(PROMPT, meta["tokenizer.merges"])
    logits = forward(config, params, torch.tensor([ids]))[0]
    lines = ["FILE|sha256=%s|step=%s|tensors=%d" % (
        hashlib.sha256(CHECKPOINT.read_bytes()).hexdigest(), meta["step"], len(tensors)),
        "PROMPT|text=%s|ids=%s" % (PROMPT, ",".join(str(i) for i in ids))]
    for t, row in enumerate(logits.tolist()):
        lines.append("LOGITS|position=%d|values=%s" % (t, ",".join("%.17g" % v for v in row)))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(script_main(sys.argv[1:], DATA, reference, __file__))
