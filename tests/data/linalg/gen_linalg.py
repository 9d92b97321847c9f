#!/usr/bin/env python3
"""Generates the NumPy/SciPy fixtures of tests/compiler/tensor/test_linalg_fixtures.cpp
(and the expm / eig / norm / matrix_power tests): LAPACK-independent
references for every linear algebra op of docs/linalg.md and
docs/linalg-structure.md, made by NumPy and SciPy.

One case per prefix: <case>_in<k>.npy are the inputs (float64), <case>_out<k>.npy
the expected outputs, computed in float64 (the tests also run the inputs cast to
float32, with float32 tolerances). Factors defined only up to signs (eigh's and
eig's eigenvectors, svd's U / Vt) are checked by the tests through identities
or with the signs aligned, so the fixtures hold NumPy's as they come.
Run from this folder: python3 gen_linalg.py
"""
import numpy as np
import scipy.linalg as sl

rng = np.random.default_rng(20261129)


def save(case, ins, outs):
    for k, a in enumerate(ins):
        np.save(f"{case}_in{k}.npy", np.asarray(a))
    for k, a in enumerate(outs):
        np.save(f"{case}_out{k}.npy", np.asarray(a))


def spd(*shape):
    a = rng.standard_normal(shape)
    n = shape[-1]
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def well(*shape):
    n = shape[-1]
    return rng.standard_normal(shape) + 2 * n ** 0.5 * np.eye(n)


# ---- factorizations and solvers ----
K = spd(4, 4)
save("cholesky_lower", [K], [np.linalg.cholesky(K)])
save("cholesky_upper", [K], [sl.cholesky(K, lower=False)])
Kb = spd(2, 3, 3)
save("cholesky_batch", [Kb], [np.linalg.cholesky(Kb)])

A = well(4, 4)
b = rng.standard_normal(4)
B = rng.standard_normal((4, 2))
save("solve_gen_vec", [A, b], [np.linalg.solve(A, b)])
save("solve_gen_mat", [A, B], [np.linalg.solve(A, B)])
save("solve_sym", [K, B], [sl.solve(K, B, assume_a="sym", lower=True)])
save("solve_pos", [K, B], [sl.solve(K, B, assume_a="pos", lower=True)])
Ab, Bb = well(3, 4, 4), rng.standard_normal((3, 4, 2))
save("solve_batch", [Ab, Bb], [np.linalg.solve(Ab, Bb)])

T = np.tril(well(4, 4))
save("solve_triangular_lower", [T, B], [sl.solve_triangular(T, B, lower=True)])
save("solve_triangular_upper_trans", [T.T, B], [sl.solve_triangular(T.T, B, lower=False, trans=1)])
save("solve_triangular_unit", [T, b], [sl.solve_triangular(T, b, lower=True, unit_diagonal=True)])

L = np.linalg.cholesky(K)
save("cho_solve", [L, B], [sl.cho_solve((L, True), B)])

P, Lf, U = sl.lu(A)
save("lu", [A], [P, Lf, U])
LU, piv = sl.lu_factor(A)
save("lu_factor", [A], [LU, piv.astype(np.int32)])
save("lu_solve", [A, B], [sl.lu_solve((LU, piv), B)])

save("inv", [A], [np.linalg.inv(A)])
save("inv_batch", [Ab], [np.linalg.inv(Ab)])
R = rng.standard_normal((3, 5))
save("pinv", [R], [np.linalg.pinv(R)])
save("det", [A], [np.linalg.det(A)])
save("det_batch", [Ab], [np.linalg.det(Ab)])
Sg = A.copy()
Sg[:, 0] = -Sg[:, 0]
sign, logdet = np.linalg.slogdet(Sg)
save("slogdet", [Sg], [sign, logdet])

# ---- spectral ----
w, V = np.linalg.eigh(K)
save("eigh", [K], [w, V])
M = rng.standard_normal((5, 3))
U_, S_, Vt_ = np.linalg.svd(M, full_matrices=False)
save("svd_reduced", [M], [U_, S_, Vt_])
save("svdvals_batch", [rng.standard_normal((2, 3, 4))], [])
np.save("svdvals_batch_out0.npy", np.linalg.svd(np.load("svdvals_batch_in0.npy"), compute_uv=False))
Q, Rq = np.linalg.qr(M, mode="reduced")
save("qr_reduced", [M], [Q, Rq])
Qc, Rc = np.linalg.qr(M, mode="complete")
save("qr_complete", [M], [Rc, Qc[:, :3]])  # Q's last columns: any basis of the complement
save("qr_r", [M], [np.linalg.qr(M, mode="r")])

# lstsq: an overdetermined full-rank system (residuals returned) and a rank-deficient one (none).
Ao = rng.standard_normal((6, 3))
bo = rng.standard_normal((6, 2))
x, res, rank, sv = np.linalg.lstsq(Ao, bo, rcond=None)
save("lstsq_over", [Ao, bo], [x, res, np.int64(rank), sv])
Ad = rng.standard_normal((5, 2)) @ rng.standard_normal((2, 4))
bd = rng.standard_normal(5)
x, res, rank, sv = np.linalg.lstsq(Ad, bd, rcond=None)
save("lstsq_deficient", [Ad, bd], [x, res, np.int64(rank), sv])

# ---- expm: one input per branch of the degree choice (1-norm up to 0.015,
# 0.25, 0.95, 2.1, 5.4 and past it: scaling), a large norm, a nilpotent, a
# batch, a diagonal one with a large spread ----
E = rng.standard_normal((5, 5))
E1 = E / np.linalg.norm(E, 1)
for name, s in [("m3", 0.01), ("m5", 0.2), ("m7", 0.9), ("m9", 2.0), ("m13", 5.0), ("scaled", 30.0)]:
    save(f"expm_{name}", [E1 * s], [sl.expm(E1 * s)])
Nil = np.triu(rng.standard_normal((5, 5)), 1) * 3
save("expm_nilpotent", [Nil], [sl.expm(Nil)])
Big = rng.standard_normal((4, 4)) * 40
Big = Big - Big.T - 0.5 * np.eye(4)  # large-norm, bounded result (skew-symmetric plus a shift)
save("expm_large", [Big], [sl.expm(Big)])
Eb = rng.standard_normal((3, 4, 4))
save("expm_batch", [Eb], [sl.expm(Eb)])
save("expm_zero", [np.zeros((3, 3))], [np.eye(3)])

# ---- eig (general real): eigenvalues and vectors as NumPy gives them ----
G = rng.standard_normal((5, 5))
wg, vg = np.linalg.eig(G)
save("eig", [G], [wg, vg])
Gs = np.array([[2.0, 1.0, 0.0], [0.0, 3.0, 0.0], [0.0, 0.0, -1.0]])
save("eig_real", [Gs], list(np.linalg.eig(Gs)))

# ---- structural ----
Nm = rng.standard_normal((4, 5))
nv = rng.standard_normal(6)
for tag, o in [("none", None), ("fro", "fro"), ("nuc", "nuc"), ("inf", np.inf), ("ninf", -np.inf), ("1", 1),
               ("n1", -1), ("2", 2), ("n2", -2)]:
    save(f"norm_mat_{tag}", [Nm], [np.linalg.norm(Nm, o)])
for tag, o in [("none", None), ("inf", np.inf), ("ninf", -np.inf), ("0", 0), ("1", 1), ("n1", -1), ("2", 2),
               ("n2", -2), ("3", 3), ("0_5", 0.5)]:
    save(f"norm_vec_{tag}", [nv], [np.linalg.norm(nv, o)])
Nb = rng.standard_normal((2, 3, 4))
for tag, o in [("2", 2), ("n2", -2), ("nuc", "nuc")]:
    save(f"norm_axes_{tag}", [Nb], [np.linalg.norm(Nb, o, axis=(2, 0), keepdims=True)])

Pm = well(3, 3) / 3
for n in [-3, -1, 0, 1, 2, 5]:
    save(f"matrix_power_{n}".replace("-", "n"), [Pm], [np.linalg.matrix_power(Pm, n)])
Pb = well(2, 3, 3) / 3
save("matrix_power_batch_n2", [Pb], [np.linalg.matrix_power(Pb, -2)])

ka, kb = rng.standard_normal((2, 3)), rng.standard_normal((3, 2))
save("kron", [ka, kb], [np.kron(ka, kb)])
b1, b2 = rng.standard_normal((2, 2)), rng.standard_normal((1, 3))
save("block_diag", [b1, b2], [sl.block_diag(b1, b2)])
Tr = rng.standard_normal((4, 5))
save("trace", [Tr], [np.trace(Tr), np.trace(Tr, 1)])
save("tril", [Tr], [np.tril(Tr), np.tril(Tr, -1), np.tril(Tr, 2)])
save("triu", [Tr], [np.triu(Tr), np.triu(Tr, 1), np.triu(Tr, -2)])
