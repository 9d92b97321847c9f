#!/usr/bin/env python3
"""Generates the NumPy fixtures of tests/compiler/tensor/test_subtensor_fixtures.cpp.

Run from this folder: python3 gen_subtensor_fixtures.py (needs numpy only).

slice_grid_cases.npy   int64 (N, 4): start, stop, step, result length; NONE marks
                       a missing bound (Python's None).
slice_grid_values.npy  float64: the results of vec[start:stop:step] concatenated
                       in case order, vec = 10 * arange(7) + 1.
nd_<name>_x.npy / nd_<name>_out.npy   multi-dimensional basic indexing cases.
inc_<name>_{x,y,set,inc}.npy          set_subtensor / inc_subtensor results.
adv_{x,idx,out}.npy, adv_inc_{y,set,inc}.npy  AdvancedSubtensor1 and its updates
                       with repeated indices (inc accumulates: numpy.add.at).
"""
import numpy as np

NONE = np.iinfo(np.int64).min
BOUNDS = [None, -10, -7, -6, -3, -1, 0, 1, 2, 5, 6, 7, 8, 12]
STEPS = [None, 1, 2, 3, -1, -2, -3, 6, -7, 100]


def enc(v):
    return NONE if v is None else v


def main():
    vec = 10.0 * np.arange(7) + 1
    cases, values = [], []
    for start in BOUNDS:
        for stop in BOUNDS:
            for step in STEPS:
                r = vec[start:stop:step]
                cases.append([enc(start), enc(stop), enc(step), len(r)])
                values.extend(r.tolist())
    np.save("slice_grid_cases.npy", np.array(cases, dtype=np.int64))
    np.save("slice_grid_values.npy", np.array(values, dtype=np.float64))

    rng = np.random.default_rng(0)
    x3 = rng.standard_normal((4, 5, 6))
    xi = np.arange(4 * 5 * 6, dtype=np.int32).reshape(4, 5, 6)
    nd_cases = {
        # name: (array, index tuple)
        "a": (x3, (slice(1, 3), slice(None), slice(None, None, -2))),
        "b": (x3, (-1, slice(4, 0, -1))),
        "c": (x3, (slice(None), 2, slice(-2, None))),
        "d": (x3, (slice(None, None, -1), slice(None, None, -1), slice(None, None, -1))),
        "e": (x3, (0, 0, -1)),
        "f": (xi, (slice(10, 20), slice(-100, 100, 2))),
        "g": (xi, (slice(2, 2), 1)),
        "h": (xi, (slice(3, None, -2), slice(None, 1, -1), 5)),
    }
    for name, (a, idx) in nd_cases.items():
        np.save(f"nd_{name}_x.npy", a)
        np.save(f"nd_{name}_out.npy", np.array(a[idx]))  # keeps 0-d results 0-d

    # set / inc with broadcasting of the value.
    xm = rng.standard_normal((5, 4))
    inc_cases = {
        "rows": (xm, (slice(1, 4),), rng.standard_normal((4,))),          # (4,) broadcast over 3 rows
        "col": (xm, (slice(None), 2), rng.standard_normal((5,))),
        "rev": (xm, (slice(None, None, -2), slice(1, None)), rng.standard_normal((3, 3))),
        "scalar": (xm, (2, 3), np.array(7.5)),
    }
    for name, (a, idx, y) in inc_cases.items():
        s = a.copy()
        s[idx] = y
        i = a.copy()
        i[idx] += y
        np.save(f"inc_{name}_x.npy", a)
        np.save(f"inc_{name}_y.npy", y)
        np.save(f"inc_{name}_set.npy", s)
        np.save(f"inc_{name}_inc.npy", i)

    xa = rng.standard_normal((5, 3))
    idx = np.array([4, 0, -1, 2, 4, 0, 4], dtype=np.int64)
    np.save("adv_x.npy", xa)
    np.save("adv_idx.npy", idx)
    np.save("adv_out.npy", xa[idx])
    y = rng.standard_normal((len(idx), 3))
    s = xa.copy()
    s[idx] = y  # last write wins for repeated indices
    i = xa.copy()
    np.add.at(i, idx, y)
    np.save("adv_inc_y.npy", y)
    np.save("adv_inc_set.npy", s)
    np.save("adv_inc_inc.npy", i)


if __name__ == "__main__":
    main()
