#!/usr/bin/env python3
"""Writes the .npy fixtures used by tests/runtime/test_npy.cpp (run from anywhere).

Values follow formulas the C++ tests recompute (see test_npy.cpp: fixture_values):
  bool: i % 2 == 1;  signed ints: 3*i - 5;  unsigned: 40*i;
  floats: 0.5*(3*i - 5);  complex: 0.5*i - 1j*i;  for i = 0..n-1 in C order.
"""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


def values(dtype, shape):
    n = int(np.prod(shape))
    i = np.arange(n)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        v = i % 2 == 1
    elif dt.kind == "i":
        v = 3 * i - 5
    elif dt.kind == "u":
        v = 40 * i
    elif dt.kind == "f":
        v = 0.5 * (3 * i - 5)
    else:
        v = 0.5 * i - 1j * i
    return v.astype(dtype).reshape(shape)


def save(name, arr, **kw):
    path = os.path.join(HERE, name)
    if kw:
        with open(path, "wb") as f:
            np.lib.format.write_array(f, arr, **kw)
    else:
        np.save(path, arr)


def main():
    for dt in DTYPES:
        a = values(dt, (2, 3))
        save(f"{dt}_c.npy", a)
        save(f"{dt}_f.npy", np.asfortranarray(values(dt, (3, 4))))
        if np.dtype(dt).itemsize > 1:
            be = np.dtype(dt).newbyteorder(">")
            save(f"{dt}_be.npy", a.astype(be))
    save("float64_3d_f.npy", np.asfortranarray(values("float64", (2, 3, 4))))
    save("float64_be_f.npy", np.asfortranarray(values("float64", (3, 4)).astype(">f8")))
    save("scalar_f8.npy", np.array(2.5))
    save("empty_0x3_f4.npy", np.zeros((0, 3), dtype=np.float32))
    save("v2_int32.npy", values("int32", (4, 5)), version=(2, 0))
    save("v3_float32.npy", values("float32", (5,)), version=(3, 0))
    with open(os.path.join(HERE, "special_f8.npy"), "wb") as f:
        np.lib.format.write_array(f, np.array([np.nan, np.inf, -np.inf, -0.0, 1e-300, 1e300]))
    # Unsupported / malformed inputs.
    save("object.npy", np.array([1, "a", None], dtype=object), allow_pickle=True)
    save("unicode.npy", np.array(["abc", "de"]))
    good = open(os.path.join(HERE, "float64_c.npy"), "rb").read()
    open(os.path.join(HERE, "bad_magic.npy"), "wb").write(b"\x93NUMPZ" + good[6:])
    open(os.path.join(HERE, "truncated_header.npy"), "wb").write(good[:40])
    open(os.path.join(HERE, "short_data.npy"), "wb").write(good[:-8])
    bad = good.replace(b"'shape': (2, 3)", b"'shape': [2, 3]")
    open(os.path.join(HERE, "bad_dict.npy"), "wb").write(bad)


if __name__ == "__main__":
    main()
