#!/usr/bin/python3
"""Checks of the appendix "Outgrowing one machine" (ctest: ch43.python_ddp).

    /usr/bin/python3 python/test_ddp.py [CORPUS]   (default build/default/corpus/kjv.txt)

1. C++ -> PyTorch bit for bit: Chapter 35's checkpoint (written by the C++ program) read
   into the PyTorch module and written back is the same file, byte for byte; seeded
   random files written by encode_file() are read back bit for bit by checkpoint_reader.
2. Data: the fast BPE encoder that encodes the training partition gives bpe_encode()'s
   ids on its first 20000 bytes. DDP gradients: one step on 2 gloo processes gives the gradient of a 1-process step
   (plain autograd, no DDP) on the same global batch within 1e-12.
3. The optimizer continues: t and the moments loaded equal the file's; one torch AdamW
   step equals Chapter 22's update written here in float64 within 1e-12; the continued
   file's step and adamw.t are the checkpoint's + 2.
Exits 1 naming the first failed check; torch missing fails with a clear message.
"""

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import llmfs_torch as lt  # noqa: E402  (exits with a clear message when torch is missing)
import train_ddp  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from checkpoint_reader import read_checkpoint  # noqa: E402

TOLERANCE = 1e-12
failures = []


def check(name, ok, detail):
    print("%s %s: %s" % ("ok  " if ok else "FAIL", name, detail))
    if not ok:
        failures.append(name)


def round_trip(scratch):
    out = os.path.join(scratch, "again.safetensors")
    lt.save_run(out, lt.load_run(lt.CH35_CHECKPOINT))
    a, b = lt.CH35_CHECKPOINT.read_bytes(), Path(out).read_bytes()
    same = sum(x == y for x, y in zip(a, b)) if len(a) == len(b) else -1
    check("round_trip_cpp_to_torch", a == b, "%d of %d bytes equal" % (same, len(a)))


def writer_property(scratch, cases=25):
    """Seeded random files (shapes, values with the special doubles, metadata) written by
    encode_file() and read by Chapter 35's independent reader: every value bit for bit."""
    import random
    import numpy as np
    special = [0.1, -0.0, 5e-324, 1.7976931348623157e308, float("inf"), float("-inf")]
    bad = 0
    for seed in range(cases):
        rng = random.Random(seed)
        tensors = []
        for i in range(rng.randint(1, 5)):
            shape = [rng.randint(1, 4) for _ in range(rng.randint(0, 3))]
            count = int(np.prod(shape)) if shape else 1
            values = [rng.choice(special) if rng.random() < 0.2 else rng.gauss(0, 1) for _ in range(count)]
            tensors.append(("t%d.w" % i, torch.tensor(values, dtype=torch.float64).reshape(shape)))
        meta = {"k%d" % rng.randint(0, 99): "v%d\n\"x\"" % seed, "llmfs_case": str(seed)}
        path = os.path.join(scratch, "case.safetensors")
        Path(path).write_bytes(lt.encode_file(tensors, meta))
        got, got_meta = read_checkpoint(path)
        same = all(got[n].tobytes() == v.numpy().tobytes() and list(got[n].shape) == list(v.shape)
                   for n, v in tensors) and all(got_meta[k] == v for k, v in meta.items())
        bad += 0 if same else 1
    check("writer_property_random_files", bad == 0, "%d of %d seeded files read back bit for bit" % (cases - bad, cases))


def encoder_agrees(corpus):
    split = lt.read_manifest(lt.PARTITIONS)
    train = b"".join(t for title, t in lt.read_documents(corpus) if split[title] == "train")[:20000]
    merges = read_checkpoint(lt.CH35_CHECKPOINT)[1]["tokenizer.merges"]
    fast, slow = lt.fast_encode(train, merges), lt.bpe_encode(train.decode("utf-8"), merges)
    check("partition_encoder_equals_bpe_encode", fast == slow,
          "%d bytes -> %d tokens (%d merged)" % (len(train), len(fast), sum(i >= 256 for i in fast)))


def one_process_gradients(corpus):
    run = lt.load_run(lt.CH35_CHECKPOINT, corpus)
    inputs, targets = lt.draw_batch(run, int(run.metadata["config.batch.size"]),
                                    int(run.metadata["config.batch.tokens"]))
    logits = run.model(inputs)
    loss = F.cross_entropy(logits.reshape(-1, run.model.config.vocab_size), targets.reshape(-1))
    loss.backward()
    return float(loss), [p.grad for p in run.model.weights]


def ddp_gradients(scratch, corpus):
    out, grads = os.path.join(scratch, "ddp.safetensors"), os.path.join(scratch, "grads.pt")
    train_ddp.continue_run(lt.CH35_CHECKPOINT, out, steps=2, processes=2, gradients_out=grads, corpus=corpus)
    saved = torch.load(grads)
    loss, reference = one_process_gradients(corpus)
    worst = max(float((a - b).abs().max()) for a, b in zip(saved["gradients"], reference))
    check("ddp_gradients_equal_one_process", worst <= TOLERANCE,
          "max |g_2proc - g_1proc| = %.1e over %d tensors (<= %g); loss %.6f vs %.6f" % (
              worst, len(reference), TOLERANCE, saved["losses"][0], loss))
    check("ddp_loss_equal_one_process", abs(saved["losses"][0] - loss) <= TOLERANCE,
          "|difference| = %.1e" % abs(saved["losses"][0] - loss))
    _, before = read_checkpoint(lt.CH35_CHECKPOINT)
    _, after = read_checkpoint(out)
    check("continued_counters", (int(after["step"]), int(after["adamw.t"])) ==
          (int(before["step"]) + 2, int(before["adamw.t"]) + 2),
          "step %s -> %s, adamw.t %s -> %s" % (before["step"], after["step"], before["adamw.t"], after["adamw.t"]))


def optimizer_continues():
    tensors, meta = read_checkpoint(lt.CH35_CHECKPOINT)
    run = lt.load_run(lt.CH35_CHECKPOINT)
    state = run.optimizer.state
    loaded = all(int(state[p]["step"]) == int(meta["adamw.t"]) and
                 torch.equal(state[p]["exp_avg"], torch.from_numpy(tensors["adamw.m." + n].copy())) and
                 torch.equal(state[p]["exp_avg_sq"], torch.from_numpy(tensors["adamw.v." + n].copy()))
                 for n, p in zip(run.model.names, run.model.weights))
    check("optimizer_state_loaded", loaded, "t = %s and every moment equal bit for bit" % meta["adamw.t"])
    # One step with a fixed gradient, torch's AdamW against Chapter 22's formula
    c = lambda k: float(meta["config.adamw." + k])  # noqa: E731
    lr, b1, b2, eps, wd = c("learning_rate"), c("beta1"), c("beta2"), c("epsilon"), c("weight_decay")
    t = int(meta["adamw.t"]) + 1
    generator = torch.Generator().manual_seed(43)
    worst = 0.0
    expected = []
    for n, p in zip(run.model.names, run.model.weights):
        g = torch.randn(p.shape, dtype=torch.float64, generator=generator)
        p.grad = g
        m = torch.from_numpy(tensors["adamw.m." + n].copy()) * b1 + (1 - b1) * g
        v = torch.from_numpy(tensors["adamw.v." + n].copy()) * b2 + (1 - b2) * g * g
        theta = p.detach() * (1 - lr * (wd if p.dim() >= 2 else 0.0))
        expected.append(theta - lr / (1 - b1 ** t) * m / ((v.sqrt() / (1 - b2 ** t) ** 0.5) + eps))
    run.optimizer.step()
    worst = max(float((p.detach() - e).abs().max()) for p, e in zip(run.model.weights, expected))
    check("adamw_step_matches_chapter_22", worst <= TOLERANCE, "max |theta_torch - theta_book| = %.1e" % worst)


def main(argv):
    corpus = argv[0] if argv else str(lt.CORPUS)
    with tempfile.TemporaryDirectory() as scratch:
        round_trip(scratch)
        writer_property(scratch)
        encoder_agrees(corpus)
        ddp_gradients(scratch, corpus)
    optimizer_continues()
    if failures:
        print("FAILED: %s" % ", ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
