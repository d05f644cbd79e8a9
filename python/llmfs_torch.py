"""The book's decoder as a PyTorch module, and the book's checkpoint files both ways.

    import sys; sys.path.insert(0, "python")
    import llmfs_torch as lt
    run = lt.load_run("tests/reference/data/training/ch35_checkpoint.safetensors")
    logits = run.model(torch.tensor([run.encode("In the beginning")]))
    lt.save_run("continued.safetensors", run)   # the same layout, bytes, checksum

Appendix "Outgrowing one machine" (chapters/appendix-outgrowing-one-machine.md). The
forward pass is Chapter 32's, imported from tests/reference/decoder_reference.py; the
reader is Chapter 35's (tests/reference/checkpoint_reader.py). What this file adds is
the writer (the inverse of the reader, byte for byte what training::save_checkpoint()
writes), the optimizer state handed to torch.optim.AdamW, the book's training partition
(Chapter 2's manifest) encoded with the checkpoint's byte-level BPE, and the batch draws
of Chapter 35's run (SplitMix64 and the bounded draw of Chapter 21) over it.
"""

import hashlib
import json
import os
import struct
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

try:
    import torch
except ImportError as error:  # a clear failure, never a skip
    sys.exit("llmfs_torch: FAILED: torch is not importable by %s (%s); install Debian's "
             "python3-torch (tools/install-deps.sh installs tools/deps.txt)" % (sys.executable, error))

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "reference"))
from checkpoint_reader import read_checkpoint  # noqa: E402
from decoder_reference import DecoderConfig, forward, parameter_specs  # noqa: E402
from make_bigram_reference import read_documents, read_manifest  # noqa: E402
from make_checkpoint_reference import encode as bpe_encode  # noqa: E402

CH35_CHECKPOINT = ROOT / "tests" / "reference" / "data" / "training" / "ch35_checkpoint.safetensors"
PARTITIONS = ROOT / "tools" / "corpus-partitions.tsv"
CORPUS = ROOT / "build" / "default" / "corpus" / "kjv.txt"  # where the build extracts it
MASK64 = (1 << 64) - 1


# region: torch-module
class BookDecoder(torch.nn.Module):
    """Chapter 32's decoder: one torch Parameter per book parameter, in the book's order."""

    def __init__(self, config, values):
        super().__init__()
        self.config = config
        self.names = [name for name, _ in parameter_specs(config)]
        self.weights = torch.nn.ParameterList(
            torch.nn.Parameter(values[name].clone()) for name in self.names)

    def forward(self, ids):
        """Logits [B, T, V] for ids [B, T]: the formulas of decoder_reference.forward()."""
        return forward(self.config, dict(zip(self.names, self.weights)), ids)
# endregion: torch-module


@dataclass
class Run:
    """A checkpoint in PyTorch form: the module, AdamW, and the rest of TrainingState."""
    model: BookDecoder
    optimizer: torch.optim.AdamW
    step: int
    rng_state: int
    metadata: dict = field(default_factory=dict)  # every other metadata entry, as read
    tokens: list = field(default_factory=list)    # the training partition, encoded

    def encode(self, text):
        return bpe_encode(text, self.metadata["tokenizer.merges"])


def merge_ranks(merges_text):
    """[(left, right)] in rank order from the `tokenizer.merges` entry (Chapter 35)."""
    return [tuple(int(x) for x in line.split()[1:]) for line in merges_text.splitlines()[1:]]


def fast_encode(data, merges_text):
    """Byte-level BPE of `data` (bytes), the result of bpe_encode(): each merge in rank
    order, applied to every non-overlapping pair left to right (NumPy, for 3.8 MB)."""
    import numpy as np
    ids = np.frombuffer(data, dtype=np.uint8).astype(np.int64)
    for rank, (left, right) in enumerate(merge_ranks(merges_text)):
        hits = np.flatnonzero((ids[:-1] == left) & (ids[1:] == right))
        if left == right and len(hits):  # runs "aaa": keep the leftmost of each overlap
            keep, last = [], -2
            for i in hits.tolist():
                if i > last + 1:
                    keep.append(i)
                    last = i
            hits = np.array(keep, dtype=np.int64)
        ids[hits] = 256 + rank
        ids = np.delete(ids, hits + 1)
    return ids.tolist()


# region: training-partition
def training_tokens(corpus, merges_text):
    """The book's training partition (Chapter 2's manifest, tools/corpus-partitions.tsv):
    the train documents of the extracted corpus, in corpus order, their text joined and
    encoded with the checkpoint's own byte-level BPE. Refuses a corpus the manifest was not
    made from."""
    data = Path(corpus).read_bytes()
    pinned = dict(line.split("\t") for line in PARTITIONS.read_text().splitlines()
                  if line.startswith("corpus_sha256\t"))["corpus_sha256"]
    if hashlib.sha256(data).hexdigest() != pinned:
        raise ValueError("%s: sha256 is not the corpus_sha256 %s of %s" % (corpus, pinned, PARTITIONS))
    split = read_manifest(PARTITIONS)
    train = b"".join(text for title, text in read_documents(corpus) if split[title] == "train")
    return fast_encode(train, merges_text)
# endregion: training-partition


# region: load-run
def load_run(path, corpus=None):
    """The checkpoint at `path` as a Run; refuses one whose partition is not this tree's.
    With `corpus`, run.tokens is the encoded training partition its batches come from."""
    tensors, meta = read_checkpoint(path)
    c = lambda key: meta["config." + key]  # noqa: E731
    config = DecoderConfig(int(c("model.vocab_size")), int(c("model.model_width")),
                           int(c("model.heads")), int(c("model.layers")),
                           int(c("model.hidden_width")), int(c("model.context_length")),
                           float(c("model.rope_base")), float(c("model.epsilon")))
    partition = hashlib.sha256(PARTITIONS.read_bytes()).hexdigest()
    if meta["data.partition_sha256"] != partition:
        raise ValueError("%s: data.partition_sha256 is %s, this tree's partition manifest "
                         "hashes to %s" % (path, meta["data.partition_sha256"], partition))
    model = BookDecoder(config, {n: torch.from_numpy(tensors["model." + n].copy())
                                 for n in parameter_specs_names(config)})
    # One group per parameter, as the C++ run builds them: lambda on matrices only
    groups = [{"params": [p], "weight_decay": float(c("adamw.weight_decay")) if p.dim() >= 2 else 0.0}
              for p in model.weights]
    optimizer = torch.optim.AdamW(groups, lr=float(c("adamw.learning_rate")),
                                  betas=(float(c("adamw.beta1")), float(c("adamw.beta2"))),
                                  eps=float(c("adamw.epsilon")))
    t = int(meta["adamw.t"])
    for name, p in zip(model.names, model.weights):  # the moments and t carry over
        optimizer.state[p] = {"step": torch.tensor(float(t), dtype=torch.float64),
                              "exp_avg": torch.from_numpy(tensors["adamw.m." + name].copy()),
                              "exp_avg_sq": torch.from_numpy(tensors["adamw.v." + name].copy())}
    kept = {k: v for k, v in meta.items() if not k.startswith("llmfs.")}
    run = Run(model, optimizer, int(meta["step"]), int(meta["rng.state"]), kept)
    if corpus is not None:
        run.tokens = training_tokens(corpus, meta["tokenizer.merges"])
    return run
# endregion: load-run


def parameter_specs_names(config):
    return [name for name, _ in parameter_specs(config)]


# region: batch-draw
def next_u64(state):
    """SplitMix64 (Chapter 6): (new state, output)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def bounded(state, n):
    """Lemire's unbiased draw in [0, n) (Chapter 21's training::bounded): (state, value)."""
    state, x = next_u64(state)
    product = x * n
    if product & MASK64 < n:
        threshold = (2 ** 64 - n) % n
        while product & MASK64 < threshold:
            state, x = next_u64(state)
            product = x * n
    return state, product >> 64


def draw_batch(run, batch, tokens):
    """The next global batch: B windows of T + 1 tokens at random starts in run.tokens,
    drawn with the run's generator as Chapter 35's run draws them."""
    inputs, targets = [], []
    for _ in range(batch):
        run.rng_state, s = bounded(run.rng_state, len(run.tokens) - tokens)
        inputs.append(run.tokens[s:s + tokens])
        targets.append(run.tokens[s + 1:s + tokens + 1])
    return torch.tensor(inputs), torch.tensor(targets)
# endregion: batch-draw


# region: save-run
def encode_file(tensors, metadata):
    """The bytes training::encode_tensor_file() writes: compact JSON header (metadata first,
    sorted, then format, version, a zeroed digest; tensors in order), space-padded to 8,
    little-endian doubles, then the SHA-256 of the file (digest zeroed) put in its place."""
    meta = {key: metadata[key] for key in sorted(metadata)}
    meta.update({"llmfs.format": "llmfs-checkpoint", "llmfs.format_version": "1",
                 "llmfs.sha256": "0" * 64})
    header, offset = {"__metadata__": meta}, 0
    for name, value in tensors:
        size = 8 * value.numel()
        header[name] = {"dtype": "F64", "shape": list(value.shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=True).encode("ascii")
    text += b" " * ((8 - len(text) % 8) % 8)
    data = struct.pack("<Q", len(text)) + text + b"".join(
        value.detach().contiguous().numpy().astype("<f8").tobytes() for _, value in tensors)
    at = 8 + text.index(b'"llmfs.sha256":"') + len(b'"llmfs.sha256":"')
    return data[:at] + hashlib.sha256(data).hexdigest().encode("ascii") + data[at + 64:]


def save_run(path, run):
    """Writes `run` as a book checkpoint, atomically (a temporary file renamed over path)."""
    state = run.optimizer.state
    tensors = [("model." + n, p) for n, p in zip(run.model.names, run.model.weights)]
    for n, p in zip(run.model.names, run.model.weights):
        tensors += [("adamw.m." + n, state[p]["exp_avg"]), ("adamw.v." + n, state[p]["exp_avg_sq"])]
    metadata = dict(run.metadata, step=str(run.step), **{
        "adamw.t": str(int(state[run.model.weights[0]]["step"])), "rng.state": str(run.rng_state)})
    data = encode_file(tensors, metadata)
    fd, temporary = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=".llmfs-")
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(temporary, path)
# endregion: save-run
