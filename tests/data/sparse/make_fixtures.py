#!/usr/bin/env python3
"""Generates the SciPy .npz fixtures of tests/runtime/test_sparse_matrix.cpp.

Why: load_npz must read what scipy.sparse.save_npz really writes (member
order, int32 indices, '|S3' format, deflate or stored), so the files come from
SciPy itself, once; the C++ tests compare each with its dense <name>.npy
(toarray()) and need no Python. Files that SciPy does not write (int64
indices, broken invariants, a bad shape, a missing member, an unknown format) are written member
by member with numpy.savez, the way save_npz lays them out.

Run from this folder with a Python that has SciPy:
  ../../../build/peers-venv/bin/python make_fixtures.py
"""
import numpy as np
import scipy.sparse as sp


def save(name, m, compressed=True):
    sp.save_npz(f"{name}.npz", m, compressed=compressed)
    np.save(f"{name}.npy", m.toarray())


def save_members(name, **members):
    np.savez(f"{name}.npz", **members)


# 4x5 float64 CSR: row 0 unsorted (3 before 1), row 1 empty, row 2 stores
# column 4 twice (1.0 + 3.0 add up to 4.0).
csr = sp.csr_matrix(
    (np.array([1.5, -2.0, 3.0, 0.25, 1.0, 7.0]), np.array([3, 1, 4, 0, 4, 2]), np.array([0, 2, 2, 5, 6])),
    shape=(4, 5))
save("csr_f64", csr)
save("csc_f64", csr.tocsc())
save("csr_f32_stored", csr.astype(np.float32), compressed=False)
save("empty_0x3", sp.csr_matrix((0, 3)))
save("coo_f64", csr.tocoo())

# The same matrix with int64 indices and a '<U3' format member (numpy's str).
np.save("csr_i64.npy", csr.toarray())
save_members("csr_i64", indices=csr.indices.astype(np.int64), indptr=csr.indptr.astype(np.int64),
             format=np.array("csr"), shape=np.array([4, 5]), data=csr.data)
# Broken files: indptr decreasing, a 3-entry shape, no indptr member, an
# unknown format name.
save_members("bad_indptr", indices=np.array([0, 1], np.int32), indptr=np.array([0, 2, 1, 2], np.int32),
             format=np.array(b"csr"), shape=np.array([3, 3]), data=np.array([1.0, 2.0]))
save_members("bad_shape", indices=np.array([0], np.int32), indptr=np.array([0, 1], np.int32),
             format=np.array(b"csr"), shape=np.array([1, 1, 1]), data=np.array([1.0]))
save_members("no_indptr", indices=np.array([0], np.int32), format=np.array(b"csr"), shape=np.array([1, 1]),
             data=np.array([1.0]))
save_members("unknown_format", indices=np.array([0], np.int32), indptr=np.array([0, 1], np.int32),
             format=np.array(b"xyz"), shape=np.array([1, 1]), data=np.array([1.0]))
