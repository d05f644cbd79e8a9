"""Pins NumPy's run-time SIMD dispatch below AVX-512, so reference data is the same on every
x86-64 machine this project runs on. Import it before numpy or torch (which imports numpy).

NumPy 1.24 picks its float64 exp and log loops when it is imported: its own AVX-512F kernels
where the processor has AVX-512F, glibc's exp and log elsewhere. The two differ in the last
bit of some results, so data written on an Intel Xeon with AVX-512 came out different on an
AMD EPYC (Zen 3, AVX2 only) and the reference.*_current checks failed there. With AVX-512
switched off (NPY_DISABLE_CPU_FEATURES), both machines take the same AVX2/FMA3 and glibc
paths. On a machine without AVX-512 this module does nothing: NumPy warns when asked to
disable a feature the processor lacks.
"""

import os
import warnings

_AVX512 = "AVX512F AVX512CD AVX512_SKX AVX512_CLX AVX512_CNL AVX512_ICL"


def _has_avx512f() -> bool:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as cpuinfo:
            return any(line.startswith("flags") and " avx512f" in line for line in cpuinfo)
    except OSError:
        return False


if _has_avx512f():
    os.environ.setdefault("NPY_DISABLE_CPU_FEATURES", _AVX512)
    # The AVX-512 extensions this processor lacks cannot be disabled; NumPy says so once.
    warnings.filterwarnings("ignore", message="During parsing environment variable")
