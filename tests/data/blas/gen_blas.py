#!/usr/bin/env python3
"""Generates the NumPy fixtures of tests/compiler/tensor/test_blas.cpp.

Per dtype (float64, float32, int32): operands v5a, v5b (5,), v3 (3,), v4 (4,),
A (3, 5), B (5, 4), Z (3, 4) and the results of np.dot for every vector/matrix
combination, np.outer, and the BLAS formulas (gemm, gemv, ger with
alpha=0.75, beta=-1.25). float64 only: tensordot, batched_dot and np.dot of
higher ranks. Run from this folder: python3 gen_blas.py
"""
import numpy as np

rng = np.random.default_rng(4321)
ALPHA, BETA = 0.75, -1.25


def make(shape, dtype):
    if dtype == "int32":
        return rng.integers(-4, 5, shape).astype(np.int32)
    return rng.standard_normal(shape).astype(dtype)


for dt in ["float64", "float32", "int32"]:
    ops = {n: make(s, dt) for n, s in
           [("v5a", (5,)), ("v5b", (5,)), ("v3", (3,)), ("v4", (4,)), ("A", (3, 5)), ("B", (5, 4)), ("Z", (3, 4))]}
    for n, a in ops.items():
        np.save(f"{n}_{dt}.npy", a)
    np.save(f"vv_{dt}.npy", np.dot(ops["v5a"], ops["v5b"]))
    np.save(f"mv_{dt}.npy", np.dot(ops["A"], ops["v5a"]))
    np.save(f"vm_{dt}.npy", np.dot(ops["v3"], ops["A"]))
    np.save(f"mm_{dt}.npy", np.dot(ops["A"], ops["B"]))
    np.save(f"outer_{dt}.npy", np.outer(ops["v3"], ops["v4"]))
    if dt != "int32":
        a, b = dt == "float32" and np.float32(ALPHA) or ALPHA, dt == "float32" and np.float32(BETA) or BETA
        np.save(f"gemm_{dt}.npy", (b * ops["Z"] + a * (ops["A"] @ ops["B"])).astype(dt))
        np.save(f"gemv_{dt}.npy", (b * ops["v3"] + a * (ops["A"] @ ops["v5a"])).astype(dt))
        np.save(f"ger_{dt}.npy", (ops["A"] + a * np.outer(ops["v3"], ops["v5a"])).astype(dt))

x234, x345, x435, x45 = (rng.standard_normal(s) for s in [(2, 3, 4), (3, 4, 5), (4, 3, 5), (4, 5)])
for n, a in [("x234", x234), ("x345", x345), ("x435", x435), ("x45", x45)]:
    np.save(f"{n}.npy", a)
np.save("td_axes2.npy", np.tensordot(x234, x345, 2))
np.save("td_pair.npy", np.tensordot(x234, x435, ([1, 2], [1, 0])))
np.save("td_axes1.npy", np.tensordot(x234, x45, 1))
np.save("td_axes0.npy", np.tensordot(x45, x45[0], 0))
np.save("dot_nd.npy", np.dot(x234, x45))

b324, b345, b34, b3542 = (rng.standard_normal(s) for s in [(3, 2, 4), (3, 4, 5), (3, 4), (3, 5, 4, 2)])
for n, a in [("b324", b324), ("b345", b345), ("b34", b34), ("b3542", b3542)]:
    np.save(f"{n}.npy", a)
np.save("bd_33.npy", np.matmul(b324, b345))
np.save("bd_22.npy", np.einsum("bi,bi->b", b34, b34))
np.save("bd_32.npy", np.einsum("bij,bj->bi", b324, b34))
np.save("bd_23.npy", np.einsum("bi,bij->bj", b34, b345))
np.save("bd_34.npy", np.stack([np.dot(b324[i], b3542[i]) for i in range(3)]))
