#!/usr/bin/env python3
"""Generates the NumPy fixtures of tests/compiler/tensor/test_index_ops.cpp:
nonzero / flatnonzero / argwhere, unique (every return, with and without an
axis, NaNs), bincount (weights, minlength), searchsorted (sides, sorter, NaN),
fill_diagonal (tall, wide, rank 3), Theano's fill_diagonal_offset,
ravel_multi_index / unravel_index (modes, orders), compress and choose.

Run from this folder: python3 gen_index_ops_fixtures.py (needs numpy only).
Each file is named <function>_<case>_<what>.npy; the C++ test names the same
arguments.
"""
import numpy as np


def save(name, a):
    np.save(name + ".npy", np.asarray(a))


def main():
    rng = np.random.default_rng(380)
    # nonzero: a float tensor with NaN and -0.0 (NaN is nonzero, -0.0 is not)
    x = rng.integers(-1, 2, (3, 4, 5)).astype(np.float64)
    x[0, 0, 0] = np.nan
    x[1, 2, 3] = -0.0
    save("nonzero_x", x)
    save("nonzero_out", np.stack(np.nonzero(x)))
    save("flatnonzero_out", np.flatnonzero(x))
    save("argwhere_out", np.argwhere(x))
    # unique
    u = rng.integers(0, 6, (4, 7)).astype(np.float64)
    u[0, 1] = np.nan
    u[3, 3] = np.nan
    save("unique_x", u)
    vals, idx, inv, cnt = np.unique(u, return_index=True, return_inverse=True, return_counts=True)
    save("unique_values", vals)
    save("unique_index", idx)
    save("unique_inverse", inv)
    save("unique_counts", cnt)
    r = np.array([[1, 2, 0], [0, 5, 1], [1, 2, 0], [0, 5, 0], [1, 2, 0]], dtype=np.int64)
    save("unique_rows_x", r)
    vals, idx, inv, cnt = np.unique(r, axis=0, return_index=True, return_inverse=True, return_counts=True)
    save("unique_rows_values", vals)
    save("unique_rows_index", idx)
    save("unique_rows_inverse", inv.reshape(-1))
    save("unique_rows_counts", cnt)
    save("unique_cols_values", np.unique(r, axis=1))
    # bincount
    b = rng.integers(0, 7, 30).astype(np.int64)
    w = rng.standard_normal(30)
    save("bincount_x", b)
    save("bincount_w", w)
    save("bincount_out", np.bincount(b))
    save("bincount_w_out", np.bincount(b, weights=w))
    save("bincount_min_out", np.bincount(b, minlength=12))
    # searchsorted
    a = np.sort(rng.integers(0, 10, 12).astype(np.float64))
    a = np.append(a, np.nan)
    v = np.array([[-1.0, 0.0, 3.0], [9.0, 20.0, np.nan]])
    save("ss_a", a)
    save("ss_v", v)
    save("ss_left", np.searchsorted(a, v))
    save("ss_right", np.searchsorted(a, v, side="right"))
    unsorted = rng.permutation(a[:-1])
    sorter = np.argsort(unsorted, kind="stable")
    save("ss_unsorted", unsorted)
    save("ss_sorter", sorter.astype(np.int64))
    save("ss_sorter_left", np.searchsorted(unsorted, v, sorter=sorter))
    # fill_diagonal
    for name, shape in (("tall", (7, 3)), ("wide", (3, 5)), ("cube", (3, 3, 3))):
        f = rng.standard_normal(shape)
        save(f"fd_{name}_x", f)
        g = f.copy()
        np.fill_diagonal(g, 5.0)
        save(f"fd_{name}_out", g)
    fo = rng.standard_normal((4, 6))
    save("fdo_x", fo)
    for off in (-5, -2, 0, 3, 7):
        g = fo.copy()
        rows = np.arange(4)
        cols = rows + off
        keep = (cols >= 0) & (cols < 6)
        g[rows[keep], cols[keep]] = 5.0
        save(f"fdo_{off}_out".replace("-", "m"), g)
    # ravel_multi_index / unravel_index
    i0 = np.array([[0, 2, -1]], dtype=np.int64).T  # (3, 1)
    i1 = np.array([[1, 5, 3, 7]], dtype=np.int64)  # (1, 4)
    save("rmi_i0", i0)
    save("rmi_i1", i1)
    save("rmi_wrap_C", np.ravel_multi_index((i0, i1), (3, 5), mode="wrap"))
    save("rmi_clip_F", np.ravel_multi_index((i0, i1), (3, 5), mode="clip", order="F"))
    ok0 = np.array([0, 2, 1], dtype=np.int64)
    ok1 = np.array([4, 0, 3], dtype=np.int64)
    save("rmi_ok0", ok0)
    save("rmi_ok1", ok1)
    save("rmi_raise_C", np.ravel_multi_index((ok0, ok1), (3, 5)))
    ui = np.array([[0, 7, 59], [31, 12, 44]], dtype=np.int64)
    save("ui_idx", ui)
    save("ui_C", np.stack(np.unravel_index(ui, (3, 4, 5))))
    save("ui_F", np.stack(np.unravel_index(ui, (3, 4, 5), order="F")))
    # compress and choose
    cx = rng.standard_normal((4, 5))
    cond = np.array([True, False, True])
    save("compress_x", cx)
    save("compress_cond", cond.astype(np.uint8))
    save("compress_axis1", np.compress(cond, cx, axis=1))
    save("compress_none", np.compress(cond, cx))
    ca = np.array([[0, 2, 1, 3], [2, 0, -1, 4]], dtype=np.int64)
    c0 = rng.standard_normal((2, 4))
    c1 = rng.standard_normal((1, 4))
    c2 = np.float64(7.5)
    save("choose_a", ca)
    save("choose_c0", c0)
    save("choose_c1", c1)
    save("choose_wrap", np.choose(ca, (c0, c1, c2), mode="wrap"))
    save("choose_clip", np.choose(ca, (c0, c1, c2), mode="clip"))


if __name__ == "__main__":
    main()
