#!/usr/bin/python3
"""Chapter 39's independent reference: the committed model of the long run, scored by
PyTorch float64 on every token of the first validation document.

    /usr/bin/python3 tests/reference/make_end_to_end_reference.py [CORPUS]          # rewrite
    /usr/bin/python3 tests/reference/make_end_to_end_reference.py [CORPUS] --check  # exit 1 if stale

The model file tools/ch39-kjv-decoder.safetensors is read by checkpoint_reader.py (Chapter
35's reader, written from the format's rules), its merges are applied by the naive BPE of
make_checkpoint_reference.py (no C++), the document is found by Chapter 2's manifest in the
extracted corpus (CORPUS, default build/default/corpus/kjv.txt), framed BOS ... EOS, cut into
windows of T_max every T_max (the last shorter) and run through Chapter 32's PyTorch decoder
(decoder_reference.py). Written: the document, its token count, the summed nats and the
first window's last-position logits' arg max. Without the corpus, --check verifies only
the model file's hash.
"""

import hashlib
import math
import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import torch

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
from checkpoint_reader import read_checkpoint  # noqa: E402
from decoder_reference import DecoderConfig, forward, parameter_specs  # noqa: E402
from make_bigram_reference import read_documents, read_manifest  # noqa: E402
from make_checkpoint_reference import encode  # noqa: E402
from text_common import write_or_check  # noqa: E402

MODEL = ROOT / "tools" / "ch39-kjv-decoder.safetensors"
DATA = HERE / "data" / "models" / "ch39_end_to_end.txt"


def chunks(text):
    """Chapter 3's chunks: cut before every space and newline."""
    out, start = [], 0
    for i in range(1, len(text)):
        if text[i] in " \n":
            out.append(text[start:i])
            start = i
    if start < len(text):
        out.append(text[start:])
    return out


def reference(corpus):
    tensors, meta = read_checkpoint(MODEL)
    c = lambda key: meta["config." + key]  # noqa: E731
    config = DecoderConfig(int(c("V")), int(c("d")), int(c("h")), int(c("N")), int(c("d_ff")),
                           int(c("T_max")), float(c("rope_base")), float(c("epsilon")))
    params = {name: torch.from_numpy(tensors["model." + name].copy())
              for name, _ in parameter_specs(config)}
    split = read_manifest(ROOT / "tools" / "corpus-partitions.tsv")
    title, text = next((t, x) for t, x in read_documents(corpus) if split[t] == "validation")
    merges = meta["tokenizer.merges"]
    ids = [i for chunk in chunks(text.decode("utf-8")) for i in encode(chunk, merges)]
    bos, eos = config.vocab_size - 2, config.vocab_size - 1
    sequence = [bos] + ids + [eos]
    total, count, T = [], 0, config.context_length
    with torch.no_grad():
        for start in range(0, len(sequence) - 1, T):
            width = min(T, len(sequence) - 1 - start)
            window = torch.tensor([sequence[start:start + width]])
            targets = torch.tensor(sequence[start + 1:start + width + 1])
            logits = forward(config, params, window)[0]
            nats = torch.nn.functional.cross_entropy(logits, targets, reduction="none")
            total += nats.tolist()
            count += width
    return "\n".join([
        "# script: tests/reference/make_end_to_end_reference.py (PyTorch %s, float64)" % torch.__version__,
        "MODEL|sha256=%s|selected_step=%s" % (hashlib.sha256(MODEL.read_bytes()).hexdigest(),
                                              meta["selected.step"]),
        "DOCUMENT|title=%s|bytes=%d|tokens=%d" % (title.decode("utf-8") if isinstance(title, bytes) else title,
                                                 len(text), count),
        "NATS|total=%.17g" % math.fsum(total),
    ]) + "\n"


def main(argv):
    check = "--check" in argv
    paths = [a for a in argv if a != "--check"]
    corpus = Path(paths[0]) if paths else ROOT / "build" / "default" / "corpus" / "kjv.txt"
    if not corpus.exists() and check and DATA.exists():
        digest = hashlib.sha256(MODEL.read_bytes()).hexdigest()
        ok = ("sha256=%s|" % digest) in DATA.read_text()
        print("ch39 reference: model hash %s" % ("matches" if ok else "is stale"))
        return 0 if ok else 1
    return write_or_check(DATA, reference(corpus), check,
                          "/usr/bin/python3 tests/reference/make_end_to_end_reference.py")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
