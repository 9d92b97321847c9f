#!/usr/bin/env python3
"""Generates the NumPy fixtures of tests/compiler/tensor/test_general_index.cpp:
a table of index expressions (integer arrays mixed with slices, newaxis and
ellipsis, adjacent and non-adjacent, boolean masks of several ranks, scalars
beside arrays) over arrays of rank 3 and 4, with numpy's x[idx], x[idx] = y
and numpy.add.at(x, idx, y).

Run from this folder: python3 gen_general_index_fixtures.py (needs numpy only).

cases.txt: one line per case, "name|rank|expression"; the expression is the
text inside x[...]: integers, a:b:c slices, None (newaxis), ... (ellipsis),
I0..I2 (the case's int64 arrays, <name>_I<k>.npy) and B0..B1 (its boolean
masks, <name>_B<k>.npy, saved as uint8). x3.npy (4, 5, 6) and x4.npy
(3, 4, 5, 6) are the indexed arrays; <name>_out.npy is x[idx], <name>_y.npy a
value of its shape, <name>_set.npy x with x[idx] = y, <name>_inc.npy
numpy.add.at(x, idx, y).
"""
import numpy as np

I = lambda *v: np.array(v, dtype=np.int64)

CASES = [
    # name, rank, expression, int arrays, bool masks
    ("a_slice", 3, "I0, 1:4", [I(0, -1, 2)], []),
    ("slice_a_step", 3, ":, I0, ::2", [I(4, 0, -5, 1)], []),
    ("slice_pair", 3, "1:3, I0, I1", [I(0, 4, 2).reshape(3, 1), I(5, -1).reshape(1, 2)], []),
    ("nonadjacent", 3, "I0, :, I1", [I(1, 3, -4), I(0, 5, 2)], []),
    ("scalar_nonadj", 3, "0, :, I0", [I(2, -1, 3, 3)], []),
    ("scalar_adj", 3, "::-1, I0, 2", [I(4, 1).reshape(2, 1) * I(1, 1, 1).reshape(1, 3) - I(0, 1, 2).reshape(1, 3)], []),
    ("newaxis_first", 3, "None, I0, :", [I(3, 0)], []),
    ("newaxis_between", 3, "I0, None, I1", [I(1, 2, 3), I(0, -1, 4)], []),
    ("ellipsis_last", 3, "..., I0", [I(5, 0, 3).reshape(3, 1) * I(1, 1).reshape(1, 2)], []),
    ("ellipsis_first", 4, "I0, ...", [I(2, 0, -1, 1)], []),
    ("mask_full", 3, "B0", [], [None]),
    ("mask_2d", 3, "B0", [], [(4, 5)]),
    ("mask_axis1", 3, ":, B0", [], [(5,)]),
    ("mask_and_array", 3, "B0, I0", [I(4, 0, 2)], [("count3", 4)]),
    ("array_4d", 4, "1:, I0, :, -2:", [I(3, 0, -2, 1).reshape(2, 2)], []),
    ("basic_newaxis", 3, "None, ..., None", [], []),
    ("basic_newaxis_int", 3, "1, None, :, ...", [], []),
    ("three_arrays", 3, "I0, I1, I2", [I(0, 3).reshape(2, 1, 1), I(1, 2, 4).reshape(1, 3, 1), I(5, 0).reshape(1, 1, 2)], []),
    ("mask_last", 3, ":, :, B0", [], [(6,)]),
    ("mask_newaxis", 3, "B0, None", [], [(4, 5)]),
    ("ellipsis_mask", 4, "..., B0", [], [(5, 6)]),
    ("slice_then_array", 3, "2:, I0", [I(1, 1, 3)], []),
    ("array_int_slice", 3, "I0, 1, 1:2", [I(3, 2, 0).reshape(3, 1)], []),
    ("repeats_4d", 4, "I0, :, I1", [I(1, 1, 2), I(0, 0, 4)], []),
]


def main():
    rng = np.random.default_rng(3838)
    xs = {3: rng.standard_normal((4, 5, 6)), 4: rng.standard_normal((3, 4, 5, 6))}
    np.save("x3.npy", xs[3])
    np.save("x4.npy", xs[4])
    lines = []
    for name, rank, expr, ints, masks in CASES:
        x = xs[rank]
        env = {}
        for k, a in enumerate(ints):
            env[f"I{k}"] = a
            np.save(f"{name}_I{k}.npy", a)
        for k, m in enumerate(masks):
            if m is None:
                b = rng.random(x.shape) < 0.4
            elif m[0] == "count3":  # exactly three true entries, to broadcast with a length-3 array
                b = np.zeros(m[1], dtype=bool)
                b[[0, 2, 3]] = True
            else:
                b = rng.random(m) < 0.5
            env[f"B{k}"] = b
            np.save(f"{name}_B{k}.npy", b.astype(np.uint8))
        idx = eval("np.index_exp[" + expr + "]", {"np": np, **env})
        out = x[idx]
        y = rng.standard_normal(out.shape)
        s = x.copy()
        s[idx] = y
        a = x.copy()
        np.add.at(a, idx, y)
        np.save(f"{name}_out.npy", out)
        np.save(f"{name}_y.npy", y)
        np.save(f"{name}_set.npy", s)
        np.save(f"{name}_inc.npy", a)
        lines.append(f"{name}|{rank}|{expr}")
    with open("cases.txt", "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
