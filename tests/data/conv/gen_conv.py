"""PyTorch-made fixtures of tests/compiler/tensor/test_conv_fixtures.cpp:
convolutions (2-d with stride, padding, dilation and groups; 3-d), their
gradients wrt input and filters (autograd of sum(out * g)), and pooling
(max; average with and without the padding in the count), all float64.

    python3 tests/data/conv/gen_conv.py    (writes the .npy files beside it)

Made with torch 2.15.0 (the version bench/peers pins), computed on the CPU. PyTorch's conv2d
is a cross-correlation: theano's conv2d with filter_flip=False.
"""
import os

import numpy as np
import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
torch.set_default_dtype(torch.float64)


def ramp(shape, a, b):
    """sin(a * i + b) over the flat index i: inputs both sides can rebuild."""
    n = int(np.prod(shape))
    return np.sin(a * np.arange(n, dtype=np.float64) + b).reshape(shape)


def save(name, arr):
    np.save(os.path.join(HERE, name + ".npy"), np.ascontiguousarray(arr, dtype=np.float64))


def conv_case(name, x, w, g, conv, **kw):
    xt = torch.tensor(x, requires_grad=True)
    wt = torch.tensor(w, requires_grad=True)
    out = conv(xt, wt, **kw)
    (out * torch.tensor(g)).sum().backward()
    save(name + "_x", x)
    save(name + "_w", w)
    save(name + "_g", g)
    save(name + "_out", out.detach().numpy())
    save(name + "_gx", xt.grad.numpy())
    save(name + "_gw", wt.grad.numpy())


# 2-d: stride (2, 1), padding (1, 2), dilation (1, 2), 2 groups.
x = ramp((2, 4, 7, 6), 0.37, 0.1)
w = ramp((6, 2, 3, 2), 0.91, -0.4)
kw2 = dict(stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=2)
g = ramp(tuple(F.conv2d(torch.tensor(x), torch.tensor(w), **kw2).shape), 0.53, 0.7)
conv_case("conv2d", x, w, g, F.conv2d, **kw2)

# 3-d: stride (1, 2, 1), padding 1.
x3 = ramp((2, 2, 5, 4, 6), 0.29, 0.2)
w3 = ramp((3, 2, 2, 3, 2), 0.77, 0.5)
kw3 = dict(stride=(1, 2, 1), padding=1)
g3 = ramp(tuple(F.conv3d(torch.tensor(x3), torch.tensor(w3), **kw3).shape), 0.61, -0.2)
conv_case("conv3d", x3, w3, g3, F.conv3d, **kw3)

# Pooling over (2, 3, 7, 6): max 3x2 stride (2, 1) (whole windows: ignore_border),
# average 3x3 stride 2 padding 1 with the padding counted / not counted.
xp = ramp((2, 3, 7, 6), 0.43, 0.3)
save("pool_x", xp)
save("pool_max", F.max_pool2d(torch.tensor(xp), (3, 2), stride=(2, 1)).numpy())
save("pool_avg_inc", F.avg_pool2d(torch.tensor(xp), 3, stride=2, padding=1, count_include_pad=True).numpy())
save("pool_avg_exc", F.avg_pool2d(torch.tensor(xp), 3, stride=2, padding=1, count_include_pad=False).numpy())
print("torch", torch.__version__, "fixtures written to", HERE)
