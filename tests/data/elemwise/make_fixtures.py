"""Generates the NumPy reference results for the elementwise op tests.

Run from this folder: python3 make_fixtures.py. Each case writes <case>_in<k>.npy
and <case>_out.npy; cases.txt lists "case op dtype..." one per line.
"""
import math
import numpy as np

rng = np.random.default_rng(1234)
cases = []


def save(case, op, inputs, out):
    for k, a in enumerate(inputs):
        np.save(f"{case}_in{k}.npy", a)
    np.save(f"{case}_out.npy", out)
    cases.append(f"{case} {op} " + " ".join(str(a.dtype) for a in inputs))


def u(lo, hi, shape=(3, 4)):
    return rng.uniform(lo, hi, size=shape)


erf = np.vectorize(math.erf)
erfc = np.vectorize(math.erfc)
lgamma = np.vectorize(math.lgamma)

unary_float = {
    "neg": (np.negative, (-3, 3)), "reciprocal": (np.reciprocal, (0.5, 3)), "sqr": (np.square, (-3, 3)),
    "sqrt": (np.sqrt, (0.1, 4)), "abs": (np.abs, (-3, 3)), "sign": (np.sign, (-3, 3)),
    "exp": (np.exp, (-3, 3)), "exp2": (np.exp2, (-3, 3)), "expm1": (np.expm1, (-1, 1)),
    "log": (np.log, (0.1, 4)), "log2": (np.log2, (0.1, 4)), "log10": (np.log10, (0.1, 4)),
    "log1p": (np.log1p, (-0.5, 3)), "sin": (np.sin, (-3, 3)), "cos": (np.cos, (-3, 3)),
    "tan": (np.tan, (-1.2, 1.2)), "arcsin": (np.arcsin, (-0.9, 0.9)), "arccos": (np.arccos, (-0.9, 0.9)),
    "arctan": (np.arctan, (-3, 3)), "sinh": (np.sinh, (-2, 2)), "cosh": (np.cosh, (-2, 2)),
    "tanh": (np.tanh, (-3, 3)), "arcsinh": (np.arcsinh, (-3, 3)), "arccosh": (np.arccosh, (1.1, 4)),
    "arctanh": (np.arctanh, (-0.9, 0.9)), "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), (-30, 30)),
    "softplus": (lambda x: np.logaddexp(0, x), (-30, 30)), "erf": (erf, (-2, 2)), "erfc": (erfc, (-2, 2)),
    "gammaln": (lgamma, (0.2, 6)), "floor": (np.floor, (-3, 3)), "ceil": (np.ceil, (-3, 3)),
    "round": (np.round, (-3, 3)), "trunc": (np.trunc, (-3, 3)),
}
for name, (f, (lo, hi)) in unary_float.items():
    x = u(lo, hi)
    if name == "round":
        x[0, :] = [0.5, 1.5, 2.5, -0.5]  # half to even
    save(f"{name}_f64", name, [x], f(x))
    x32 = x.astype(np.float32)
    save(f"{name}_f32", name, [x32], f(x32.astype(np.float64)).astype(np.float32))

binary_float = {
    "add": (np.add, (-3, 3), (-3, 3)), "sub": (np.subtract, (-3, 3), (-3, 3)),
    "mul": (np.multiply, (-3, 3), (-3, 3)), "true_div": (np.true_divide, (-3, 3), (0.5, 3)),
    "int_div": (np.floor_divide, (-5, 5), (0.5, 2)), "mod": (np.mod, (-5, 5), (0.5, 2)),
    "pow": (np.power, (0.1, 3), (-2, 2)), "maximum": (np.maximum, (-3, 3), (-3, 3)),
    "minimum": (np.minimum, (-3, 3), (-3, 3)), "arctan2": (np.arctan2, (-3, 3), (-3, 3)),
}
for name, (f, ra, rb) in binary_float.items():
    a, b = u(*ra), u(*rb, shape=(1, 4))  # b broadcasts along axis 0
    save(f"{name}_f64", name, [a, b], f(a, b))

ints = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "int_div": np.floor_divide, "mod": np.mod,
    "maximum": np.maximum, "minimum": np.minimum, "lt": np.less, "gt": np.greater, "le": np.less_equal,
    "ge": np.greater_equal, "eq": np.equal, "neq": np.not_equal, "and": np.bitwise_and, "or": np.bitwise_or,
    "xor": np.bitwise_xor,
}
for name, f in ints.items():
    a = rng.integers(-20, 20, size=(3, 4)).astype(np.int32)
    b = rng.integers(1, 7, size=(3, 4)).astype(np.int32) * rng.choice([-1, 1], size=(3, 4)).astype(np.int32)
    save(f"{name}_i32", name, [a, b], f(a, b))
a = rng.integers(-5, 5, size=(3, 4)).astype(np.int64)
b = rng.integers(0, 5, size=(3, 4)).astype(np.int64)
save("pow_i64", "pow", [a, b], np.power(a, b))
save("invert_i16", "invert", [a.astype(np.int16)], np.invert(a.astype(np.int16)))
x = u(-3, 3)
x[1, 1] = np.nan
x[2, 2] = np.inf
save("isnan_f64", "isnan", [x], np.isnan(x))
save("isinf_f64", "isinf", [x], np.isinf(x))
c = rng.integers(0, 2, size=(3, 4)).astype(bool)
t, f = u(-1, 1), u(-1, 1)
save("switch_f64", "switch", [c, t, f], np.where(c, t, f))
x = u(-3, 3)
save("clip_f64", "clip", [x, np.float64(-1.0), np.float64(1.5)], np.clip(x, -1.0, 1.5))

with open("cases.txt", "w") as fh:
    fh.write("\n".join(cases) + "\n")
print(len(cases), "cases")
