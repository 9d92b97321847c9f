#!/usr/bin/env python3
"""Generates the NumPy fixtures of tests/compiler/tensor/test_reduction.cpp.

Inputs x_<dtype>.npy of shape (3, 4, 5). For each reduction and input dtype,
<op>_<dtype>.npy is the concatenation, over the views (plain, transpose(2, 0, 1),
[:, ::-1, ::2]) and then over the axis sets of AXES, of np.<op>(view, axis).ravel().
The C++ test builds the same views and concatenates its results in the same
order. Run from this folder: python3 gen_reduction.py
"""
import numpy as np

rng = np.random.default_rng(1234)
SHAPE = (3, 4, 5)
AXES = [None, 0, 1, 2, -1, (0, 1), (0, 2), (1, 2), (0, 1, 2)]
ARG_AXES = [None, 0, 1, 2, -1]

inputs = {
    "float64": rng.standard_normal(SHAPE),
    "float32": rng.standard_normal(SHAPE).astype(np.float32),
    "int32": rng.integers(-2, 3, SHAPE).astype(np.int32),
    "int8": rng.integers(100, 128, SHAPE).astype(np.int8),  # sums overflow int8
    "uint8": rng.integers(0, 256, SHAPE).astype(np.uint8),
    "bool": rng.random(SHAPE) < 0.7,
}
# A few exact zeros and ties make prod/argmax interesting.
inputs["float64"][0, 1, 2] = 0.0
inputs["float64"][1, 2, 3] = inputs["float64"][1, 2, 4]


def views(x):
    return [x, x.transpose(2, 0, 1), x[:, ::-1, ::2]]


def cat(results):
    return np.concatenate([np.asarray(r).ravel() for r in results])


for name, x in inputs.items():
    np.save(f"x_{name}.npy", x)
    for op in ["sum", "prod", "max", "min", "all", "any"]:
        res = [getattr(np, op)(v, axis=a) for v in views(x) for a in AXES]
        np.save(f"{op}_{name}.npy", cat(res))
    if name in ("float64", "int32", "uint8", "bool"):
        for op in ["argmax", "argmin"]:
            res = [getattr(np, op)(v, axis=a) for v in views(x) for a in ARG_AXES]
            np.save(f"{op}_{name}.npy", cat(res).astype(np.int64))
    if name in ("float64", "float32", "int32"):
        res = [np.mean(v, axis=a) for v in views(x) for a in AXES]
        np.save(f"mean_{name}.npy", cat(res))
        for ddof in (0, 1):
            res = [np.var(v, axis=a, ddof=ddof) for v in views(x) for a in AXES]
            np.save(f"var{ddof}_{name}.npy", cat(res))
            res = [np.std(v, axis=a, ddof=ddof) for v in views(x) for a in AXES]
            np.save(f"std{ddof}_{name}.npy", cat(res))
