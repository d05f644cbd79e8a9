#!/usr/bin/python3
"""C++ -> PyTorch -> C++ on one file (ctest: ch43.round_trip_cpp_torch_cpp).

    /usr/bin/python3 python/test_round_trip.py PATH/TO/ch43-outgrowing-one-machine

Appendix "Outgrowing one machine". The chain, end to end:
1. C++: Chapter 35's checkpoint, written by training::save_checkpoint() (the committed
   tests/reference/data/training/ch35_checkpoint.safetensors).
2. PyTorch: llmfs_torch.load_run() builds the module and torch.optim.AdamW from it, and
   save_run() writes them back to a scratch file, without a training step.
3. C++: the appendix's program reads both files with Chapter 35's reader
   (`--round-trip ORIGINAL COPY`) and must report every double bit for bit equal, the
   metadata equal and every byte equal, and exit 0.
4. A bad path: the program exits 2 with an error naming the path, never 0 or a crash.
Exits 1 naming the first failed check.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import llmfs_torch as lt  # noqa: E402  (exits with a clear message when torch is missing)
from checkpoint_reader import read_checkpoint  # noqa: E402

failures = []


def check(name, ok, detail):
    print("%s %s: %s" % ("ok  " if ok else "FAIL", name, detail))
    if not ok:
        failures.append(name)


def main(argv):
    if len(argv) != 1:
        sys.exit("usage: test_round_trip.py PATH/TO/ch43-outgrowing-one-machine")
    program = argv[0]
    tensors, _ = read_checkpoint(lt.CH35_CHECKPOINT)
    values = sum(t.size for t in tensors.values())
    with tempfile.TemporaryDirectory() as scratch:
        copy = os.path.join(scratch, "torch_copy.safetensors")
        lt.save_run(copy, lt.load_run(lt.CH35_CHECKPOINT))  # no step in between
        run = subprocess.run([program, "--round-trip", str(lt.CH35_CHECKPOINT), copy],
                             capture_output=True, text=True, timeout=50)
        line = run.stdout.strip()
        size = lt.CH35_CHECKPOINT.stat().st_size
        wanted = ("round_trip=tensors:%d tensor_count_equal:true values_bit_equal:%d/%d "
                  "metadata_equal:true bytes_equal:%d/%d" % (len(tensors), values, values, size, size))
        check("cpp_reads_torch_copy_bit_for_bit", run.returncode == 0 and line == wanted,
              "exit %d, %r (wanted %r)%s" % (run.returncode, line, wanted,
                                             (" stderr: " + run.stderr.strip()) if run.stderr else ""))
        missing = os.path.join(scratch, "missing.safetensors")
        bad = subprocess.run([program, "--round-trip", str(lt.CH35_CHECKPOINT), missing],
                             capture_output=True, text=True, timeout=50)
        check("bad_path_is_a_typed_error", bad.returncode == 2 and missing in bad.stderr and not bad.stdout,
              "exit %d, stderr %r" % (bad.returncode, bad.stderr.strip()))
    if failures:
        print("FAILED: %s" % ", ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
