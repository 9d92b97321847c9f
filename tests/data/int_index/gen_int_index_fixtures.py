#!/usr/bin/env python3
"""Generates the NumPy fixtures of tests/compiler/tensor/test_int_array_index.cpp:
indexing with integer arrays of any rank (numpy's advanced indexing with the
arrays leading or alone on one axis, the other axes whole), and set / inc
through it (inc accumulates repeated indices: numpy.add.at).

Run from this folder: python3 gen_int_index_fixtures.py (needs numpy only).

x.npy                 float64 (4, 5, 6), the indexed array.
<case>_i0.npy, _i1.npy  the int64 index arrays of a case (negatives, repeats).
<case>_out.npy        x[index] as numpy computes it.
<case>_y.npy, _set.npy, _inc.npy   a value of x[index]'s shape, x with
                      x[index] = y, and numpy.add.at(x, index, y).
Cases (the C++ test names the same index expressions):
  m0   x[I]          I (2, 3) on axis 0
  m1   x[:, J]       J (2, 3) on axis 1
  m2   x[:, :, K]    K (2, 2, 2) on axis 2
  t0   x[T]          T (2, 1, 3) on axis 0
  p2   x[A, B]       A (3, 1), B (1, 2) broadcast to (3, 2)
  s2   x[A2, 4]      A2 (2, 2) with a scalar, broadcast to (2, 2)
"""
import numpy as np


def main():
    rng = np.random.default_rng(38)
    x = rng.standard_normal((4, 5, 6))
    np.save("x.npy", x)
    cases = {
        "m0": ((np.array([[0, -1, 2], [3, 3, -4]]),), lambda i: (i[0],)),
        "m1": ((np.array([[4, 0, -5], [1, 1, 2]]),), lambda i: (slice(None), i[0])),
        "m2": ((np.array([[[5, 0], [-1, 2]], [[3, 3], [-6, 1]]]),), lambda i: (slice(None), slice(None), i[0])),
        "t0": ((np.array([[[1, 0, -1]], [[2, 2, 3]]]),), lambda i: (i[0],)),
        "p2": ((np.array([[0], [3], [-1]]), np.array([[4, -5]])), lambda i: (i[0], i[1])),
        "s2": ((np.array([[1, -2], [3, 1]]),), lambda i: (i[0], 4)),
    }
    for name, (arrays, expr) in cases.items():
        idx = expr(arrays)
        for k, a in enumerate(arrays):
            np.save(f"{name}_i{k}.npy", a.astype(np.int64))
        out = x[idx]
        np.save(f"{name}_out.npy", out)
        y = rng.standard_normal(out.shape)
        s = x.copy()
        s[idx] = y  # repeated positions: numpy keeps the last write
        a = x.copy()
        np.add.at(a, idx, y)
        np.save(f"{name}_y.npy", y)
        np.save(f"{name}_set.npy", s)
        np.save(f"{name}_inc.npy", a)


if __name__ == "__main__":
    main()
