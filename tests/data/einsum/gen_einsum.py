#!/usr/bin/env python3
"""Generates the NumPy fixtures of tests/compiler/tensor/test_einsum.cpp.

einsum: for each row of CASES (subscripts, dtype, operand shapes), the
operands case<i>_<j>.npy and np.einsum's result case<i>.npy; cases.txt lists
the rows as `i|subscripts|dtype|number of operands` for the test to read.
matmul: np.matmul of broadcast batch shapes (mm<i>_a.npy, mm<i>_b.npy,
mm<i>.npy, listed in matmul.txt as `i|shape a|shape b`).
batched_tensordot: a loop of np.tensordot over the batch (btd<i>_*.npy, in
btd.txt as `i|axes a|axes b`, empty lists meaning an int count in axes a).
Run from this folder: python3 gen_einsum.py
"""
import numpy as np

rng = np.random.default_rng(3838)

CASES = [
    ("ij,jk->ik", "float64", [(3, 4), (4, 5)]),
    ("ij,jk", "float64", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", "float64", [(2, 3, 4), (2, 4, 5)]),
    ("ii->i", "float64", [(4, 4)]),
    ("ii", "float64", [(4, 4)]),
    ("ij->ji", "float64", [(3, 4)]),
    ("ij->", "float64", [(3, 4)]),
    ("i,i->", "float64", [(5,), (5,)]),
    ("i,j->ij", "float64", [(3,), (4,)]),
    ("...ij,...jk->...ik", "float64", [(2, 3, 4, 5), (3, 5, 2)]),
    ("...ij,jk", "float64", [(2, 3, 4), (4, 5)]),
    ("bhqd,bhkd->bhqk", "float64", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("abc,cd,de->abe", "float64", [(2, 3, 4), (4, 5), (5, 3)]),
    ("ij,jk,kl->il", "float64", [(3, 4), (4, 5), (5, 2)]),
    ("iij->ij", "float64", [(3, 3, 4)]),
    ("bii->b", "float64", [(2, 3, 3)]),
    ("ijk->kji", "float64", [(2, 3, 4)]),
    ("ij,ij->ij", "float64", [(3, 4), (3, 4)]),
    ("ij,ij->", "float64", [(3, 4), (3, 4)]),
    ("ij,kj->ik", "float64", [(3, 4), (5, 4)]),
    ("ab,ab,ab->a", "float64", [(3, 4), (3, 4), (3, 4)]),
    ("i,ij,j->", "float64", [(3,), (3, 4), (4,)]),
    ("...i,...i->...", "float64", [(2, 3, 4), (3, 4)]),
    ("bn,anm,bm->ba", "float64", [(2, 3), (4, 3, 5), (2, 5)]),
    ("ij,j->i", "float64", [(3, 4), (1,)]),
    ("Ab,bA->A", "float64", [(3, 4), (4, 3)]),
    ("ijkl->jl", "float64", [(2, 3, 4, 5)]),
    ("b i j , b j k -> b k i", "float32", [(3, 2, 4), (3, 4, 5)]),
    ("ij,jk->ik", "int32", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", "int64", [(2, 3, 4), (2, 4, 5)]),
]


def make(shape, dtype):
    if dtype.startswith("int"):
        return rng.integers(-4, 5, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


with open("cases.txt", "w") as f:
    for i, (sub, dt, shapes) in enumerate(CASES):
        ops = [make(s, dt) for s in shapes]
        for j, a in enumerate(ops):
            np.save(f"case{i}_{j}.npy", a)
        np.save(f"case{i}.npy", np.asarray(np.einsum(sub, *ops)))
        f.write(f"{i}|{sub}|{dt}|{len(ops)}\n")

MATMUL = [((2, 3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((3, 4), (6, 4, 5)), ((6, 3, 4), (4, 5)),
          ((4,), (2, 4, 5)), ((2, 3, 4), (4,)), ((1, 3, 4), (7, 4, 2)), ((2, 1, 3, 4), (1, 2, 4, 3))]
with open("matmul.txt", "w") as f:
    for i, (sa, sb) in enumerate(MATMUL):
        a, b = make(sa, "float64"), make(sb, "float64")
        np.save(f"mm{i}_a.npy", a)
        np.save(f"mm{i}_b.npy", b)
        np.save(f"mm{i}.npy", np.matmul(a, b))
        f.write(f"{i}|{','.join(map(str, sa))}|{','.join(map(str, sb))}\n")

# batched_tensordot: (shape a, shape b, axes) with axes an int or two lists.
BTD = [((2, 3, 4), (2, 4, 5), 1), ((2, 3, 4, 5), (2, 4, 5, 6), 2), ((3, 4, 2, 5), (3, 5, 4), ([1, 3], [2, 1])),
       ((2, 3), (2, 3, 4), ([1], [1])), ((2, 3, 4), (2, 5), 0)]
with open("btd.txt", "w") as f:
    for i, (sa, sb, axes) in enumerate(BTD):
        a, b = make(sa, "float64"), make(sb, "float64")
        if isinstance(axes, int):
            ax = list(range(a.ndim - axes, a.ndim))
            bx = list(range(1, 1 + axes))
        else:
            ax, bx = axes
        out = np.stack([np.tensordot(a[k], b[k], ([x - 1 for x in ax], [y - 1 for y in bx])) for k in range(a.shape[0])])
        np.save(f"btd{i}_a.npy", a)
        np.save(f"btd{i}_b.npy", b)
        np.save(f"btd{i}.npy", out)
        spec = str(axes) if isinstance(axes, int) else ",".join(map(str, ax)) + ";" + ",".join(map(str, bx))
        f.write(f"{i}|{','.join(map(str, sa))}|{','.join(map(str, sb))}|{spec}\n")
