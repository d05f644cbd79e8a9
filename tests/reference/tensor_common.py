"""What the tensor chapters' NumPy reference scripts share: seeded uniform arrays and the
`NAME|shape=[..]|values=..` line their C++ tests read (tests/support/records.hpp)."""

import numpy as np

from text_common import joined, uniform


def uniform_array(rng, shape):
    """A float64 array of `shape`, its values uniform in [-1, 1) from `rng` (row-major)."""
    return np.array(uniform(rng, int(np.prod(shape))), dtype=np.float64).reshape(shape)


def tensor_line(name, array):
    """`name|shape=[d0,d1]|values=v0,v1,...`, each value with 17 significant digits."""
    array = np.asarray(array, dtype=np.float64)
    shape = ",".join(str(n) for n in array.shape)
    return "%s|shape=[%s]|values=%s" % (name, shape, joined(array.reshape(-1)))
