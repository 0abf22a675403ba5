"""Shape and data movement: Iota, and (issue 5) the rest of the family."""
from __future__ import annotations

import numpy as np


def iota(*, iota_dimension, output_dtype, output_shape):
    """XLA Iota: 0, 1, 2, ... along `iota_dimension`, broadcast over the other dimensions."""
    shape = tuple(output_shape)
    ramp = np.arange(shape[iota_dimension], dtype=np.int64).astype(output_dtype)
    view = [1] * len(shape)
    view[iota_dimension] = shape[iota_dimension]
    return np.broadcast_to(ramp.reshape(view), shape).copy()
