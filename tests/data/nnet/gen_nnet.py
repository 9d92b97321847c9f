#!/usr/bin/env python3
"""Generates the NumPy fixtures of tests/compiler/tensor/test_nnet.cpp.

softmax / log_softmax (computed in float64 with the max subtracted, then cast)
of x (3, 5), of 1000 * x (overflows a naive exp), of t (2, 3, 4) along axis 1,
and of a float32 copy; cross-entropies of coding (4, 5) with integer labels,
one-hot and probability targets; binary cross-entropy. Run from this folder.
"""
import numpy as np

rng = np.random.default_rng(99)


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


x = rng.standard_normal((3, 5))
t = rng.standard_normal((2, 3, 4))
np.save("x.npy", x)
np.save("t.npy", t)
np.save("x32.npy", x.astype(np.float32))
for name, arr, axes in [("x", x, (-1, 0)), ("big", 1000 * x, (-1,)), ("t", t, (1,))]:
    for ax in axes:
        np.save(f"softmax_{name}_{ax}.npy", softmax(arr, ax))
        np.save(f"log_softmax_{name}_{ax}.npy", log_softmax(arr, ax))
np.save("softmax_x32.npy", softmax(x, -1).astype(np.float32))

coding = softmax(rng.standard_normal((4, 5)), -1)
labels = np.array([0, 4, 2, 2], dtype=np.int32)
onehot = np.eye(5)[labels]
probs = softmax(rng.standard_normal((4, 5)), -1)
np.save("coding.npy", coding)
np.save("labels.npy", labels)
np.save("onehot.npy", onehot)
np.save("probs.npy", probs)
np.save("ce_labels.npy", -np.log(coding[np.arange(4), labels]))
np.save("ce_onehot.npy", -(onehot * np.log(coding)).sum(-1))
np.save("ce_probs.npy", -(probs * np.log(coding)).sum(-1))

out = 1 / (1 + np.exp(-rng.standard_normal((3, 4))))
target = rng.random((3, 4))
np.save("bce_output.npy", out)
np.save("bce_target.npy", target)
np.save("bce.npy", -(target * np.log(out) + (1 - target) * np.log(1 - out)))
