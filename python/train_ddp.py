#!/usr/bin/python3
"""Continue a book run with DistributedDataParallel: gloo, CPU, several processes.

    /usr/bin/python3 python/train_ddp.py FROM.safetensors TO.safetensors [--steps 2] [--processes 2]
                                         [--corpus build/default/corpus/kjv.txt]

Appendix "Outgrowing one machine". Every process loads the checkpoint FROM (the same
model, AdamW moments and t, batch generator) and the book's training partition of the
extracted corpus encoded with the checkpoint's tokenizer, draws the same global batch of B windows
and keeps windows rank, rank + P, ... (DistributedSampler's split without shuffling);
DDP averages the gradients across the processes with an all-reduce, each process's
torch.optim.AdamW takes the same step, and process 0 writes TO in the book's checkpoint
format. With P dividing B, the mean of the P per-process mean losses is the global mean,
so the averaged gradient is the one-process gradient of the global batch.
"""

import argparse
import os
import socket
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import llmfs_torch as lt  # noqa: E402  (exits with a clear message when torch is missing)
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.parallel import DistributedDataParallel  # noqa: E402


# region: ddp-step
def train_step(run, ddp, rank, world):
    """One step: this process's share of the global batch, averaged gradients, AdamW."""
    batch, tokens = int(run.metadata["config.batch.size"]), int(run.metadata["config.batch.tokens"])
    inputs, targets = lt.draw_batch(run, batch, tokens)  # every process draws the same
    mine = slice(rank, batch, world)                      # DistributedSampler's split
    logits = ddp(inputs[mine])
    loss = F.cross_entropy(logits.reshape(-1, run.model.config.vocab_size), targets[mine].reshape(-1))
    run.optimizer.zero_grad(set_to_none=True)
    loss.backward()                                       # DDP all-reduces: mean over processes
    gradients = [p.grad.clone() for p in run.model.weights]
    run.optimizer.step()
    run.step += 1
    total = loss.detach().clone()
    dist.all_reduce(total)
    return float(total) / world, gradients
# endregion: ddp-step


# region: ddp-worker
def worker(rank, world, port, source, target, steps, gradients_out, corpus):
    torch.set_num_threads(1)
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        run = lt.load_run(source, corpus)
        batch = int(run.metadata["config.batch.size"])
        if batch % world:
            raise ValueError("batch.size %d is not a multiple of %d processes" % (batch, world))
        ddp = DistributedDataParallel(run.model)          # checks every rank holds the same weights
        losses, first = [], None
        for _ in range(steps):
            loss, gradients = train_step(run, ddp, rank, world)
            losses.append(loss)
            first = gradients if first is None else first
        if rank == 0:
            lt.save_run(target, run)
            if gradients_out:
                torch.save({"losses": losses, "gradients": first}, gradients_out)
            print("processes=%d steps=%d losses=[%s] step=%d adamw.t=%d" % (
                world, steps, ",".join("%.6f" % x for x in losses), run.step,
                int(run.optimizer.state[run.model.weights[0]]["step"])), flush=True)
    finally:
        dist.destroy_process_group()
# endregion: ddp-worker


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def continue_run(source, target, steps=2, processes=2, gradients_out=None, corpus=lt.CORPUS):
    """Spawns `processes` gloo workers on localhost; returns when TO is written."""
    if not Path(corpus).is_file():
        raise FileNotFoundError("%s: no extracted corpus (cmake --build --preset default --target corpus)" % corpus)
    mp.spawn(worker, args=(processes, free_port(), str(source), str(target), steps, gradients_out, str(corpus)),
             nprocs=processes, join=True)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source")
    parser.add_argument("target")
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--corpus", default=str(lt.CORPUS))
    args = parser.parse_args(argv)
    continue_run(args.source, args.target, args.steps, args.processes, corpus=args.corpus)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
