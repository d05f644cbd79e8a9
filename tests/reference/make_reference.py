#!/usr/bin/python3
"""Write (or check) the PyTorch reference data in tests/reference/data/.

    /usr/bin/python3 tests/reference/make_reference.py            # rewrite every case
    /usr/bin/python3 tests/reference/make_reference.py ch30_fixture  # rewrite some cases
    /usr/bin/python3 tests/reference/make_reference.py --check    # compare with the committed files
    /usr/bin/python3 tests/reference/make_reference.py --list

--check recomputes every case live and compares it with the committed file: same tensor
names and shapes, the drawn inputs bit for bit, computed tensors within a tolerance
(float64: 1e-10 of the tensor's largest magnitude; float32: 1e-4, because float32 results
move in the sixth significant digit between BLAS libraries), and -inf / exact zeros in the
same places. It exits 0 when the data is current, 1 when it is stale, and 2 when torch
cannot be imported: torch is in the project's package list (tools/deps.txt), so a machine
without it is a broken install, and the check fails rather than skipping.
"""

import argparse
import math
import os
import sys
import time

try:
    import torch  # noqa: F401  (imported first so that a missing torch is a clear failure)
except ImportError as error:
    print("parity: FAILED: torch is not importable by %s (%s); install Debian's python3-torch "
          "(tools/install-deps.sh installs everything in tools/deps.txt)." % (sys.executable, error))
    sys.exit(2)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_common as rc  # noqa: E402
import chapter_cases  # noqa: E402

try:
    import parity_cases  # noqa: E402  (the appendix's cases, chapter 40)
    PARITY_CASES = parity_cases.CASES
except ImportError:
    PARITY_CASES = {}

CASES = dict(chapter_cases.CASES)
CASES.update(PARITY_CASES)

SCRIPT = os.path.basename(__file__)
TOLERANCE = {"float64": 1e-10, "float32": 1e-4}


def build(name):
    """Run one case and render its file text."""
    result = CASES[name]()
    seed, description, inputs, tensors = result[:4]
    dtype = result[4] if len(result) > 4 else "float64"
    extra = result[5] if len(result) > 5 else []
    header = rc.header_lines(SCRIPT, seed, description, dtype, inputs) + extra
    return rc.render_case(header, tensors)


# region: value-check
def compare_values(tensor, a, b, tolerance, scale):
    """The first problem between committed values a and live values b (or None), and the
    largest |difference| / scale."""
    probabilities = tensor.split(".")[-1] == "weights"
    worst = 0.0
    for i, (x, y) in enumerate(zip(a, b)):
        # -inf (masked scores) must stay -inf; masked probabilities must stay exactly 0.
        exact = not (math.isfinite(x) and math.isfinite(y)) or (probabilities and 0.0 in (x, y))
        if exact:
            if x != y:
                return "%s[%d]: committed %r, live %r (must match exactly)" % (tensor, i, x, y), worst
            continue
        error = abs(x - y) / scale
        worst = max(worst, error)
        if error > tolerance:
            return ("%s[%d]: committed %.17g, live %.17g (|diff|/max = %.3g > %.0e)"
                    % (tensor, i, x, y, error, tolerance)), worst
    return None, worst
# endregion: value-check


# region: staleness-check
def compare(name, committed_text, fresh_text):
    """Problems (strings) between the committed and the freshly computed file."""
    old_comments, old = rc.parse_case(committed_text)
    new_comments, new = rc.parse_case(fresh_text)
    problems = []
    for key in ("dtype", "inputs", "seed", "case"):
        if old_comments.get(key) != new_comments.get(key):
            problems.append("header '%s' differs: committed %r, live %r"
                            % (key, old_comments.get(key), new_comments.get(key)))
    if list(old) != list(new):
        problems.append("tensor names differ: committed %s, live %s" % (list(old), list(new)))
    inputs = set(new_comments.get("inputs", "").split())
    tolerance = TOLERANCE[new_comments.get("dtype", "float64")]
    worst = 0.0
    for tensor in new:
        if tensor not in old:
            continue
        (old_shape, a), (new_shape, b) = old[tensor], new[tensor]
        if old_shape != new_shape:
            problems.append("%s: shape %s committed, %s live" % (tensor, old_shape, new_shape))
        elif tensor in inputs:
            if a != b:
                problems.append("%s: drawn input differs (must be bit-identical)" % tensor)
        else:
            scale = max([1.0] + [abs(v) for v in b if math.isfinite(v)])
            problem, tensor_worst = compare_values(tensor, a, b, tolerance, scale)
            worst = max(worst, tensor_worst)
            if problem:
                problems.append(problem)
    return problems, worst
# endregion: staleness-check


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cases", nargs="*", help="case names (default: all)")
    parser.add_argument("--check", action="store_true", help="compare with the committed data, write nothing")
    parser.add_argument("--out", default=rc.DATA_DIR, help="output folder (default: tests/reference/data)")
    parser.add_argument("--list", action="store_true", help="list the case names")
    args = parser.parse_args()
    if args.list:
        print("\n".join(CASES))
        return 0
    names = args.cases or list(CASES)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        print("reference: unknown case(s) %s; known: %s" % (unknown, ", ".join(CASES)), file=sys.stderr)
        return 2
    torch.set_num_threads(1)
    started = time.perf_counter()
    stale = 0
    for name in names:
        text = build(name)
        path = os.path.join(args.out if not args.check else rc.DATA_DIR, name + ".txt")
        if not args.check:
            os.makedirs(args.out, exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
            print("reference: wrote %s (%d tensors)" % (os.path.relpath(path), len(rc.parse_case(text)[1])))
            continue
        if not os.path.exists(path):
            print("parity: STALE %s: no committed file %s; run %s" % (name, path, SCRIPT))
            stale += 1
            continue
        with open(path, encoding="utf-8") as handle:
            problems, worst = compare(name, handle.read(), text)
        if problems:
            stale += 1
            print("parity: STALE %s:" % name)
            for problem in problems[:10]:
                print("  " + problem)
        else:
            print("parity: current %s (largest |live - committed| / max = %.2e)" % (name, worst))
    if args.check:
        committed = sorted(f[:-4] for f in os.listdir(rc.DATA_DIR) if f.endswith(".txt"))
        orphans = [c for c in committed if c not in CASES]
        for orphan in orphans:
            print("parity: STALE data/%s.txt: no case in the scripts produces it" % orphan)
        stale += len(orphans)
        print("parity: %d case(s) checked with torch %s in %.1f s; %s"
              % (len(names), torch.__version__, time.perf_counter() - started,
                 "all current" if not stale else "%d stale: re-run /usr/bin/python3 tests/reference/%s "
                 "and review the diff" % (stale, SCRIPT)))
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
