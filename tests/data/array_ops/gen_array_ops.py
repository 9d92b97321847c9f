#!/usr/bin/env python3
"""Generates the NumPy fixtures of tests/compiler/tensor/test_array_ops*.cpp.

Inputs: x3 (2, 3, 4), x2 (4, 6), m37 (3, 7) float64 draws, their float32
copies where a test needs one, and small hand-written arrays (halves for the
rounding, NaN / inf for isclose and nan_to_num, integer index arrays for
take_along_axis). Outputs: NumPy's result of each call, named after it
(e.g. roll_x3_s5_a2 = np.roll(x3, 5, axis=2)). round_half_away uses Python's
decimal module (ROUND_HALF_UP on the exact binary value), independent of the
formula the library uses. Run from this folder: python3 gen_array_ops.py
"""
from decimal import Decimal, ROUND_HALF_UP

import numpy as np

rng = np.random.default_rng(3838)


def save(name, a):
    np.save(f"{name}.npy", np.asarray(a))


x3 = rng.standard_normal((2, 3, 4))
x2 = rng.standard_normal((4, 6))
m37 = rng.standard_normal((3, 7))
save("x3", x3)
save("x3_f32", x3.astype(np.float32))
save("x2", x2)
save("m37", m37)
save("m37_row0", m37[0].copy())

# Group 1: axes and broadcasting.
save("flip_x3_all", np.flip(x3))
save("flip_x3_a1", np.flip(x3, 1))
save("flip_x3_a0_a2", np.flip(x3, (0, 2)))
for s, a in [(2, None), (-1, 1), (5, 2), (-7, 0), (0, 1)]:
    save(f"roll_x3_s{s}_a{a}", np.roll(x3, s, axis=a))
save("roll_x3_s1m2_a02", np.roll(x3, (1, -2), axis=(0, 2)))
save("roll_x3_s3_a121", np.roll(x3, 3, axis=(1, 2, 1)))
save("roll_x3_f32_s2_a2", np.roll(x3.astype(np.float32), 2, axis=2))
save("moveaxis_x3_0_m1", np.moveaxis(x3, 0, -1))
save("moveaxis_x3_01_20", np.moveaxis(x3, [0, 1], [2, 0]))
save("swapaxes_x3_0_2", np.swapaxes(x3, 0, 2))
v3 = x3[0, :, 0].copy()
save("v3", v3)
save("broadcast_to_v3_2_4_3", np.broadcast_to(v3[:, None].T, (2, 4, 3)))
col3 = x3[0, :, :1].copy()  # (3, 1)
row4 = x3[1, 0, :].copy()  # (4,)
save("col3", col3)
save("row4", row4)
b0, b1 = np.broadcast_arrays(col3, row4)
save("broadcast_arrays_0", b0)
save("broadcast_arrays_1", b1)

# Group 2: values.
for n, a in [(1, -1), (2, 0), (2, 1), (3, 1), (0, 2)]:
    save(f"diff_x3_n{n}_a{a}", np.diff(x3, n=n, axis=a))
save("ptp_x3_a1", np.ptp(x3, axis=1))
save("ptp_x3_all", np.ptp(x3))
inf, nan = np.inf, np.nan
ca = np.array([1.0, 1.0 + 1e-6, 1.0 + 1e-4, inf, -inf, inf, nan, nan, 0.0, 1e-9, 100.0, 110.0])
cb = np.array([1.0, 1.0, 1.0, inf, -inf, -inf, nan, 1.0, 1e-9, 0.0, 101.0, 100.0])
save("close_a", ca)
save("close_b", cb)
save("isclose_default", np.isclose(ca, cb))
save("isclose_equal_nan", np.isclose(ca, cb, equal_nan=True))
save("isclose_tol", np.isclose(ca, cb, rtol=0.1, atol=0.0))
save("allclose_default", np.allclose(ca, cb))
nn = np.array([[nan, inf, -inf], [1.5, -2.0, 0.0]])
save("nan_in", nn)
save("nan_to_num_default", np.nan_to_num(nn))
save("nan_to_num_custom", np.nan_to_num(nn, nan=-1.0, posinf=9.0, neginf=-9.0))
save("nan_to_num_f32", np.nan_to_num(nn.astype(np.float32)))
halves = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.49999999999999994, -0.49999999999999994, 2.4, -2.6,
                   4503599627370497.0, -0.0, 7.0])
save("halves", halves)
save("round_away", np.array([float(Decimal(float(v)).quantize(Decimal(1), rounding=ROUND_HALF_UP)) for v in halves]))
save("max_x3_a1", np.max(x3, axis=1))
save("argmax_x3_a1", np.argmax(x3, axis=1))
save("max_x3_all", np.max(x3))
save("argmax_x3_all", np.argmax(x3))
idx_a1 = rng.integers(-3, 3, (2, 5, 4))
idx_a2 = rng.integers(-4, 4, (1, 3, 2))
save("tal_idx_a1", idx_a1)
save("tal_idx_a2", idx_a2)
save("tal_x3_a1", np.take_along_axis(x3, idx_a1, axis=1))
save("tal_x3_a2", np.take_along_axis(x3, idx_a2, axis=2))
x214 = x3[:, :1, :].copy()
idx_b = rng.integers(-4, 4, (2, 3, 4))
save("x214", x214)
save("tal_idx_b", idx_b)
save("tal_x214_a2", np.take_along_axis(x214, idx_b, axis=2))
flat_idx = np.array([23, 0, -1, 5, 5], dtype=np.int32)
save("tal_flat_idx", flat_idx)
save("tal_x3_none", np.take_along_axis(x3, flat_idx, axis=None))
labels = np.array([0, 3, 1, 1, 4], dtype=np.int32)
save("labels", labels)
save("one_hot_5", np.eye(5)[labels])

# Group 3: ranges and repetition.
save("linspace_7", np.linspace(-1.5, 2.0, 7))
save("linspace_7_open", np.linspace(-1.5, 2.0, 7, endpoint=False))
save("linspace_1", np.linspace(-1.5, 2.0, 1))
save("linspace_f32", np.linspace(-1.5, 2.0, 5, dtype=np.float32))
save("linspace_int", np.linspace(-3, 9, 5, dtype=np.int64))
save("logspace_5", np.logspace(0.0, 2.0, 5))
save("logspace_5_b2", np.logspace(0.0, 3.0, 5, endpoint=False, base=2.0))
save("geomspace_4", np.geomspace(1.0, 1000.0, 4))
save("geomspace_neg", np.geomspace(-1.0, -1000.0, 4))
save("geomspace_open", np.geomspace(1000.0, 1.0, 4, endpoint=False))
save("mgrid_03_152", np.mgrid[0:3, 1:5:2])
og = np.ogrid[0:3, 1:5:2]
save("ogrid_0", og[0])
save("ogrid_1", og[1])
x23 = x2[:2, :3].copy()
save("x23", x23)
save("tile_x23_213", np.tile(x23, (2, 1, 3)))
save("tile_x23_2", np.tile(x23, 2))
save("tile_x23_30", np.tile(x23, (3, 0)))
save("repeat_x23_3_a1", np.repeat(x23, 3, axis=1))
save("repeat_x23_2_none", np.repeat(x23, 2))
save("repeat_x23_0_a0", np.repeat(x23, 0, axis=0))
save("repeat_x23_203_a1", np.repeat(x23, [2, 0, 3], axis=1))
save("repeat_x23_230_a1", np.repeat(x23, [2, 3, 0], axis=1))
save("repeat_x23_12_a0", np.repeat(x23, [1, 2], axis=0))
save("repeat_x23_each_none", np.repeat(x23, [0, 1, 0, 2, 3, 1]))

# Group 4: top-k (Theano's: kth > 0 the largest, descending; kth < 0 the
# smallest, ascending; from a stable argsort).
order_m1 = np.argsort(x2, axis=-1, kind="stable")
save("argtopk_x2_k3", order_m1[:, ::-1][:, :3])
save("topk_x2_k3", np.take_along_axis(x2, order_m1[:, ::-1][:, :3], axis=-1))
order_0 = np.argsort(x2, axis=0, kind="stable")
save("argtopk_x2_km2_a0", order_0[:2, :])
save("topk_x2_km2_a0", np.take_along_axis(x2, order_0[:2, :], axis=0))
save("topk_x2_k6", np.take_along_axis(x2, order_m1[:, ::-1], axis=-1))

# Group 5: statistics.
save("quantile_x3_q03_a1", np.quantile(x3, 0.3, axis=1))
save("quantile_x3_qs_all", np.quantile(x3, [0.1, 0.5, 1.0]))
save("percentile_x3_q75_a2_keep", np.percentile(x3, 75, axis=2, keepdims=True))
save("median_x3_a0", np.median(x3, axis=0))
save("median_x3_a2", np.median(x3, axis=2))
save("median_x3_f32_a2", np.median(x3.astype(np.float32), axis=2))
save("median_x3_all_keep", np.median(x3, keepdims=True))
x3n = x3.copy()
x3n[1, 2, 3] = nan
save("x3_nan", x3n)
save("median_x3_nan_a2", np.median(x3n, axis=2))
save("cov_m37", np.cov(m37))
save("cov_m37_cols", np.cov(m37, rowvar=False))
save("cov_m37_bias", np.cov(m37, bias=True))
save("cov_m37_ddof2", np.cov(m37, ddof=2))
save("cov_v7", np.cov(m37[0]))

# Group 6: padding.
x34 = x2[:3, :4].copy()
save("x34", x34)
widths = ((1, 2), (2, 0))
for mode in ["edge", "reflect", "symmetric", "wrap"]:
    save(f"pad_x34_{mode}", np.pad(x34, widths, mode=mode))
save("pad_x34_constant", np.pad(x34, widths, mode="constant", constant_values=7.5))
save("pad_x34_reflect_full", np.pad(x34, ((2, 2), (3, 3)), mode="reflect"))
save("pad_x34_symmetric_full", np.pad(x34, ((3, 3), (4, 4)), mode="symmetric"))
save("pad_x34_wrap_full", np.pad(x34, ((3, 3), (4, 4)), mode="wrap"))
save("pad_x3_1_reflect", np.pad(x3, 1, mode="reflect"))
save("pad_x3_f32_1_wrap", np.pad(x3.astype(np.float32), 1, mode="wrap"))
