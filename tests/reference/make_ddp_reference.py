#!/usr/bin/python3
"""Write (or check) the appendix "Outgrowing one machine" reference (chapter 43).

    /usr/bin/python3 tests/reference/make_ddp_reference.py [CORPUS]          # rewrite
    /usr/bin/python3 tests/reference/make_ddp_reference.py [CORPUS] --check  # exit 1 if stale

CORPUS is the extracted King James text (default build/default/corpus/kjv.txt): the
windows of the two steps come from its training partition (tools/corpus-partitions.tsv).

Continues Chapter 35's committed checkpoint (step 8) for two steps with
DistributedDataParallel on two gloo processes (python/train_ddp.py), and keeps:

    data/training/ch43_continued.safetensors   the continued run, in the book's format
    data/training/ch43_logits.txt              its PyTorch logits on the prompt and its
                                               greedy continuation (float64)

Records of ch43_logits.txt (numbers with 17 significant digits):

    FILE|sha256=..|step=..|adamw_t=..
    RUN|processes=2|steps=2|losses=l_1,l_2     the mean loss of each step over both processes
    DATA|partition=train|bytes=..|tokens=..    the training partition the windows come from:
                                               its bytes, and its tokens under the file's BPE
    PROMPT|text=In the beginning|ids=..
    LOGITS|position=t|values=v_0,...,v_{V-1}
    GREEDY|tokens=n|ids=..

The C++ program of the appendix (snippets/ch43-outgrowing-one-machine) loads the
continued file, compares its own logits with these (1e-12) and its greedy ids with these.
"""

import hashlib
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "python"))
import numpy_dispatch  # noqa: E402,F401  (before numpy: the same SIMD paths on every machine)
import llmfs_torch as lt  # noqa: E402  (exits with a clear message when torch is missing)
import train_ddp  # noqa: E402
import torch  # noqa: E402
from text_common import write_or_check  # noqa: E402

CONTINUED = HERE / "data" / "training" / "ch43_continued.safetensors"
DATA = HERE / "data" / "training" / "ch43_logits.txt"
PROMPT = "In the beginning"
PROCESSES = 2
GREEDY_TOKENS = 2  # 14 prompt tokens + 2 stays within T_max = 16
RERUN = "/usr/bin/python3 tests/reference/make_ddp_reference.py"


def greedy(model, ids, count):
    """argmax of the last position's logits, appended, `count` times (lowest id on ties)."""
    ids = list(ids)
    for _ in range(count):
        ids.append(int(torch.argmax(model(torch.tensor([ids]))[0, -1])))
    return ids


def reference(path, losses, corpus):
    run = lt.load_run(path)
    split = lt.read_manifest(lt.PARTITIONS)
    train = b"".join(t for title, t in lt.read_documents(corpus) if split[title] == "train")
    tokens = lt.training_tokens(corpus, run.metadata["tokenizer.merges"])
    ids = run.encode(PROMPT)
    with torch.no_grad():
        logits = run.model(torch.tensor([ids]))[0]
        continued = greedy(run.model, ids, GREEDY_TOKENS)
    lines = ["FILE|sha256=%s|step=%d|adamw_t=%s" % (hashlib.sha256(Path(path).read_bytes()).hexdigest(),
                                                    run.step, run.metadata["adamw.t"]),
             "RUN|processes=%d|steps=%d|losses=%s" % (PROCESSES, len(losses), ",".join("%.17g" % x for x in losses)),
             "DATA|partition=train|bytes=%d|tokens=%d" % (len(train), len(tokens)),
             "PROMPT|text=%s|ids=%s" % (PROMPT, ",".join(str(i) for i in ids))]
    for t, row in enumerate(logits.tolist()):
        lines.append("LOGITS|position=%d|values=%s" % (t, ",".join("%.17g" % v for v in row)))
    lines.append("GREEDY|tokens=%d|ids=%s" % (GREEDY_TOKENS, ",".join(str(i) for i in continued)))
    return "\n".join(lines) + "\n"


def main(check, corpus):
    with tempfile.TemporaryDirectory() as scratch:
        fresh = os.path.join(scratch, "continued.safetensors")
        side = os.path.join(scratch, "run.pt")
        train_ddp.continue_run(lt.CH35_CHECKPOINT, fresh, steps=2, processes=PROCESSES, gradients_out=side,
                               corpus=corpus)
        losses = torch.load(side)["losses"]
        data = Path(fresh).read_bytes()
        if check:
            if not CONTINUED.exists() or CONTINUED.read_bytes() != data:
                print("%s is stale: run %s and commit the result" % (CONTINUED, RERUN), file=sys.stderr)
                return 1
        else:
            os.replace(fresh, CONTINUED)
            print("wrote %s" % CONTINUED)
        return write_or_check(DATA, reference(CONTINUED, losses, corpus), check, RERUN)


if __name__ == "__main__":
    rest = [a for a in sys.argv[1:] if a != "--check"]
    sys.exit(main("--check" in sys.argv[1:], rest[0] if rest else str(lt.CORPUS)))
