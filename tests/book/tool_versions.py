#!/usr/bin/python3
"""tools/build-book.py checks its tools' versions, and rejects a wrong one by name.

The real tools pass (`--check-tools` exits 0 and names Doxygen 1.9.4, Sphinx 5.3, MyST
0.18, Breathe 4.34). Then each version source is faked in turn, and the check must fail
(exit 3) with a message naming the version it found and the one it needs:
  - a `doxygen` script first on PATH that reports 1.9.8;
  - a `breathe`, `sphinx` or `myst_parser` package first on PYTHONPATH whose __version__
    is a later release;
  - no doxygen at all (PATH without it).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD_BOOK = ROOT / "tools" / "build-book.py"


def run(env_changes: dict[str, str]) -> tuple[int, str]:
    env = dict(os.environ, **env_changes)
    result = subprocess.run([sys.executable, str(BUILD_BOOK), "--check-tools"], env=env,
                            capture_output=True, text=True, timeout=120)
    return result.returncode, result.stdout + result.stderr


def main() -> int:
    failures = []
    code, output = run({})
    expected = ["doxygen 1.9.4", "sphinx 5.3.", "myst_parser 0.18.", "breathe 4.34."]
    if code != 0 or any(e not in output for e in expected):
        failures.append(f"the real tools: exit {code}, expected {expected} in:\n{output}")
    else:
        print(f"ok    real tools accepted: {output.strip()}")
    with tempfile.TemporaryDirectory(prefix="llmfs-versions-") as tmp:
        tmp = Path(tmp)
        fake_bin = tmp / "bin"
        fake_bin.mkdir()
        doxygen = fake_bin / "doxygen"
        doxygen.write_text("#!/bin/sh\necho 1.9.8\n", encoding="utf-8")
        doxygen.chmod(0o755)
        cases = [("doxygen 1.9.8 on PATH", {"PATH": f"{fake_bin}:{os.environ.get('PATH', '')}"},
                  ["doxygen 1.9.8 found", "needs 1.9.4"])]
        for module, version, wanted in [("breathe", "4.35.0", "4.34"), ("sphinx", "7.2.6", "5.3"),
                                        ("myst_parser", "2.0.0", "0.18")]:
            package = tmp / module / module
            package.mkdir(parents=True)
            (package / "__init__.py").write_text(f'__version__ = "{version}"\n', encoding="utf-8")
            cases.append((f"{module} {version} on PYTHONPATH", {"PYTHONPATH": str(package.parent)},
                          [f"{module} {version} found", f"needs {wanted}"]))
        empty = tmp / "empty-bin"
        empty.mkdir()
        for tool in ("sh", "env"):
            os.symlink(f"/usr/bin/{tool}", empty / tool)
        cases.append(("no doxygen on PATH", {"PATH": str(empty)}, ["doxygen is not installed"]))
        for name, changes, expected in cases:
            code, output = run(changes)
            missing = [e for e in expected if e not in output]
            if code != 3 or missing:
                failures.append(f"{name}: exit {code} (want 3), missing {missing} in:\n{output}")
                print(f"FAIL  {name}")
            else:
                print(f"ok    {name} rejected: {output.strip().splitlines()[0]}")
    for failure in failures:
        print(failure, file=sys.stderr)
    print(f"tool versions: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
