#!/usr/bin/env python3
"""The peers of bench/run: W1..W13 of docs/workloads.md with NumPy,
numexpr, PyTensor (C back end: linker cvm; Numba back end) and JAX (jit),
SciPy for the sparse rows (W8, W8g) and PyTorch (eager, every row, and
torch.compile, every row but the sparse ones), beside our own figures from
`bench/run --json`. See bench/README.md ("bench/peers"). Run through
`bench/peers`, which makes the venv.

Subcommands:

  measure   (in the peers' venv) runs every (peer, workload, dtype) in a
            worker process of its own and writes the peers' figures as JSON
  worker    one (peer, workload, dtype): inputs, build, first call and
            checksums, steady-state samples
  report    (standard library only, any Python >= 3.8) merges our JSON and
            the peers' JSON into one table on stdout and, with --json, one
            JSON file
  merge     (standard library only) one JSON from several rounds' JSONs of
            the same kind (ours: bench/run's; the peers': measure's): each
            row's call median becomes the median of the rounds' medians
            (bench/peers --rounds N)

Timing rules (docs/workloads.md): the call time is the median of `reps` samples
after 2 warm-up calls (the first call from the initial state, whose outputs
and state give the checksums, is the first warm-up); W1s is timed in
samples of 2000 calls, W6 and W6t in 7 loops of 10^5 calls (10^4 with
--quick). The garbage collector is off while samples run (as timeit does).

The cold compile time is `build + (first call - call median)`: `build` is
the wall time of making the callable (pytensor.function(); jax.jit() and
torch.compile(), which only wrap), and the first call pays whatever
compilation was left for it (Numba compiles PyTensor's numba graph lazily at
the first call; JAX traces, lowers and compiles at the first call;
torch.compile traces with Dynamo and compiles with Inductor at the first
call). Each (peer, workload, dtype) runs in a fresh process with empty caches
(PyTensor's compiledir, Numba's cache and Inductor's cache are new
directories; JAX's persistent cache is off), so the first function
of the process pays the process's one-time costs, as bench/run's cold
compile does. PyTensor's compiledir starts from a template holding only its
own helper modules (lazylinker_ext, cutils_ext): they are compiled once per
run, not per function (docs/workloads.md: cold = no cached code for any op of the
function). NumPy and eager PyTorch have no compile step (null); numexpr's is its first call's
extra time (parsing and compiling the expression); SciPy has none either
(its sparse matrix is made from the components with the inputs, untimed).
The peers' modules are
imported before the compile clock starts. With --skip-compile PyTensor, Numba
and Inductor share one cache directory kept across runs and no cold figure
is given.
"""

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time

ROWS = ["W1", "W1s", "W2", "W3", "W4a", "W4b", "W4c", "W5", "W6", "W6t", "W7", "W7s", "W8", "W8g", "W9", "W10", "W11",
        "W12", "W13"]
PEERS = ["numpy", "numexpr", "scipy", "pytensor-c", "pytensor-numba", "jax", "torch", "torch-compile"]
DTYPES = ["float64", "float32"]

# Peers that implement only some rows ("where it fits"); a row outside the
# set is "-" in the table, not n/a.
# numpy has no sparse matrices; SciPy is the peer of the sparse rows only.
# W9 (an RNN with BPTT) needs gradients: PyTensor's scan, JAX's lax.scan,
# PyTorch's autograd through a Python loop over the time steps.
# W10 (LeNet-5) needs a convolution with its gradient: JAX and PyTorch
# (PyTensor 3 has no conv2d). W11 (a Gaussian process) needs cholesky and
# solve_triangular with their gradients: PyTensor, JAX and PyTorch. W13
# needs a gradient (NumPy's is written by hand with np.add.at, as a NumPy
# user would). PyTorch eager does every row (W8, W8g: a torch.sparse_csr_tensor
# @ D, W8g's gradient by backward()); torch.compile every row but W8 and W8g:
# it does not support sparse tensors (Dynamo: "Attempted to wrap sparse
# Tensor"; torch.sparse_csr_tensor inside the compiled function: "Sparse
# tensor creation not supported"), so it would run the function eagerly and
# its cell would be the eager one under another name.
APPLIES = {"numexpr": {"W1", "W1s", "W5"}, "numpy": set(ROWS) - {"W8", "W8g", "W9", "W10", "W11"},
           "scipy": {"W8", "W8g"}, "pytensor-c": set(ROWS) - {"W10"}, "pytensor-numba": set(ROWS) - {"W10"},
           "torch": set(ROWS), "torch-compile": set(ROWS) - {"W8", "W8g"}}

SIZES = {
    "W1": "n=10^7", "W1s": "n=10^3", "W2": "4000x784", "W3": "batch 256, 784-512-10",
    "W4a": "4000x4000", "W4b": "4000x4000", "W4c": "4000x4000", "W5": "n=10^6",
    "W6": "0-d", "W6t": "0-d", "W7": "2000x2000", "W7s": "2000x2000",
    "W8": "nnz 10^6, D 10^5x64", "W8g": "nnz 10^6, D 10^5x64", "W9": "T=100 B=32 I=64 H=256",
    "W10": "B=64 1x28x28, LeNet-5",
    "W11": "GP n=500 d=8",
    "W12": "2000x2000", "W13": "E 10000x64, idx 256x50",
}

# Float64 checksums of docs/workloads.md: outputs, then the state after one call.
EXPECTED = {
    "W1": [3569070.875923593],
    "W1s": [363.7745121614696],
    "W2": [0.6933034686149228, -0.12248195633044084, -0.0002835831078967248],
    "W3": [2.40157705526665, -36.38413498172959, -0.016891973667929685, -4.017583404441713, 0.0],
    "W4a": [-785.1097241408],
    "W4b": [-785.1097241408],
    "W4c": [0.9999998960685954],
    "W5": [-610.5406181680153, -915.8109272520232],
    "W6": [2.0],
    "W6t": [2.0],
    "W7": [8536.669455410803],
    "W7s": [8536.669455410803],
    "W8": [-4342.956475887548],
    "W8g": [99.8794867784095],
    "W9": [0.7141678534881253, -2.9774954403427722, -19.539213412403, 0.00020351703058041668, 1.632188739977615],
    # loss, then W1, b1, W2, b2, W3, b3, W4, b4 (sum(b4) ~ 0: softmax's gradient sums to zero)
    "W10": [2.2826329003228345, 0.40755315620852905, -0.027168794649354226, 4.636166551424332,
            -0.008791199442397304, 24.621812884760374, -0.003529408744910996, 2.0418521904860762, 0.0],
    # logp, then sum(|g|) (the peers return |g|: sum(g) is ~0 by translation invariance)
    "W11": [-542.7450953457718, 3143.9932943893955],
    "W12": [-1331765788.4111078],
    # cost, then sum(g)
    "W13": [97723.00813783743, -625.1930824063611],
}
RTOL = {"W4a": 1e-8, "W4b": 1e-8, "W4c": 1e-12, "W9": 1e-7, "W10": 1e-8, "W11": 1e-8, "W12": 1e-11, "W13": 1e-10}  # W4's sums depend on the order

# What each peer's worker imports before it starts the compile clock.
PEER_MODULES = {
    "numpy": ["numpy"],
    "numexpr": ["numexpr"],
    "scipy": ["numpy", "scipy.sparse"],
    "pytensor-c": ["pytensor.tensor", "pytensor.compile.mode", "pytensor.sparse"],
    "pytensor-numba": ["pytensor.tensor", "pytensor.compile.mode", "pytensor.sparse", "numba",
                       "pytensor.link.numba.dispatch"],
    "jax": ["jax", "jax.numpy", "jax.experimental.sparse"],
    "torch": ["torch", "torch.nn.functional"],
    "torch-compile": ["torch", "torch.nn.functional", "torch._dynamo", "torch._inductor.compile_fx"],
}

# A peer's cell is starred when other processes used more than this many
# cores while its samples ran.
BUSY_CORES = 0.25

COMPILE_DEFINITION = (
    "build + (first call - call median): build = making the callable "
    "(pytensor.function(); jax.jit(); torch.compile()), the first call pays the compilation "
    "left for it (Numba's, JAX's, Dynamo's and Inductor's); one fresh process with empty caches per "
    "(peer, workload, dtype); numpy, scipy, torch (eager): none")


def select(names):
    """The rows --only selects, as bench/run does: a name selects itself and the
    ids that extend it by letters (W1: W1, W1s; W4: W4a-c; W6: W6, W6t)."""
    if not names:
        return list(ROWS), []
    wanted, unknown = set(), []
    for n in names:
        hit = [r for r in ROWS if r == n or (r.startswith(n) and r[len(n):len(n) + 1].isalpha())]
        if not hit:
            unknown.append(n)
        wanted.update(hit)
    return [r for r in ROWS if r in wanted], unknown


def dtypes_of(arg):
    return DTYPES if arg == "all" else [arg]


def checksum_ok(got, want, rtol, dtype):
    """bench/run's rule: float32 to a relative 1e-4, a zero checksum (rounding
    noise) to an absolute bound at the dtype's scale."""
    if got is None or not math.isfinite(got):
        return False
    if dtype == "float32":
        rtol = max(rtol, 1e-4)
    if want == 0:
        return abs(got) < (1e-6 if dtype == "float32" else 1e-12)
    return abs(got - want) <= rtol * abs(want)


def bytes_per_call(row, dtype):
    """Bytes a workload must move per call, as bench/run counts them."""
    e = 4 if dtype == "float32" else 8
    if row == "W1":
        return 4.0 * 1e7 * e
    if row in ("W4a", "W4b", "W4c"):
        return 4000.0 * 4000.0 * e
    if row == "W5":
        return 4.0 * 1e6 * e
    if row in ("W8", "W8g"):
        # S's components read (int64 indices and indptr), a row of D (64
        # values) read per stored value, out written; W8g: twice W8.
        w8 = 1e6 * e + 1e6 * 8 + (1e5 + 1) * 8 + 1e6 * 64 * e + 1e5 * 64 * e
        return w8 if row == "W8" else 2 * w8
    return 0.0


# ---------------------------------------------------------------------------
# Inputs (numpy; only in the venv)


def splitmix_unit(seed, start, count):
    import numpy as np
    i = np.arange(start, start + count, dtype=np.uint64)
    z = np.uint64(seed) + (i + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53


class Inputs:
    """U(seed; lo, hi) of docs/workloads.md, bit for bit, cached as .npy files in a
    directory shared by the run's workers."""

    def __init__(self, cache_dir):
        self.dir = cache_dir

    def uniform(self, seed, lo, hi, shape, dtype):
        import hashlib
        import numpy as np
        key = hashlib.sha256(repr((seed, float(lo), float(hi), tuple(shape), dtype)).encode()).hexdigest()[:16]
        path = os.path.join(self.dir, "U%d-%s-%s.npy" % (seed, dtype, key))
        if os.path.exists(path):
            return np.load(path)
        n = int(np.prod(shape))
        out = np.empty(n, dtype=np.float64)
        step = 1 << 22
        for s in range(0, n, step):
            c = min(step, n - s)
            out[s:s + c] = lo + (hi - lo) * splitmix_unit(seed, s, c)
        out = out.reshape(shape).astype(dtype)
        tmp = path + ".tmp%d.npy" % os.getpid()
        np.save(tmp, out)
        os.replace(tmp, path)
        return out

    def unit(self, seed, shape):
        return self.uniform(seed, 0.0, 1.0, shape, "float64")


def self_test_inputs():
    """The check values of docs/workloads.md: U(101; 0, 1) starts with these."""
    want = [0.8164412005984503, 0.01719139902460909, 0.26865236244694557, 0.554580415984277]
    got = [float(v) for v in splitmix_unit(101, 0, 4)]
    if got != want:
        raise RuntimeError("the SplitMix64 inputs do not reproduce workloads.md: %r" % got)


def workload_args(inp, row, dt):
    """The call arguments and initial state of `row` in dtype `dt` (numpy arrays)."""
    import numpy as np
    d = {}
    if row in ("W1", "W1s"):
        n = 1000 if row == "W1s" else 10 ** 7
        d["x"] = inp.uniform(101, -1, 1, (n,), dt)
        d["y"] = inp.uniform(102, 0, 1, (n,), dt)
        d["z"] = inp.uniform(103, -1, 1, (n,), dt)
    elif row == "W2":
        d["X"] = inp.uniform(201, -1, 1, (4000, 784), dt)
        d["y"] = (inp.unit(202, (4000,)) < 0.5).astype(dt)
        d["w"] = inp.uniform(203, -0.01, 0.01, (784,), dt)
        d["b"] = np.zeros((), dt)
    elif row == "W3":
        a1, a2 = math.sqrt(6.0 / (784 + 512)), math.sqrt(6.0 / (512 + 10))
        d["X"] = inp.uniform(301, 0, 1, (256, 784), dt)
        d["t"] = np.floor(10 * inp.unit(302, (256,))).astype(np.int64)
        d["W1"] = inp.uniform(303, -a1, a1, (784, 512), dt)
        d["b1"] = np.zeros(512, dt)
        d["W2"] = inp.uniform(304, -a2, a2, (512, 10), dt)
        d["b2"] = np.zeros(10, dt)
    elif row in ("W4a", "W4b", "W4c"):
        d["X"] = inp.uniform(401, -1, 1, (4000, 4000), dt)
    elif row == "W5":
        d["x"] = inp.uniform(501, -1, 1, (10 ** 6,), dt)
        d["y"] = inp.uniform(502, -1, 1, (10 ** 6,), dt)
    elif row in ("W6", "W6t"):
        d["x"] = np.asarray(1.0, dtype=dt)
    elif row in ("W7", "W7s"):
        d["A"] = inp.uniform(701, -1, 1, (2000, 2000), dt)
        d["B"] = inp.uniform(702, -1, 1, (2000, 2000), dt)
        d["Z"] = inp.uniform(703, -1, 1, (2000, 2000), dt)
    elif row in ("W8", "W8g"):
        # S: 10 stored values a row; row r, slot k: column floor(u*10000) +
        # k*10000 with u = U(801; 0, 1)[r*10 + k] (in double whatever the
        # dtype), value U(802; -1, 1)[r*10 + k]; indptr 0, 10, 20, ...
        import scipy.sparse
        n, per_row = 10 ** 5, 10
        u = inp.unit(801, (n * per_row,))
        d["S_indices"] = np.floor(u * 10000).astype(np.int64) + (np.arange(n * per_row, dtype=np.int64) % per_row) * 10000
        d["S_data"] = inp.uniform(802, -1, 1, (n * per_row,), dt)
        d["S_indptr"] = np.arange(0, n * per_row + 1, per_row, dtype=np.int64)
        d["S_shape"] = (n, n)
        d["D"] = inp.uniform(803, -1, 1, (n, 64), dt)
        # SciPy's matrix (indices stored as int32, as SciPy does when they fit),
        # made here so that no peer's build or call pays for it.
        d["S"] = scipy.sparse.csr_matrix((d["S_data"], d["S_indices"], d["S_indptr"]), shape=d["S_shape"])
    elif row == "W9":
        a, b, c = math.sqrt(6.0 / (64 + 256)), math.sqrt(6.0 / 512), math.sqrt(6.0 / 257)
        d["x"] = inp.uniform(901, -1, 1, (100, 32, 64), dt)
        d["t"] = inp.uniform(905, -1, 1, (100, 32, 1), dt)
        d["Wx"] = inp.uniform(902, -a, a, (64, 256), dt)
        d["Wh"] = inp.uniform(903, -b, b, (256, 256), dt)
        d["bh"] = np.zeros(256, dt)
        d["Wy"] = inp.uniform(904, -c, c, (256, 1), dt)
    elif row == "W10":
        a1, a2 = math.sqrt(6.0 / (25 + 125)), math.sqrt(6.0 / (500 + 312.5))
        a3, a4 = math.sqrt(6.0 / 1300), math.sqrt(6.0 / 510)
        d["X"] = inp.uniform(1001, 0, 1, (64, 1, 28, 28), dt)
        d["t"] = np.floor(10 * inp.unit(1002, (64,))).astype(np.int64)
        d["W1"] = inp.uniform(1003, -a1, a1, (20, 1, 5, 5), dt)
        d["b1"] = np.zeros(20, dt)
        d["W2"] = inp.uniform(1004, -a2, a2, (50, 20, 5, 5), dt)
        d["b2"] = np.zeros(50, dt)
        d["W3"] = inp.uniform(1005, -a3, a3, (800, 500), dt)
        d["b3"] = np.zeros(500, dt)
        d["W4"] = inp.uniform(1006, -a4, a4, (500, 10), dt)
        d["b4"] = np.zeros(10, dt)
    elif row == "W11":
        d["X"] = inp.uniform(1101, -1, 1, (500, 8), dt)
        d["y"] = inp.uniform(1102, -1, 1, (500,), dt)
    elif row == "W12":
        d["X"] = inp.uniform(1201, -1, 1, (2000, 2000), dt)
    elif row == "W13":
        d["E"] = inp.uniform(1301, -1, 1, (10000, 64), dt)
        d["idx"] = np.floor(10000 * inp.unit(1302, (256 * 50,))).astype(np.int64).reshape(256, 50)
    return d


# ---------------------------------------------------------------------------
# The peers' implementations. Each build_* returns a Callable: `fn(*args)` is
# one call (the timed loop calls exactly that), `outputs(result)` gives the
# output arrays of a call's result, `state()` the state arrays after it.


class Callable:
    def __init__(self, fn, args, outputs=None, state=None, note=None):
        self.fn, self.args = fn, tuple(args)
        self.outputs = outputs or (lambda r: list(r) if isinstance(r, (list, tuple)) else [r])
        self.state = state or (lambda: [])
        self.note = note


def build_numpy(row, dt, a):
    import numpy as np
    c = np.dtype(dt).type  # every floating constant in the dtype
    if row in ("W1", "W1s"):
        one = c(1)

        def w1(x, y, z):
            return np.exp(x) * y + np.tanh(z) - x * x / (one + y)
        return Callable(w1, (a["x"], a["y"], a["z"]))
    if row == "W2":
        X, y, w, b = a["X"], a["y"], a["w"].copy(), a["b"].copy()
        n = X.shape[0]

        def w2(X, y):
            p = c(1) / (c(1) + np.exp(-(X @ w + b)))
            xent = -y * np.log(p) - (c(1) - y) * np.log(c(1) - p)
            cost = xent.mean() + c(0.01) * np.sum(w * w)
            r = p - y
            gw = X.T @ r / c(n) + c(0.02) * w
            gb = r.sum() / c(n)
            w[...] -= c(0.1) * gw
            b[...] -= c(0.1) * gb
            return cost
        return Callable(w2, (X, y), state=lambda: [w, b],
                        note="gradient written by hand (X^T (p-y)/N + 0.02 w)")
    if row == "W3":
        X, t = a["X"], a["t"]
        W1, b1, W2, b2 = (a[k].copy() for k in ("W1", "b1", "W2", "b2"))
        B = X.shape[0]
        rows = np.arange(B)

        def w3(X, t):
            h = np.tanh(X @ W1 + b1)
            logits = h @ W2 + b2
            e = np.exp(logits - logits.max(axis=1, keepdims=True))
            p = e / e.sum(axis=1, keepdims=True)
            loss = -np.mean(np.log(p[rows, t]))
            d = p
            d[rows, t] -= c(1)
            d /= c(B)
            gW2 = h.T @ d
            gb2 = d.sum(axis=0)
            dh = (d @ W2.T) * (c(1) - h * h)
            gW1 = X.T @ dh
            gb1 = dh.sum(axis=0)
            W1[...] -= c(0.1) * gW1
            b1[...] -= c(0.1) * gb1
            W2[...] -= c(0.1) * gW2
            b2[...] -= c(0.1) * gb2
            return loss
        return Callable(w3, (X, t), state=lambda: [W1, b1, W2, b2], note="backpropagation written by hand")
    if row == "W4a":
        return Callable(lambda X: X.sum(axis=0), (a["X"],))
    if row == "W4b":
        return Callable(lambda X: X.sum(axis=1), (a["X"],))
    if row == "W4c":
        return Callable(np.max, (a["X"],))
    if row == "W5":
        two, three = c(2), c(3)
        return Callable(lambda x, y: ((x + y) * two, (x + y) * three), (a["x"], a["y"]),
                        note="as written: x+y computed twice")
    if row in ("W6", "W6t"):
        return Callable(np.add, (a["x"], c(1)),
                        note="np.add(x, 1) on a 0-d array" + ("; no input check to skip" if row == "W6t" else ""))
    if row == "W7":
        half, quarter = c(0.5), c(0.25)
        return Callable(lambda A, B, Z: half * (A @ B) + quarter * Z, (a["A"], a["B"], a["Z"]))
    if row == "W7s":
        half, quarter = c(0.5), c(0.25)
        Z = a["Z"].copy()

        def w7s(A, B):
            np.add(half * (A @ B), quarter * Z, out=Z)
        return Callable(w7s, (a["A"], a["B"]), outputs=lambda r: [], state=lambda: [Z],
                        note="Z updated in place (np.add(..., out=Z))")
    if row == "W12":
        return Callable(lambda X: np.cumsum(np.sort(X, axis=1), axis=1), (a["X"],))
    if row == "W13":
        half = c(0.5)

        def w13(E, idx):
            t = np.tanh(E[idx])
            g = np.zeros_like(E)
            np.add.at(g, idx, t * (c(1) - t * t))
            return half * np.sum(t * t), g
        return Callable(w13, (a["E"], a["idx"]), outputs=lambda r: list(r),
                        note="gradient written by hand: np.add.at of tanh' rows")
    raise KeyError(row)


def build_numexpr(row, dt, a):
    import numexpr as ne
    import numpy as np
    c = np.dtype(dt).type
    if row in ("W1", "W1s"):
        one = c(1)
        ex = "exp(x)*y + tanh(z) - x*x/(one+y)"

        def w1(x, y, z):
            return ne.evaluate(ex, local_dict={"x": x, "y": y, "z": z, "one": one})
        return Callable(w1, (a["x"], a["y"], a["z"]),
                        note="numexpr %d threads" % ne.get_num_threads())
    if row == "W5":
        two, three = c(2), c(3)

        def w5(x, y):
            d = {"x": x, "y": y, "two": two, "three": three}
            return ne.evaluate("(x+y)*two", local_dict=d), ne.evaluate("(x+y)*three", local_dict=d)
        return Callable(w5, (a["x"], a["y"]), note="two evaluate() calls (one output each)")
    raise NotApplicable()


class NotApplicable(Exception):
    pass


def build_scipy(row, dt, a):
    if row == "W8":
        return Callable(lambda S, D: S @ D, (a["S"], a["D"]),
                        note="scipy.sparse csr_matrix @ D (one thread; int32 indices)")
    if row == "W8g":
        return Callable(lambda S, D: S.T @ (S @ D), (a["S"], a["D"]),
                        note="S.T @ (S @ D), gradient written by hand; S.T is a CSC view (one thread)")
    raise NotApplicable()


def build_pytensor(row, dt, a, mode_name):
    import numpy as np
    import pytensor
    import pytensor.tensor as pt
    from pytensor.compile.mode import get_mode
    mode = get_mode(mode_name)

    def c(v):
        return pt.constant(np.asarray(v, dtype=dt))

    def fn(inputs, outputs, updates=None, trust_input=False):
        return pytensor.function(inputs, outputs, updates=updates, mode=mode, trust_input=trust_input)

    if row in ("W1", "W1s"):
        x, y, z = (pt.vector(n, dtype=dt) for n in "xyz")
        f = fn([x, y, z], pt.exp(x) * y + pt.tanh(z) - x * x / (c(1) + y))
        return Callable(f, (a["x"], a["y"], a["z"]))
    if row == "W2":
        X, y = pt.matrix("X", dtype=dt), pt.vector("y", dtype=dt)
        w = pytensor.shared(a["w"].copy(), "w")
        b = pytensor.shared(a["b"].copy(), "b")
        p = pt.sigmoid(pt.dot(X, w) + b)
        xent = -y * pt.log(p) - (c(1) - y) * pt.log(c(1) - p)
        cost = xent.mean() + c(0.01) * pt.sum(pt.sqr(w))
        gw, gb = pytensor.grad(cost, [w, b])
        f = fn([X, y], cost, updates=[(w, w - c(0.1) * gw), (b, b - c(0.1) * gb)])
        return Callable(f, (a["X"], a["y"]),
                        state=lambda: [w.get_value(borrow=True), b.get_value(borrow=True)])
    if row == "W3":
        X, t = pt.matrix("X", dtype=dt), pt.vector("t", dtype="int64")
        params = [pytensor.shared(a[k].copy(), k) for k in ("W1", "b1", "W2", "b2")]
        W1, b1, W2, b2 = params
        h = pt.tanh(pt.dot(X, W1) + b1)
        logits = pt.dot(h, W2) + b2
        sm = pt.special.softmax(logits, axis=-1)
        loss = -pt.mean(pt.log(sm)[pt.arange(t.shape[0]), t])
        g = pytensor.grad(loss, params)
        f = fn([X, t], loss, updates=[(p, p - c(0.1) * gp) for p, gp in zip(params, g)])
        return Callable(f, (a["X"], a["t"]), state=lambda: [p.get_value(borrow=True) for p in params])
    if row in ("W4a", "W4b", "W4c"):
        X = pt.matrix("X", dtype=dt)
        out = {"W4a": lambda: pt.sum(X, axis=0), "W4b": lambda: pt.sum(X, axis=1), "W4c": lambda: pt.max(X)}[row]()
        return Callable(fn([X], out), (a["X"],))
    if row == "W5":
        x, y = pt.vector("x", dtype=dt), pt.vector("y", dtype=dt)
        return Callable(fn([x, y], [(x + y) * c(2), (x + y) * c(3)]), (a["x"], a["y"]))
    if row in ("W6", "W6t"):
        x = pt.scalar("x", dtype=dt)
        f = fn([x], x + c(1), trust_input=row == "W6t")
        return Callable(f, (a["x"],), note="0-d array argument" + (", trust_input=True" if row == "W6t" else ""))
    if row in ("W8", "W8g"):
        import pytensor.sparse as ps
        S, D = ps.csr_matrix("S", dtype=dt), pt.matrix("D", dtype=dt)
        out = ps.structured_dot(S, D)
        if row == "W8g":
            out = pytensor.grad(c(0.5) * pt.sum(pt.sqr(out)), D)
        return Callable(fn([S, D], out), (a["S"], a["D"]),
                        note="pytensor.sparse structured_dot; S passed as a scipy.sparse csr_matrix")
    if row == "W9":
        x, t = pt.tensor3("x", dtype=dt), pt.tensor3("t", dtype=dt)
        params = [pytensor.shared(a[k].copy(), k) for k in ("Wx", "Wh", "bh", "Wy")]
        Wx, Wh, bh, Wy = params
        h0 = pt.zeros((32, 256), dtype=dt)
        H, _ = pytensor.scan(lambda x_t, h, Wx, Wh, bh: pt.tanh(pt.dot(x_t, Wx) + pt.dot(h, Wh) + bh),
                             sequences=[x], outputs_info=[h0], non_sequences=[Wx, Wh, bh])
        y = pt.dot(H, Wy)
        loss = pt.mean(pt.sqr(y - t))
        g = pytensor.grad(loss, params)
        f = fn([x, t], loss, updates=[(p, p - c(0.01) * gp) for p, gp in zip(params, g)])
        return Callable(f, (a["x"], a["t"]), state=lambda: [p.get_value(borrow=True) for p in params],
                        note="pytensor.scan, BPTT by pytensor.grad")
    if row == "W11":
        from pytensor.tensor.slinalg import cholesky, solve_triangular
        X, y = pt.matrix("X", dtype=dt), pt.vector("y", dtype=dt)
        n = a["X"].shape[0]
        sq = pt.sum(pt.sqr(X), axis=1)
        K = pt.exp(c(-0.5) * (sq[:, None] + sq[None, :] - c(2) * pt.dot(X, X.T))) + c(0.1) * pt.eye(n, dtype=dt)
        L = cholesky(K, lower=True)
        al = solve_triangular(L, y, lower=True)
        logp = c(-0.5) * pt.dot(al, al) - pt.sum(pt.log(pt.diag(L))) - c(0.5 * n * math.log(2 * math.pi))
        g = pytensor.grad(logp, X)
        return Callable(fn([X, y], [logp, pt.abs(g)]), (a["X"], a["y"]),
                        note="pytensor.tensor.slinalg cholesky, solve_triangular; pytensor.grad; returns |g|")
    if row == "W12":
        X = pt.matrix("X", dtype=dt)
        return Callable(fn([X], pt.cumsum(pt.sort(X, axis=1), axis=1)), (a["X"],))
    if row == "W13":
        E, idx = pt.matrix("E", dtype=dt), pt.lmatrix("idx")
        cost = c(0.5) * pt.sum(pt.sqr(pt.tanh(E[idx])))
        return Callable(fn([E, idx], [cost, pytensor.grad(cost, E)]), (a["E"], a["idx"]),
                        note="E[idx] with an integer matrix; pytensor.grad")
    if row in ("W7", "W7s"):
        A, B = pt.matrix("A", dtype=dt), pt.matrix("B", dtype=dt)
        if row == "W7":
            Z = pt.matrix("Z", dtype=dt)
            f = fn([A, B, Z], c(0.5) * pt.dot(A, B) + c(0.25) * Z)
            return Callable(f, (a["A"], a["B"], a["Z"]))
        Z = pytensor.shared(a["Z"].copy(), "Z")
        f = fn([A, B], [], updates=[(Z, c(0.5) * pt.dot(A, B) + c(0.25) * Z)])
        return Callable(f, (a["A"], a["B"]), outputs=lambda r: [], state=lambda: [Z.get_value(borrow=True)])
    raise KeyError(row)


def build_jax(row, dt, a):
    import jax
    import jax.numpy as jnp
    import numpy as np
    put = jax.device_put
    c = np.dtype(dt).type

    def ready(r):
        return jax.block_until_ready(r)

    if row in ("W1", "W1s"):
        f = jax.jit(lambda x, y, z: jnp.exp(x) * y + jnp.tanh(z) - x * x / (c(1) + y))
        return Callable(lambda *v: ready(f(*v)), [put(a[k]) for k in "xyz"],
                        note="inputs device_put once (not timed)")
    if row == "W2":
        def cost_fn(w, b, X, y):
            p = jax.nn.sigmoid(X @ w + b)
            xent = -y * jnp.log(p) - (c(1) - y) * jnp.log(c(1) - p)
            return jnp.mean(xent) + c(0.01) * jnp.sum(w * w)

        def step(X, y, w, b):
            cost, (gw, gb) = jax.value_and_grad(cost_fn, argnums=(0, 1))(w, b, X, y)
            return cost, w - c(0.1) * gw, b - c(0.1) * gb
        jstep = jax.jit(step, donate_argnums=(2, 3))
        st = [put(a["w"].copy()), put(a["b"].copy())]

        def w2(X, y):
            cost, st[0], st[1] = ready(jstep(X, y, st[0], st[1]))
            return cost
        return Callable(w2, (put(a["X"]), put(a["y"])), state=lambda: list(st),
                        note="jax.value_and_grad; parameters donated")
    if row == "W3":
        B = a["X"].shape[0]

        def loss_fn(params, X, t):
            W1, b1, W2, b2 = params
            h = jnp.tanh(X @ W1 + b1)
            logits = h @ W2 + b2
            logp = jax.nn.log_softmax(logits, axis=-1)
            return -jnp.mean(logp[jnp.arange(B), t])

        def step(X, t, params):
            loss, g = jax.value_and_grad(loss_fn)(params, X, t)
            return loss, tuple(p - c(0.1) * gp for p, gp in zip(params, g))
        jstep = jax.jit(step, donate_argnums=(2,))
        st = [tuple(put(a[k].copy()) for k in ("W1", "b1", "W2", "b2"))]

        def w3(X, t):
            loss, st[0] = ready(jstep(X, t, st[0]))
            return loss
        return Callable(w3, (put(a["X"]), put(a["t"])), state=lambda: list(st[0]),
                        note="jax.value_and_grad, log_softmax; parameters donated")
    if row in ("W4a", "W4b", "W4c"):
        f = jax.jit({"W4a": lambda X: jnp.sum(X, axis=0), "W4b": lambda X: jnp.sum(X, axis=1),
                     "W4c": jnp.max}[row])
        return Callable(lambda X: ready(f(X)), (put(a["X"]),))
    if row == "W5":
        f = jax.jit(lambda x, y: ((x + y) * c(2), (x + y) * c(3)))
        return Callable(lambda x, y: ready(f(x, y)), (put(a["x"]), put(a["y"])))
    if row in ("W6", "W6t"):
        f = jax.jit(lambda x: x + c(1))
        return Callable(lambda x: ready(f(x)), (put(a["x"]),),
                        note="0-d jax array" + ("; no input check to skip" if row == "W6t" else ""))
    if row == "W7":
        f = jax.jit(lambda A, B, Z: c(0.5) * (A @ B) + c(0.25) * Z)
        return Callable(lambda *v: ready(f(*v)), [put(a[k]) for k in "ABZ"])
    if row == "W9":
        def loss_fn(params, x, t):
            Wx, Wh, bh, Wy = params

            def cell(h, x_t):
                h = jnp.tanh(x_t @ Wx + h @ Wh + bh)
                return h, h
            _, H = jax.lax.scan(cell, jnp.zeros((32, 256), dtype=dt), x)
            return jnp.mean(jnp.square(H @ Wy - t))

        def step(x, t, params):
            loss, g = jax.value_and_grad(loss_fn)(params, x, t)
            return loss, tuple(p - c(0.01) * gp for p, gp in zip(params, g))
        jstep = jax.jit(step, donate_argnums=(2,))
        st = [tuple(put(a[k].copy()) for k in ("Wx", "Wh", "bh", "Wy"))]

        def w9(x, t):
            loss, st[0] = ready(jstep(x, t, st[0]))
            return loss
        return Callable(w9, (put(a["x"]), put(a["t"])), state=lambda: list(st[0]),
                        note="jax.lax.scan, jax.value_and_grad; parameters donated")
    if row == "W10":
        B = a["X"].shape[0]

        def conv(x, W):  # Theano's conv2d: 'valid', filter_flip (a true convolution)
            return jax.lax.conv_general_dilated(x, W[:, :, ::-1, ::-1], window_strides=(1, 1), padding="VALID",
                                                dimension_numbers=("NCHW", "OIHW", "NCHW"))

        def pool(x):  # max over 2x2 windows, stride 2, ignore_border
            return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

        def loss_fn(params, X, t):
            W1, b1, W2, b2, W3, b3, W4, b4 = params
            h1 = jnp.tanh(pool(conv(X, W1)) + b1[None, :, None, None])
            h2 = jnp.tanh(pool(conv(h1, W2)) + b2[None, :, None, None])
            h3 = jnp.tanh(h2.reshape(B, -1) @ W3 + b3)
            logp = jax.nn.log_softmax(h3 @ W4 + b4, axis=-1)
            return -jnp.mean(logp[jnp.arange(B), t])

        def step(X, t, params):
            loss, g = jax.value_and_grad(loss_fn)(params, X, t)
            return loss, tuple(p - c(0.1) * gp for p, gp in zip(params, g))
        jstep = jax.jit(step, donate_argnums=(2,))
        st = [tuple(put(a[k].copy()) for k in W10_PARAMS)]

        def w10(X, t):
            loss, st[0] = ready(jstep(X, t, st[0]))
            return loss
        return Callable(w10, (put(a["X"]), put(a["t"])), state=lambda: list(st[0]),
                        note="lax.conv_general_dilated (flipped kernel), lax.reduce_window max, "
                             "jax.value_and_grad; parameters donated")
    if row == "W11":
        import jax.scipy.linalg
        n = a["X"].shape[0]

        def logp_fn(X, y):
            sq = jnp.sum(X * X, axis=1)
            K = jnp.exp(c(-0.5) * (sq[:, None] + sq[None, :] - c(2) * (X @ X.T))) + c(0.1) * jnp.eye(n, dtype=dt)
            L = jnp.linalg.cholesky(K)
            al = jax.scipy.linalg.solve_triangular(L, y, lower=True)
            return c(-0.5) * (al @ al) - jnp.sum(jnp.log(jnp.diag(L))) - c(0.5 * n * math.log(2 * math.pi))

        f = jax.jit(lambda X, y: (lambda lg: (lg[0], jnp.abs(lg[1])))(jax.value_and_grad(logp_fn)(X, y)))
        return Callable(lambda X, y: ready(f(X, y)), (put(a["X"]), put(a["y"])),
                        note="jnp.linalg.cholesky, jax.scipy.linalg.solve_triangular, jax.value_and_grad; "
                             "returns |g|")
    if row == "W12":
        f = jax.jit(lambda X: jnp.cumsum(jnp.sort(X, axis=1), axis=1))
        return Callable(lambda X: ready(f(X)), (put(a["X"]),))
    if row == "W13":
        f = jax.jit(jax.value_and_grad(lambda E, idx: c(0.5) * jnp.sum(jnp.square(jnp.tanh(E[idx])))))
        return Callable(lambda E, idx: ready(f(E, idx)), (put(a["E"]), put(a["idx"])),
                        outputs=lambda r: [np.asarray(r[0]), np.asarray(r[1])], note="jax.value_and_grad")
    if row in ("W8", "W8g"):
        from jax.experimental import sparse as jsparse
        shape = a["S_shape"]

        def mat(data, indices, indptr):
            return jsparse.BCSR((data, indices, indptr), shape=shape, indices_sorted=True, unique_indices=True)
        if row == "W8":
            f = jax.jit(lambda data, indices, indptr, D: mat(data, indices, indptr) @ D)
        else:
            def cost(D, data, indices, indptr):
                return c(0.5) * jnp.sum(jnp.square(mat(data, indices, indptr) @ D))
            f = jax.jit(lambda data, indices, indptr, D: jax.grad(cost)(D, data, indices, indptr))
        args = [put(a["S_data"]), put(a["S_indices"].astype(np.int32)), put(a["S_indptr"].astype(np.int32)),
                put(a["D"])]
        return Callable(lambda *v: ready(f(*v)), args,
                        note="jax.experimental.sparse BCSR (int32 indices) @ D, jit%s; inputs device_put once" % (
                            ", jax.grad" if row == "W8g" else ""))
    if row == "W7s":
        f = jax.jit(lambda A, B, Z: c(0.5) * (A @ B) + c(0.25) * Z, donate_argnums=(2,))
        st = [put(a["Z"].copy())]

        def w7s(A, B):
            st[0] = ready(f(A, B, st[0]))
        return Callable(w7s, (put(a["A"]), put(a["B"])), outputs=lambda r: [], state=lambda: [st[0]],
                        note="Z donated (the update reuses its buffer)")
    raise KeyError(row)


W10_PARAMS = ("W1", "b1", "W2", "b2", "W3", "b3", "W4", "b4")


def torch_threads():
    """The threads PyTorch runs on: every core this process may use, as the
    other peers' thread pools (OpenBLAS, XLA, numexpr) do by default."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def build_torch(row, dt, a, compiled):
    """PyTorch as its users write a training step: autograd's backward(),
    then an in-place SGD update under no_grad. `compiled`: the same step
    through torch.compile (default mode; Dynamo breaks the graph at
    backward() and compiles the pieces around it). This is W10; the other
    rows are in build_torch_w11, build_torch_train and build_torch_array."""
    import torch
    import torch.nn.functional as F
    if row == "W11":
        return build_torch_w11(dt, a, compiled)
    if row in ("W2", "W3", "W9"):
        return build_torch_train(row, dt, a, compiled)
    if row != "W10":
        return build_torch_array(row, dt, a, compiled)
    torch.set_num_threads(torch_threads())
    params = [torch.from_numpy(a[k].copy()).requires_grad_() for k in W10_PARAMS]
    W1, b1, W2, b2, W3, b3, W4, b4 = params
    B = a["X"].shape[0]

    def step(X, t):
        # conv2d is a correlation: flip the kernel for Theano's true convolution.
        h1 = torch.tanh(F.max_pool2d(F.conv2d(X, W1.flip(2, 3)), 2) + b1[None, :, None, None])
        h2 = torch.tanh(F.max_pool2d(F.conv2d(h1, W2.flip(2, 3)), 2) + b2[None, :, None, None])
        h3 = torch.tanh(h2.reshape(B, -1) @ W3 + b3)
        loss = F.cross_entropy(h3 @ W4 + b4, t)
        for p in params:
            p.grad = None
        loss.backward()
        with torch.no_grad():
            for p in params:
                p.sub_(p.grad, alpha=0.1)
        return loss.detach()
    note = "conv2d (flipped kernel), max_pool2d, cross_entropy, backward(), in-place SGD; %d threads" % (
        torch.get_num_threads())
    if compiled:
        step = torch.compile(step)
        note = "torch.compile of the whole step (default mode); " + note
    return Callable(step, (torch.from_numpy(a["X"]), torch.from_numpy(a["t"])),
                    outputs=lambda r: [r.numpy()], state=lambda: [p.detach().numpy() for p in params], note=note)


def build_torch_w11(dt, a, compiled):
    """W11 as a PyTorch user writes it: the log-likelihood with
    torch.linalg.cholesky and solve_triangular, then backward() for the
    gradient with respect to X."""
    import torch
    torch.set_num_threads(torch_threads())
    n = a["X"].shape[0]
    eye = torch.eye(n, dtype=getattr(torch, dt))
    half_log_2pi = 0.5 * n * math.log(2 * math.pi)

    def step(X, y):
        X = X.detach().requires_grad_()
        sq = (X * X).sum(1)
        K = torch.exp(-0.5 * (sq[:, None] + sq[None, :] - 2 * (X @ X.T))) + 0.1 * eye
        L = torch.linalg.cholesky(K)
        al = torch.linalg.solve_triangular(L, y[:, None], upper=False)[:, 0]
        logp = -0.5 * (al @ al) - torch.log(torch.diagonal(L)).sum() - half_log_2pi
        logp.backward()
        return logp.detach(), X.grad.abs()
    note = "torch.linalg.cholesky, solve_triangular, backward(); returns |g|; %d threads" % torch.get_num_threads()
    if compiled:
        step = torch.compile(step)
        note = "torch.compile of the whole step (default mode); " + note
    return Callable(step, (torch.from_numpy(a["X"]), torch.from_numpy(a["y"])),
                    outputs=lambda r: [r[0].numpy(), r[1].numpy()], note=note)


def build_torch_train(row, dt, a, compiled):
    """The training steps W2 (logistic regression), W3 (the MLP) and W9 (the
    Elman RNN, a Python loop over the 100 time steps) as the W10 builder
    writes its step: the loss, grads set to None, backward(), an in-place SGD
    update under no_grad; returns the loss before the update. torch.compile
    unrolls W9's loop into one graph (the break at backward() aside)."""
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(torch_threads())
    names = {"W2": ("w", "b"), "W3": ("W1", "b1", "W2", "b2"), "W9": ("Wx", "Wh", "bh", "Wy")}[row]
    params = [torch.from_numpy(a[k].copy()).requires_grad_() for k in names]
    if row == "W2":
        w, b = params
        lr, args = 0.1, (a["X"], a["y"])

        def loss_fn(X, y):
            return F.binary_cross_entropy_with_logits(X @ w + b, y) + 0.01 * (w * w).sum()
        note = "binary_cross_entropy_with_logits(X @ w + b, y) + 0.01 sum(w*w)"
    elif row == "W3":
        W1, b1, W2, b2 = params
        lr, args = 0.1, (a["X"], a["t"])

        def loss_fn(X, t):
            return F.cross_entropy(torch.tanh(X @ W1 + b1) @ W2 + b2, t)
        note = "tanh, cross_entropy"
    else:
        Wx, Wh, bh, Wy = params
        lr, args = 0.01, (a["x"], a["t"])

        def loss_fn(x, t):
            h = torch.zeros(x.shape[1], Wh.shape[0], dtype=x.dtype)
            hs = []
            for x_t in x:  # the time steps
                h = torch.tanh(x_t @ Wx + h @ Wh + bh)
                hs.append(h)
            return F.mse_loss(torch.stack(hs) @ Wy, t)
        note = "a Python loop over the 100 time steps, mse_loss"

    def step(*args):
        loss = loss_fn(*args)
        for p in params:
            p.grad = None
        loss.backward()
        with torch.no_grad():
            for p in params:
                p.sub_(p.grad, alpha=lr)
        return loss.detach()
    note += ", backward(), in-place SGD; %d threads" % torch.get_num_threads()
    if compiled:
        step = torch.compile(step)
        note = "torch.compile of the whole step (default mode); " + note
    return Callable(step, [torch.from_numpy(v) for v in args], outputs=lambda r: [r.numpy()],
                    state=lambda: [p.detach().numpy() for p in params], note=note)


def build_torch_array(row, dt, a, compiled):
    """The rows without a training step as PyTorch users write them: W1, W5
    elementwise (W5 computes x+y twice, as written), W4 reductions, W6 x + 1
    on a 0-d tensor, W7 the gemm as written and W7s Z.addmm_ (the in-place
    gemm), W8 a torch.sparse_csr_tensor @ D and W8g backward() of
    0.5*sum((S @ D)**2) for the gradient with respect to D, W12 (torch.sort
    then torch.cumsum) and W13 (an embedding lookup by indexing, backward()
    for its scatter-add gradient). Python float constants: PyTorch keeps the
    tensors' dtype."""
    import torch
    torch.set_num_threads(torch_threads())
    t = torch.from_numpy

    def out1(r):
        return [r.numpy()]

    def out2(r):
        return [r[0].numpy(), r[1].numpy()]
    outputs, state = out1, None
    if row in ("W1", "W1s"):
        def step(x, y, z):
            return torch.exp(x) * y + torch.tanh(z) - x * x / (1 + y)
        args, note = (t(a["x"]), t(a["y"]), t(a["z"])), "the formula as written"
    elif row in ("W4a", "W4b", "W4c"):
        step = {"W4a": lambda X: X.sum(0), "W4b": lambda X: X.sum(1), "W4c": lambda X: X.max()}[row]
        args, note = (t(a["X"]),), {"W4a": "X.sum(0)", "W4b": "X.sum(1)", "W4c": "X.max()"}[row]
    elif row == "W5":
        def step(x, y):
            return (x + y) * 2, (x + y) * 3
        args, outputs, note = (t(a["x"]), t(a["y"])), out2, "as written: x+y computed twice"
    elif row in ("W6", "W6t"):
        def step(x):
            return x + 1
        args = (t(a["x"]),)
        note = "x + 1 on a 0-d tensor" + ("; no input check to skip" if row == "W6t" else "")
    elif row == "W7":
        def step(A, B, Z):
            return 0.5 * (A @ B) + 0.25 * Z
        args, note = (t(a["A"]), t(a["B"]), t(a["Z"])), "0.5 * (A @ B) + 0.25 * Z, as written"
    elif row == "W7s":
        Z = t(a["Z"].copy())

        def step(A, B):
            Z.addmm_(A, B, beta=0.25, alpha=0.5)
        args, outputs, state = (t(a["A"]), t(a["B"])), (lambda r: []), (lambda: [Z.numpy()])
        note = "Z.addmm_(A, B, beta=0.25, alpha=0.5): Z updated in place"
    elif row in ("W8", "W8g"):
        if compiled:
            raise NotApplicable()  # torch.compile does not support sparse tensors (see APPLIES)
        S = torch.sparse_csr_tensor(t(a["S_indptr"]), t(a["S_indices"]), t(a["S_data"]), size=a["S_shape"])
        if row == "W8":
            def step(S, D):
                return S @ D
            note = "torch.sparse_csr_tensor (int64 indices) @ D"
        else:
            def step(S, D):
                D = D.detach().requires_grad_()
                cost = 0.5 * (S @ D).square().sum()
                cost.backward()
                return D.grad
            note = "torch.sparse_csr_tensor (int64 indices) @ D, backward() for the gradient w.r.t. D"
        args = (S, t(a["D"]))
    elif row == "W12":
        def step(X):
            return torch.cumsum(torch.sort(X, dim=1).values, dim=1)
        args = (t(a["X"]),)
        note = "torch.sort(dim=1).values, torch.cumsum"
    elif row == "W13":
        def step(E, idx):
            E = E.detach().requires_grad_()
            cost = 0.5 * torch.tanh(E[idx]).square().sum()
            cost.backward()
            return cost.detach(), E.grad
        args, outputs = (t(a["E"]), t(a["idx"])), out2
        note = "E[idx] with an integer matrix, backward()"
    else:
        raise NotApplicable()
    note += "; %d threads" % torch.get_num_threads()
    if compiled:
        step = torch.compile(step)
        note = "torch.compile of the whole step (default mode); " + note
    return Callable(step, args, outputs=outputs, state=state, note=note)


def torch_compile_report():
    """What torch.compile did in this process: Dynamo's graphs and graph
    breaks (with their reasons), from its counters."""
    try:
        from torch._dynamo.utils import counters
        breaks = dict(counters.get("graph_break", {}))
        stats = dict(counters.get("stats", {}))
        reasons = sorted({(str(k).strip().splitlines() or ["?"])[0] for k in breaks})
        return {"graph_breaks": sum(breaks.values()), "graph_break_reasons": reasons[:5],
                "unique_graphs": stats.get("unique_graphs"), "calls_captured": stats.get("calls_captured")}
    except Exception as e:  # noqa: BLE001
        return {"error": "dynamo counters unreadable: %s" % e}


def blas_info():
    """The BLAS libraries loaded in this process (threadpoolctl)."""
    try:
        import threadpoolctl
        return [{"internal_api": i.get("internal_api"), "version": i.get("version"),
                 "architecture": i.get("architecture"), "num_threads": i.get("num_threads"),
                 "threading_layer": i.get("threading_layer"), "filepath": i.get("filepath")}
                for i in threadpoolctl.threadpool_info() if i.get("user_api") == "blas"]
    except Exception as e:  # noqa: BLE001
        return "threadpoolctl failed: %s" % e


def pytensor_c_missing():
    """What PyTensor's C back end lacks here, or None."""
    import sysconfig
    import pytensor
    why = []
    if not pytensor.config.cxx:
        why.append("no C++ compiler (pytensor.config.cxx is empty: g++ not found on PATH; apt-get install g++)")
    inc = sysconfig.get_paths().get("include") or sysconfig.get_config_var("INCLUDEPY") or "?"
    if not os.path.exists(os.path.join(inc, "Python.h")):
        why.append("Python headers missing: no Python.h in %s (install the interpreter's -dev package, "
                   "e.g. python3.12-dev, or use a pyenv build, which ships them)" % inc)
    return "; ".join(why) or None


def cpu_snapshot():
    """(wall s, CPU seconds every CPU spent busy, this process's CPU seconds):
    the difference of two tells how much of the machine something else
    used meanwhile. None where /proc/stat is not there."""
    try:
        with open("/proc/stat") as fh:
            f = [int(v) for v in fh.readline().split()[1:]]
        hz = os.sysconf("SC_CLK_TCK")
        busy = (sum(f[:8]) - f[3] - f[4]) / hz  # all but idle and iowait (guest is inside user)
        t = os.times()
        return time.perf_counter(), busy, t.user + t.system
    except (OSError, ValueError, IndexError):
        return None


def others_cores(before, after):
    """Cores' worth of CPU that other processes used between two snapshots."""
    if not before or not after or after[0] <= before[0]:
        return None
    return max(0.0, ((after[1] - before[1]) - (after[2] - before[2])) / (after[0] - before[0]))


def run_worker(args):
    import gc
    import numpy as np
    res = {"peer": args.peer, "workload": args.row, "dtype": args.dtype}
    try:
        # Imports are not compile time: done before the clock starts.
        import importlib
        for m in PEER_MODULES[args.peer]:
            importlib.import_module(m)
        if args.peer == "jax" and args.dtype == "float64":
            importlib.import_module("jax").config.update("jax_enable_x64", True)
        inp = Inputs(args.inputs)
        a = workload_args(inp, args.row, args.dtype)
        t0 = time.perf_counter()
        if args.peer == "numpy":
            f = build_numpy(args.row, args.dtype, a)
        elif args.peer == "numexpr":
            f = build_numexpr(args.row, args.dtype, a)
        elif args.peer == "scipy":
            f = build_scipy(args.row, args.dtype, a)
        elif args.peer == "pytensor-c":
            missing = pytensor_c_missing()
            if missing:
                raise RuntimeError(missing)
            f = build_pytensor(args.row, args.dtype, a, "CVM")
        elif args.peer == "pytensor-numba":
            f = build_pytensor(args.row, args.dtype, a, "NUMBA")
        elif args.peer == "jax":
            f = build_jax(args.row, args.dtype, a)
        elif args.peer in ("torch", "torch-compile"):
            f = build_torch(args.row, args.dtype, a, args.peer == "torch-compile")
        else:
            raise KeyError(args.peer)
        build_s = time.perf_counter() - t0

        fn, fargs = f.fn, f.args
        t0 = time.perf_counter()
        r = fn(*fargs)
        first_s = time.perf_counter() - t0
        outs = [np.asarray(o) for o in f.outputs(r)]
        state = [np.asarray(s) for s in f.state()]
        sums = [float(np.sum(np.asarray(v, dtype=np.float64))) for v in outs + state]
        out_dtypes = sorted({str(o.dtype) for o in outs + state if o.dtype.kind == "f"})
        del r, outs, state

        fn(*fargs)  # the second warm-up call
        inner = 1
        if args.row == "W1s":
            inner = 2000
        elif args.row in ("W6", "W6t"):
            inner = args.loop_calls
        reps = 7 if args.row in ("W6", "W6t") else args.reps
        samples = []
        snap = cpu_snapshot()
        gc_was = gc.isenabled()
        gc.disable()
        try:
            for _ in range(reps):
                if inner == 1:
                    t0 = time.perf_counter()
                    fn(*fargs)
                    samples.append(time.perf_counter() - t0)
                else:
                    rng = range(inner)
                    t0 = time.perf_counter()
                    for _ in rng:
                        fn(*fargs)
                    samples.append((time.perf_counter() - t0) / inner)
        finally:
            if gc_was:
                gc.enable()
        others = others_cores(snap, cpu_snapshot())
        samples.sort()
        med = samples[len(samples) // 2]
        want = EXPECTED[args.row]
        rtol = RTOL.get(args.row, 1e-9)
        ok = len(sums) == len(want) and all(checksum_ok(g, w, rtol, args.dtype) for g, w in zip(sums, want))
        note = f.note
        if out_dtypes and out_dtypes != [args.dtype]:
            ok = False
            note = ((note + "; ") if note else "") + "computed in %s, not %s" % (",".join(out_dtypes), args.dtype)
        compile_ms = None
        if args.peer not in ("numpy", "scipy", "torch"):
            compile_ms = (build_s + max(0.0, first_s - med)) * 1e3
        res.update({
            "call_median_ms": med * 1e3, "call_min_ms": samples[0] * 1e3, "call_max_ms": samples[-1] * 1e3,
            "samples": reps, "calls_per_sample": inner,
            "compile_cold_ms": compile_ms, "build_ms": build_s * 1e3, "first_call_ms": first_s * 1e3,
            "checksum": sums, "expected_checksum": want, "checksum_ok": ok, "note": note, "error": None,
            "others_cpu_cores": others,
        })
        if args.peer in ("numpy", "pytensor-c"):
            res["blas"] = blas_info()
        if args.peer == "jax":
            import jax
            res["jax_backend"] = "%s (%s)" % (jax.default_backend(), ", ".join(str(d) for d in jax.devices()))
        if args.peer == "torch-compile":
            res["torch_compile"] = tc = torch_compile_report()
            if tc.get("graph_breaks"):
                res["note"] = "%s; %d graph break(s): %s" % (res.get("note") or "", tc["graph_breaks"],
                                                              "; ".join(tc["graph_break_reasons"]))
    except NotApplicable:
        res.update({"error": None, "not_applicable": True})
    except Exception as e:  # noqa: BLE001 - every failure is a table entry
        msg = ("%s: %s" % (type(e).__name__, e)).strip().replace("\n", " ")
        res.update({"error": msg[:400]})
    with open(args.out, "w") as fh:
        json.dump(res, fh)
    return 0


# ---------------------------------------------------------------------------
# measure (the parent of the workers, in the venv)


def versions():
    from importlib import metadata
    v = {}
    for name in ("numpy", "numexpr", "pytensor", "numba", "llvmlite", "jax", "jaxlib", "scipy", "threadpoolctl",
                 "torch"):
        try:
            v[name] = metadata.version(name)
        except Exception:  # noqa: BLE001
            v[name] = None
    return v


def environment(unset):
    import platform
    env = {"python": sys.version.split()[0], "python_executable": sys.executable,
           "platform": platform.platform(), "versions": versions(), "unset_env": unset}
    try:
        import numpy as np
        np.dot(np.ones((64, 64)), np.ones((64, 64)))  # load the BLAS
        env["numpy_blas"] = blas_info()
    except Exception as e:  # noqa: BLE001
        env["numpy_blas"] = "numpy failed: %s" % e
    try:
        import numexpr
        env["numexpr_threads"] = numexpr.get_num_threads()
    except Exception as e:  # noqa: BLE001
        env["numexpr_threads"] = "numexpr failed: %s" % e
    try:
        import pytensor
        env["pytensor"] = {"cxx": pytensor.config.cxx, "blas__ldflags": pytensor.config.blas__ldflags,
                           "openmp": bool(pytensor.config.openmp), "c_backend_missing": pytensor_c_missing()}
        try:
            out = subprocess.run([pytensor.config.cxx or "g++", "--version"], capture_output=True, text=True)
            env["pytensor"]["cxx_version"] = (out.stdout.splitlines() or ["?"])[0]
        except Exception as e:  # noqa: BLE001
            env["pytensor"]["cxx_version"] = "failed: %s" % e
    except Exception as e:  # noqa: BLE001
        env["pytensor"] = "pytensor failed: %s" % e
    env["cpu_count"] = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return env


def prime_pytensor(template):
    """A PyTensor base_compiledir holding only its helper modules (the cvm
    loop, cutils), compiled once per run: each PyTensor worker starts from a
    copy. Returns (seconds, error)."""
    code = "import pytensor.link.c.cvm, pytensor.link.c.cutils"
    env = dict(os.environ, PYTENSOR_FLAGS="base_compiledir=%s" % template)
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        return dt, "priming PyTensor's compiledir failed: %s" % (lines[-1] if lines else "exit %d" % p.returncode)
    return dt, None


def run_measure(args):
    t_start = time.time()
    rows, unknown = select([n for n in (args.only or "").split(",") if n])
    if unknown:
        print("bench/peers.py: unknown workload(s) %s" % ",".join(unknown), file=sys.stderr)
        return 2
    dtypes = dtypes_of(args.dtype)
    peers = [p for p in (args.peers or ",".join(PEERS)).split(",") if p]
    for p in peers:
        if p not in PEERS:
            print("bench/peers.py: unknown peer %s (%s)" % (p, ", ".join(PEERS)), file=sys.stderr)
            return 2
    reps = args.reps or (10 if args.quick else 20)
    loop_calls = 10 ** 4 if args.quick else 10 ** 5
    unset = json.loads(os.environ.get("PEERS_UNSET_ENV", "{}") or "{}")
    load_before = os.getloadavg()[0]
    env = environment(unset)
    self_test_inputs()

    work = args.workdir
    os.makedirs(work, exist_ok=True)
    inputs = os.path.join(work, "inputs")
    os.makedirs(inputs, exist_ok=True)
    setup = {}
    # --skip-compile: one compiledir kept across runs (warm after the first);
    # else a fresh copy of the template for every PyTensor worker.
    template = os.path.join(work, "pytensor-warm" if args.skip_compile else "pytensor-template")
    prime_error = None
    if any(p.startswith("pytensor") for p in peers):
        if os.path.isdir(template) and not args.skip_compile:
            shutil.rmtree(template)
        if not os.path.isdir(template):
            secs, prime_error = prime_pytensor(template)
            setup["pytensor_helpers_s"] = secs
            setup["pytensor_helpers_error"] = prime_error

    results = []
    timeout = args.timeout or (300 if args.quick else 900)
    total = sum(1 for d in dtypes for r in rows for p in peers if r in APPLIES.get(p, ROWS))
    done = 0
    for dt in dtypes:
        for row in rows:
            for peer in peers:
                if row not in APPLIES.get(peer, ROWS):
                    continue
                done += 1
                print("bench/peers: [%d/%d] %s %s %s" % (done, total, row, dt, peer), file=sys.stderr, flush=True)
                results.append(run_one(peer, row, dt, reps, loop_calls, inputs, template, work, timeout,
                                       prime_error, args.skip_compile))
    doc = {"tool": "bench/peers", "environment": env, "setup": setup,
           "run": {"command": args.command or " ".join(sys.argv), "dtypes": dtypes, "workloads": rows,
                   "peers": peers, "quick": bool(args.quick), "skip_compile": bool(args.skip_compile),
                   "samples": reps,
                   "loadavg_1min_before": load_before, "loadavg_1min_after": os.getloadavg()[0],
                   "w6_calls_per_loop": loop_calls, "timeout_s": timeout, "wall_s": time.time() - t_start,
                   "compile_definition": COMPILE_DEFINITION,
                   "call_definition": "median of `samples` samples after 2 warm-up calls (W1s: samples of "
                                      "2000 calls; W6/W6t: 7 loops of w6_calls_per_loop calls); per call"},
           "results": results}
    with open(args.out, "w") as fh:
        json.dump(doc, fh, indent=1)
    return 0


def run_one(peer, row, dt, reps, loop_calls, inputs, template, work, timeout, prime_error, skip_compile):
    base = {"peer": peer, "workload": row, "dtype": dt}
    if peer == "pytensor-c" and prime_error:
        return dict(base, error=prime_error)
    wdir = os.path.join(work, "w-%s-%s-%s" % (peer, row, dt))
    if os.path.isdir(wdir):
        shutil.rmtree(wdir)
    os.makedirs(wdir)
    env = dict(os.environ)
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    env["JAX_PLATFORMS"] = "cpu"
    env["NUMBA_CACHE_DIR"] = os.path.join(template if skip_compile else wdir, "numba-cache")
    env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(template if skip_compile else wdir, "inductor-cache")
    flags = [f for f in env.get("PYTENSOR_FLAGS", "").split(",") if f and not f.startswith(("base_compiledir",
                                                                                            "floatX"))]
    if peer.startswith("pytensor"):
        bc = template
        if not skip_compile:
            bc = os.path.join(wdir, "compiledir")
            if os.path.isdir(template):
                shutil.copytree(template, bc)
        flags += ["base_compiledir=%s" % bc, "floatX=%s" % dt]
    env["PYTENSOR_FLAGS"] = ",".join(flags)
    out = os.path.join(wdir, "result.json")
    cmd = [sys.executable, os.path.abspath(__file__), "worker", "--peer", peer, "--row", row, "--dtype", dt,
           "--reps", str(reps), "--loop-calls", str(loop_calls), "--inputs", inputs, "--out", out]
    log = os.path.join(wdir, "log.txt")
    t0 = time.perf_counter()
    try:
        with open(log, "w") as lf:
            p = subprocess.run(cmd, env=env, stdout=lf, stderr=subprocess.STDOUT, timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        res = dict(base, error="timed out after %d s" % timeout)
    else:
        if os.path.exists(out):
            with open(out) as fh:
                res = json.load(fh)
        else:
            with open(log, errors="replace") as fh:
                lines = [ln.strip() for ln in fh if ln.strip()]
            res = dict(base, error="worker died (exit %d): %s" % (rc, lines[-1][:300] if lines else "no output"))
    res["wall_s"] = time.perf_counter() - t0
    if skip_compile and res.get("compile_cold_ms") is not None:
        res["compile_cold_ms"] = None  # warm caches: not a cold figure
    # Keep the log of a failure for the reader; drop the compiledirs.
    for d in ("compiledir", "numba-cache", "inductor-cache"):
        shutil.rmtree(os.path.join(wdir, d), ignore_errors=True)
    if res.get("error"):
        res["log"] = log
    if not res.get("error") and not res.get("not_applicable"):
        shutil.rmtree(wdir, ignore_errors=True)
    return res


# ---------------------------------------------------------------------------
# report (standard library only)


def fmt_time(ms):
    """4 significant digits: 175.4 ms, 20.28 ms, 1.353 ms, 10.31 us, 480.1 ns."""
    if ms is None or not math.isfinite(ms):
        return "-"
    for factor, unit in ((1.0, "ms"), (1e3, "us"), (1e6, "ns")):
        v = ms * factor
        if v >= 1 or unit == "ns":
            if v >= 10000:
                return "%.0f %s" % (v, unit)
            return "%.4g %s" % (v, unit)
    return "-"


def fmt_compile(ms):
    if ms is None or not math.isfinite(ms):
        return None
    if ms >= 1000:
        return "%.2f s" % (ms / 1e3)
    if ms >= 10:
        return "%.0f ms" % ms
    return "%.1f ms" % ms


def limit_of(row, dtype, machine):
    """(name, text, kind, value): kind 'triad' (bytes against GB/s: higher is
    better) or 'gemm' (time against the direct gemm: lower is better)."""
    if not machine:
        return None
    if row in ("W7", "W7s"):
        key = "sgemm" if dtype == "float32" else "dgemm"
        g = machine.get(key) or {}
        if g.get("median_ms"):
            return key, "%s %s" % (key, fmt_time(g["median_ms"])), "gemm", g["median_ms"]
        return None
    if bytes_per_call(row, dtype) > 0 and machine.get("triad_gbs"):
        return "triad", "triad %.1f GB/s" % machine["triad_gbs"], "triad", machine["triad_gbs"]
    return None


def ratio_to_limit(row, dtype, call_ms, lim):
    if not lim or call_ms is None or call_ms <= 0:
        return None
    if lim[2] == "gemm":
        return call_ms / lim[3]
    return bytes_per_call(row, dtype) / (call_ms * 1e-3) / 1e9 / lim[3]


def load_json(path, what):
    try:
        with open(path) as fh:
            return json.load(fh), None
    except Exception as e:  # noqa: BLE001
        return None, "%s unreadable (%s): %s" % (what, path, e)


def run_report(args):
    rows, unknown = select([n for n in (args.only or "").split(",") if n])
    if unknown:
        print("bench/peers: unknown workload(s) %s" % ",".join(unknown), file=sys.stderr)
        return 2
    dtypes = dtypes_of(args.dtype)
    ours, ours_error = (None, args.ours_error)
    if args.ours:
        ours, err = load_json(args.ours, "our JSON")
        ours_error = ours_error or err
    peers_doc, peers_error = (None, args.peers_error)
    if args.peers and not peers_error:
        peers_doc, err = load_json(args.peers, "the peers' JSON")
        peers_error = err
    machine = (ours or {}).get("machine") or {}
    ours_rows = {(r.get("workload"), r.get("dtype")): r for r in (ours or {}).get("results", [])}
    peer_names = list(PEERS)
    if peers_doc:
        peer_names = [p for p in PEERS if p in peers_doc.get("run", {}).get("peers", PEERS)]
    presults = {}
    for r in (peers_doc or {}).get("results", []):
        presults[(r["workload"], r["dtype"], r["peer"])] = r

    notes = []  # footnotes

    def footnote(text):
        if text in notes:
            return notes.index(text) + 1
        notes.append(text)
        return len(notes)

    merged_rows = []
    table = []
    busy_cells = []
    for dt in dtypes:
        for row in rows:
            o = ours_rows.get((row, dt))
            lim = limit_of(row, dt, machine)
            entry = {"workload": row, "dtype": dt, "size": SIZES[row], "limit": lim[0] if lim else None,
                     "ours": None, "peers": {}}
            cells = [row, dt, SIZES[row]]
            if o and o.get("call_median_ms") is not None and not o.get("error"):
                entry["ours"] = {k: o.get(k) for k in ("call_median_ms", "call_min_ms", "call_max_ms",
                                                       "compile_cold_ms", "compile_warm_ms", "checksum",
                                                       "checksum_ok", "ratio_to_limit", "target", "target_met",
                                                       "call_1thread_median_ms", "round_medians_ms",
                                                       "paired_floor_ratio")}
                c = fmt_compile(o.get("compile_cold_ms"))
                txt = fmt_time(o["call_median_ms"]) + (" (%s)" % c if c else "")
                if o.get("call_1thread_median_ms") is not None:
                    txt += " 1t %s" % fmt_time(o["call_1thread_median_ms"])
                if o.get("checksum_ok") is False:
                    txt += " BAD[%d]" % footnote("ours %s %s: checksum %s, expected %s" % (
                        row, dt, o.get("checksum"), o.get("expected_checksum")))
                cells.append(txt)
            elif o and o.get("error"):
                cells.append("n/a[%d]" % footnote("ours %s %s: %s" % (row, dt, o["error"])))
            else:
                cells.append("-")
            best = None
            for p in peer_names:
                r = presults.get((row, dt, p))
                if row not in APPLIES.get(p, ROWS) or (r and r.get("not_applicable")):
                    entry["peers"][p] = None
                    cells.append("-")
                    continue
                if r is None:
                    why = peers_error or "not measured"
                    entry["peers"][p] = {"error": why}
                    cells.append("n/a[%d]" % footnote("peers: %s" % why))
                    continue
                if r.get("error"):
                    entry["peers"][p] = {"error": r["error"], "log": r.get("log")}
                    cells.append("n/a[%d]" % footnote("%s %s %s: %s" % (p, row, dt, r["error"])))
                    continue
                pr = ratio_to_limit(row, dt, r["call_median_ms"], lim)
                keep = {k: r.get(k) for k in ("call_median_ms", "call_min_ms", "call_max_ms", "samples",
                                              "calls_per_sample", "compile_cold_ms", "build_ms", "first_call_ms",
                                              "checksum", "expected_checksum", "checksum_ok", "note",
                                              "wall_s", "others_cpu_cores", "blas", "jax_backend", "torch_compile",
                                              "round_medians_ms") if k in r}
                keep["ratio_to_limit"] = pr
                entry["peers"][p] = keep
                c = fmt_compile(r.get("compile_cold_ms"))
                txt = fmt_time(r["call_median_ms"]) + (" (%s)" % c if c else "")
                oc = r.get("others_cpu_cores")
                if oc is not None and oc > BUSY_CORES:
                    txt = "*" + txt
                    busy_cells.append(oc)
                if not r.get("checksum_ok"):
                    txt += " BAD[%d]" % footnote("%s %s %s: checksum %s, expected %s%s" % (
                        p, row, dt, ", ".join("%.10g" % v for v in r.get("checksum") or []),
                        ", ".join("%.10g" % v for v in r.get("expected_checksum") or []),
                        " (%s)" % r["note"] if r.get("note") else ""))
                elif best is None or r["call_median_ms"] < best[1]:
                    best = (p, r["call_median_ms"])
                cells.append(txt)
            if best:
                entry["best_peer"] = best[0]
                entry["best_peer_call_median_ms"] = best[1]
                cells.append("%s %s" % (best[0], fmt_time(best[1])))
            else:
                entry["best_peer"] = None
                entry["best_peer_call_median_ms"] = None
                cells.append("-")
            ours_ms = entry["ours"]["call_median_ms"] if entry["ours"] else None
            ratio = ours_ms / best[1] if (best and ours_ms) else None
            entry["ratio_ours_to_best_peer"] = ratio
            cells.append("%.2f" % ratio if ratio is not None else "-")
            ours_lim = entry["ours"]["ratio_to_limit"] if entry["ours"] else None
            best_lim = ratio_to_limit(row, dt, best[1], lim) if best else None
            entry["best_peer_ratio_to_limit"] = best_lim
            cells.append(lim[1] if lim else "-")
            cells.append("%.2f" % ours_lim if ours_lim is not None else "-")
            cells.append("%.2f" % best_lim if best_lim is not None else "-")
            merged_rows.append(entry)
            table.append(cells)

    header = ["row", "dtype", "size", "ours"] + peer_names + ["best peer", "ours/best", "limit", "ours/limit", "best/limit"]
    out = sys.stdout
    prun = (peers_doc or {}).get("run") or {}
    print("theano-cpp bench/peers: W1..W13 of workloads.md, ours beside its peers (%s%s%s)" % (
        ", ".join(dtypes), ", --quick" if args.quick else "",
        ", --skip-compile: no cold compile of the peers" if prun.get("skip_compile") else ""), file=out)
    if machine:
        tri = machine.get("triad") or {}
        gem = [("%s %s (%.1f GFLOP/s)" % (k, fmt_time(machine[k]["median_ms"]), machine.get(k + "_gflops") or 0))
               for k in ("dgemm", "sgemm") if machine.get(k)]
        ob = (machine.get("libraries") or {}).get("openblas") or {}
        print("machine: %s cores (%s); ours: %s loop threads, OpenBLAS %s (%s, %s threads)" % (
            machine.get("cores"), machine.get("cpu"), machine.get("threads"), ob.get("version"), ob.get("core"),
            machine.get("blas_threads")), file=out)
        print("limits (our JSON): STREAM triad %.2f GB/s (%s threads)%s" % (
            machine.get("triad_gbs") or 0, tri.get("threads"), "; " + "; ".join(gem) if gem else ""), file=out)
    else:
        print("machine: no figures of ours (%s)" % (ours_error or "no JSON"), file=out)
    env = (peers_doc or {}).get("environment") or {}
    if env:
        v = env.get("versions") or {}
        print("peers: Python %s; numpy %s, numexpr %s (%s threads), scipy %s, pytensor %s, numba %s, jax %s, "
              "torch %s" % (env.get("python"), v.get("numpy"), v.get("numexpr"), env.get("numexpr_threads"),
                            v.get("scipy"), v.get("pytensor"), v.get("numba"), v.get("jax"), v.get("torch")),
              file=out)
        blas = env.get("numpy_blas")
        if isinstance(blas, list) and blas:
            b = blas[0]
            unset = env.get("unset_env") or {}
            print("       numpy's BLAS: %s %s, kernel %s, %s threads (%s); OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE: %s" % (
                b.get("internal_api"), b.get("version"), b.get("architecture"), b.get("num_threads"),
                b.get("threading_layer"),
                "unset for the peers (were %s)" % ", ".join("%s=%s" % kv for kv in sorted(unset.items()))
                if unset else "not set"), file=out)
        pc = env.get("pytensor")
        if isinstance(pc, dict) and pc.get("c_backend_missing"):
            print("       pytensor C: not usable: %s" % pc["c_backend_missing"], file=out)
        elif isinstance(pc, dict):
            print("       pytensor C: %s, blas__ldflags '%s', openmp %s" % (
                pc.get("cxx_version"), pc.get("blas__ldflags"), pc.get("openmp")), file=out)
            if not pc.get("blas__ldflags"):
                print("       pytensor C links no BLAS (blas__ldflags empty: its dot products fall back to "
                      "slower code; apt-get install libopenblas-dev)", file=out)
            numpy_libs = {b.get("filepath") for b in blas} if isinstance(blas, list) else set()
            own = {}
            for r in (peers_doc or {}).get("results", []):
                if r.get("peer") == "pytensor-c" and isinstance(r.get("blas"), list):
                    for b in r["blas"]:
                        if b.get("filepath") not in numpy_libs:
                            own[b.get("filepath")] = b
            for b in own.values():
                print("       pytensor C's gemm/gemv: %s %s, kernel %s, %s threads (%s)" % (
                    b.get("internal_api"), b.get("version"), b.get("architecture"), b.get("num_threads"),
                    b.get("filepath")), file=out)
        elif pc:
            print("       %s" % pc, file=out)
    elif peers_error:
        print("peers: not measured: %s" % peers_error, file=out)
    print("each cell: call median (cold compile); '-': not in our JSON, or the peer does not do that row; "
          "ours/best < 1: ours faster;", file=out)
    rounds = max(((ours or {}).get("run") or {}).get("rounds") or 1, prun.get("rounds") or 1)
    if rounds > 1:
        print("%d rounds: each call median is the median of the rounds' medians (ours first in odd rounds, the "
              "peers first in even ones; cold compiles from round 1; ours/limit: the median of each round's "
              "ratio to its own limits)" % rounds, file=out)
    print("ours '1t': the same function compiled with THEANO_FLAGS threads=1 (W8, W8g; SciPy runs on one "
          "thread);", file=out)
    print("limit ratios as bench/run: triad = achieved GB/s / triad GB/s (higher is better), "
          "dgemm/sgemm = call / direct gemm call (lower is better)", file=out)
    print("", file=out)
    widths = [max(len(str(r[i])) for r in table + [header]) for i in range(len(header))]
    right = set(range(3, len(header)))

    def line(cells):
        parts = []
        for i, c in enumerate(cells):
            parts.append(str(c).rjust(widths[i]) if i in right else str(c).ljust(widths[i]))
        return "  ".join(parts).rstrip()
    print(line(header), file=out)
    for cells in table:
        print(line(cells), file=out)
    if notes or busy_cells:
        print("", file=out)
    if busy_cells:
        print("*  other processes used %.2f to %.2f cores while that peer's samples ran (over %.2f: the "
              "figure is disturbed; others_cpu_cores in the JSON)" % (min(busy_cells), max(busy_cells),
                                                                        BUSY_CORES), file=out)
    for i, n in enumerate(notes, 1):
        print("[%d] %s" % (i, n), file=out)
    floors = ["%s %.2f" % (dt, o["paired_floor_ratio"]) for (row, dt), o in sorted(ours_rows.items())
              if row == "W7" and o.get("paired_floor_ratio") is not None]
    if floors:
        print("", file=out)
        print("W7 against a hand-written copy of 0.25*Z into a new matrix and the same gemm, timed beside it (the "
              "floor of any program returning a new matrix; 1.00 = no cost of ours): %s" % ", ".join(floors),
              file=out)
    if peers_doc:
        run = peers_doc.get("run", {})
        setup = peers_doc.get("setup", {})
        extra = ""
        if setup.get("pytensor_helpers_s") is not None:
            extra = "; PyTensor's helper modules (once per run, not in any cold figure): %.1f s" % (
                setup["pytensor_helpers_s"])
        print("", file=out)
        print("peers: %s samples per row (W1s: 2000 calls a sample; W6/W6t: 7 loops of %s calls), wall %.0f s%s" % (
            run.get("samples"), run.get("w6_calls_per_loop"), run.get("wall_s") or 0, extra), file=out)
        print("cold compile of a peer: %s" % run.get("compile_definition", COMPILE_DEFINITION), file=out)
        lb, la = run.get("loadavg_1min_before"), run.get("loadavg_1min_after")
        if lb is not None and la is not None:
            print("load average (1 min) before / after the peers: %.2f / %.2f on %s cores (the peers' own "
                  "work counts about 1 in the second; more means something else ran beside them)" % (
                      lb, la, env.get("cpu_count")), file=out)
    if args.json:
        doc = {"tool": "bench/peers", "machine": machine or None,
               "ours_run": (ours or {}).get("run"), "ours_source": args.ours, "ours_error": ours_error,
               "peers_environment": env or None, "peers_setup": (peers_doc or {}).get("setup"),
               "peers_run": (peers_doc or {}).get("run"), "peers_error": peers_error,
               "peers": peer_names, "rows": merged_rows, "notes": notes}
        try:
            with open(args.json, "w") as fh:
                json.dump(doc, fh, indent=1, allow_nan=False, default=str)
        except (OSError, ValueError) as e:
            print("bench/peers: could not write %s: %s" % (args.json, e), file=sys.stderr)
            return 1
        print("bench/peers: wrote %s" % args.json, file=sys.stderr)
    return 0


def merge_rounds(docs, kind):
    """One document from the rounds' documents of one kind ('ours' or
    'peers'), the first round's as the base (its compile figures, machine
    and environment stay): per row, call_median_ms becomes the median of the
    rounds' medians (the rounds alternate ours and the peers, so a
    neighbour's burst in one round moves one sample, not the verdict),
    call_min_ms the least, call_max_ms the most; round_medians_ms lists them.
    Ours also take the median of the rounds' ratio_to_limit (each against
    its own round's limits) and achieved_gbs; the targets were judged per
    round by bench/run, so target_met and miss are cleared. A row that failed
    or missed its checksum in any round keeps that error or mark."""
    base = json.loads(json.dumps(docs[0]))

    def key(r):
        return (r.get("workload"), r.get("dtype")) + ((r.get("peer"),) if kind == "peers" else ())

    others = [{key(r): r for r in d.get("results", [])} for d in docs[1:]]
    for r in base.get("results", []):
        rounds = [r] + [o.get(key(r)) for o in others]
        bad = [x for x in rounds if x is None or x.get("error") or x.get("call_median_ms") is None]
        if bad:
            if not r.get("error"):
                first = next((x for x in bad if x is not None and x.get("error")), None)
                r["error"] = (first["error"] if first else "not measured in every round")
            continue
        medians = [x["call_median_ms"] for x in rounds]
        r["round_medians_ms"] = medians
        r["call_median_ms"] = statistics.median(medians)
        r["call_min_ms"] = min(x.get("call_min_ms", x["call_median_ms"]) for x in rounds)
        r["call_max_ms"] = max(x.get("call_max_ms", x["call_median_ms"]) for x in rounds)
        r["checksum_ok"] = all(x.get("checksum_ok") for x in rounds)
        if kind == "ours":
            for k in ("ratio_to_limit", "achieved_gbs", "paired_floor_ratio"):
                vals = [x.get(k) for x in rounds]
                r[k] = statistics.median(vals) if all(v is not None for v in vals) else None
            r["target_met"] = None
            r["miss"] = None
        else:
            cores = [x.get("others_cpu_cores") for x in rounds if x.get("others_cpu_cores") is not None]
            if cores:
                r["others_cpu_cores"] = statistics.median(cores)
    base.setdefault("run", {})["rounds"] = len(docs)
    return base


def run_merge(args):
    docs = []
    for path in args.inputs:
        d, err = load_json(path, "round %d's JSON" % (len(docs) + 1))
        if err:
            print("bench/peers: %s" % err, file=sys.stderr)
            return 1
        docs.append(d)
    try:
        with open(args.out, "w") as fh:
            json.dump(merge_rounds(docs, args.kind), fh)
    except OSError as e:
        print("bench/peers: could not write %s: %s" % (args.out, e), file=sys.stderr)
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--only", default="")
    m.add_argument("--dtype", default="float64", choices=["float64", "float32", "all"])
    m.add_argument("--quick", action="store_true")
    m.add_argument("--reps", type=int, default=0)
    m.add_argument("--peers", default="")
    m.add_argument("--timeout", type=int, default=0)
    m.add_argument("--skip-compile", action="store_true")
    m.add_argument("--workdir", required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--command", default="")
    w = sub.add_parser("worker")
    w.add_argument("--peer", required=True)
    w.add_argument("--row", required=True)
    w.add_argument("--dtype", required=True)
    w.add_argument("--reps", type=int, required=True)
    w.add_argument("--loop-calls", type=int, required=True)
    w.add_argument("--inputs", required=True)
    w.add_argument("--out", required=True)
    r = sub.add_parser("report")
    r.add_argument("--ours", default="")
    r.add_argument("--ours-error", default="")
    r.add_argument("--peers", default="")
    r.add_argument("--peers-error", default="")
    r.add_argument("--only", default="")
    r.add_argument("--dtype", default="float64", choices=["float64", "float32", "all"])
    r.add_argument("--quick", action="store_true")
    r.add_argument("--json", default="")
    g = sub.add_parser("merge")
    g.add_argument("--kind", required=True, choices=["ours", "peers"])
    g.add_argument("--out", required=True)
    g.add_argument("inputs", nargs="+")
    a = ap.parse_args()
    if a.cmd == "merge":
        return run_merge(a)
    if a.cmd == "measure":
        return run_measure(a)
    if a.cmd == "worker":
        return run_worker(a)
    return run_report(a)


if __name__ == "__main__":
    sys.exit(main())
