// The anchor workloads as graphs (see workloads.h); formulas, seeds and
// checksums copied from docs/workloads.md.
#include "workloads.h"

#include <cmath>

#include <theano/gpu/context.h>
#include <theano/gpu/ops.h>
#include <theano/gpu/type.h>
#include <theano/sparse/ops.h>
#include <theano/tensor/conv.h>
#include <theano/tensor/linalg.h>
#include <theano/tensor/linalg_structure.h>
#include <theano/tensor/pool.h>

#include "workload_inputs.h"

namespace theano::bench {
namespace T = theano::tensor;

namespace {

/// A floating constant in the workload's dtype ("every floating constant in
/// float32" for the float32 variants).
Var c(double v, DType dtype) { return T::constant(NDArray::full({}, v, dtype)); }

Var vec(const char* name, DType d) { return T::vector(name, d); }
Var mat(const char* name, DType d) { return T::matrix(name, d); }

void w1(Workload& w, bool small, bool with_args) {
  const DType d = w.dtype;
  Var x = vec("x", d), y = vec("y", d), z = vec("z", d);
  Var out = T::exp(x) * y + T::tanh(z) - x * x / (c(1, d) + y);
  out->set_name("out");
  w.inputs = {x, y, z};
  w.outputs = {out};
  const std::int64_t n = small ? 1000 : 10'000'000;
  w.size = small ? "n=10^3" : "n=10^7";
  w.expected = {small ? 363.7745121614696 : 3569070.875923593};
  if (with_args) w.args = {uniform(101, -1, 1, {n}, d), uniform(102, 0, 1, {n}, d), uniform(103, -1, 1, {n}, d)};
}

/// W1 with its inputs and output on the GPU THEANO_FLAGS device selects (a
/// bench-only variant, run with --device): the kernel's time against the
/// device's copy bandwidth, no transfer in the call.
void w1d(Workload& w, bool with_args) {
  const std::optional<std::string> ctx = gpu::selected_context();
  THEANO_USER_CHECK(ctx.has_value(), ValueError) << "W1d needs a GPU device (bench/run --device cuda)";
  const DType d = w.dtype;
  auto gvec = [&](const char* name) {
    return gpu::GpuArrayType::of(*tensor::TensorType::make(d, {std::nullopt}), *ctx)->make_variable(name);
  };
  Var x = gvec("x"), y = gvec("y"), z = gvec("z");
  Var out = T::exp(x) * y + T::tanh(z) - x * x / (c(1, d) + y);
  w.inputs = {x, y, z};
  w.outputs = {gpu::gpu_from_host(out, *ctx)};
  w.size = "n=10^7, on " + *ctx;
  w.expected = {3569070.875923593};
  if (with_args) {
    Device dev;
    THEANO_USER_CHECK(Device::parse(*ctx, &dev), ValueError) << "not a device: " << *ctx;
    const std::int64_t n = 10'000'000;
    w.args = {uniform(101, -1, 1, {n}, d).to(dev), uniform(102, 0, 1, {n}, d).to(dev),
              uniform(103, -1, 1, {n}, d).to(dev)};
  }
}

void w2(Workload& w, bool with_args) {
  const DType d = w.dtype;
  constexpr std::int64_t N = 4000, D = 784;
  Var X = mat("X", d), y = vec("y", d);
  Var wv = shared(uniform(203, -0.01, 0.01, {D}, d), "w");
  Var b = shared(NDArray::full({}, 0.0, d), "b");
  Var p = T::nnet::sigmoid(T::dot(X, wv) + b);
  Var xent = -y * T::log(p) - (c(1, d) - y) * T::log(c(1, d) - p);
  Var cost = T::mean(xent) + c(0.01, d) * T::sum(T::sqr(wv));
  cost->set_name("cost");
  const auto g = grad(cost, std::vector<Var>{wv, b});
  w.inputs = {X, y};
  w.outputs = {cost};
  w.options.updates = {{wv, wv - c(0.1, d) * g[0]}, {b, b - c(0.1, d) * g[1]}};
  w.state = {wv, b};
  w.size = "4000x784";
  w.expected = {0.6933034686149228, -0.12248195633044084, -0.0002835831078967248};
  if (with_args) {
    NDArray labels = uniform(202, 0, 1, {N}, DType::Float64);
    double* l = labels.data_as<double>();
    for (std::int64_t j = 0; j < N; ++j) l[j] = l[j] < 0.5 ? 1.0 : 0.0;
    w.args = {uniform(201, -1, 1, {N, D}, d), labels.astype(d)};
  }
}

void w3(Workload& w, bool with_args) {
  const DType d = w.dtype;
  constexpr std::int64_t B = 256, I = 784, H = 512, O = 10;
  const double a1 = std::sqrt(6.0 / (I + H)), a2 = std::sqrt(6.0 / (H + O));
  Var X = mat("X", d), t = T::vector("t", DType::Int64);
  Var W1 = shared(uniform(303, -a1, a1, {I, H}, d), "W1");
  Var b1 = shared(NDArray::zeros({H}, d), "b1");
  Var W2 = shared(uniform(304, -a2, a2, {H, O}, d), "W2");
  Var b2 = shared(NDArray::zeros({O}, d), "b2");
  Var h = T::tanh(T::dot(X, W1) + b1);
  Var logits = T::dot(h, W2) + b2;
  Var loss = T::mean(T::nnet::crossentropy_categorical_1hot(T::nnet::softmax(logits), t));
  loss->set_name("loss");
  const std::vector<Var> params{W1, b1, W2, b2};
  const auto g = grad(loss, params);
  w.inputs = {X, t};
  w.outputs = {loss};
  for (std::size_t i = 0; i < params.size(); ++i) w.options.updates[params[i]] = params[i] - c(0.1, d) * g[i];
  w.state = params;
  w.size = "batch 256, 784-512-10";
  // sum(b2) is rounding noise (|.| < 1e-17): compared with an absolute tolerance.
  w.expected = {2.40157705526665, -36.38413498172959, -0.016891973667929685, -4.017583404441713, 0.0};
  if (with_args) {
    NDArray labels = NDArray::empty({B}, DType::Int64);
    for (std::int64_t j = 0; j < B; ++j)
      labels.data_as<std::int64_t>()[j] = static_cast<std::int64_t>(std::floor(10 * splitmix_unit(302, j)));
    w.args = {uniform(301, 0, 1, {B, I}, d), labels};
  }
}

void w4(Workload& w, char which, bool with_args) {
  Var X = mat("X", w.dtype);
  Var out = which == 'a' ? T::sum(X, {0}) : which == 'b' ? T::sum(X, {1}) : T::max(X);
  out->set_name("out");
  w.inputs = {X};
  w.outputs = {out};
  w.size = "4000x4000";
  w.expected = {which == 'c' ? 0.9999998960685954 : -785.1097241408};
  w.checksum_rtol = which == 'c' ? 1e-12 : 1e-8;  // the sums' last digits depend on the order
  if (with_args) w.args = {uniform(401, -1, 1, {4000, 4000}, w.dtype)};
}

void w5(Workload& w, bool with_args) {
  const DType d = w.dtype;
  Var x = vec("x", d), y = vec("y", d);
  w.inputs = {x, y};
  w.outputs = {(x + y) * c(2, d), (x + y) * c(3, d)};
  w.size = "n=10^6";
  w.expected = {-610.5406181680153, -915.8109272520232};
  if (with_args) w.args = {uniform(501, -1, 1, {1'000'000}, d), uniform(502, -1, 1, {1'000'000}, d)};
}

// W6t: W6 compiled with trust_input (no argument filtering).
void w6(Workload& w, bool trust_input, bool with_args) {
  Var x = T::scalar("x", w.dtype);
  w.options.trust_input = trust_input;
  w.inputs = {x};
  w.outputs = {x + c(1, w.dtype)};
  w.size = "0-d";
  w.expected = {2.0};
  if (with_args) w.args = {NDArray::full({}, 1.0, w.dtype)};
}

void w7(Workload& w, bool in_place, bool with_args) {
  const DType d = w.dtype;
  Var A = mat("A", d), B = mat("B", d);
  w.size = "2000x2000";
  w.expected = {8536.669455410803};
  if (in_place) {
    Var Z = shared(uniform(703, -1, 1, {2000, 2000}, d), "Z");
    w.inputs = {A, B};
    w.options.updates = {{Z, c(0.5, d) * T::dot(A, B) + c(0.25, d) * Z}};
    w.state = {Z};
    if (with_args) w.args = {uniform(701, -1, 1, {2000, 2000}, d), uniform(702, -1, 1, {2000, 2000}, d)};
  } else {
    Var Z = mat("Z", d);
    w.inputs = {A, B, Z};
    w.outputs = {c(0.5, d) * T::dot(A, B) + c(0.25, d) * Z};
    if (with_args)
      w.args = {uniform(701, -1, 1, {2000, 2000}, d), uniform(702, -1, 1, {2000, 2000}, d),
                uniform(703, -1, 1, {2000, 2000}, d)};
  }
}

/// W8's sparse matrix S (100000 x 100000, 10 stored values per row) in
/// `dtype`: row r, slot k has column floor(u * 10000) + k * 10000 with u =
/// U(801; 0, 1)[r*10 + k] (computed in double whatever the dtype), value
/// U(802; -1, 1)[r*10 + k] cast to the dtype; indptr = 0, 10, 20, ...
SparseMatrix w8_matrix(DType dtype) {
  constexpr std::int64_t n = 100'000, per_row = 10, nnz = n * per_row;
  NDArray indices = NDArray::empty({nnz}, DType::Int64), indptr = NDArray::empty({n + 1}, DType::Int64);
  std::int64_t* idx = indices.data_as<std::int64_t>();
  for (std::int64_t i = 0; i < nnz; ++i)
    idx[i] = static_cast<std::int64_t>(std::floor(splitmix_unit(801, static_cast<std::uint64_t>(i)) * 10000)) +
             (i % per_row) * 10000;
  std::int64_t* ptr = indptr.data_as<std::int64_t>();
  for (std::int64_t r = 0; r <= n; ++r) ptr[r] = r * per_row;
  return SparseMatrix(SparseFormat::CSR, uniform(802, -1, 1, {nnz}, dtype), indices, indptr, {n, n});
}

/// W8: structured_dot(S, D); W8g: the gradient of 0.5*sum(structured_dot(S, D)^2)
/// with respect to D (S^T (S D)).
void w8(Workload& w, bool gradient, bool with_args) {
  const DType d = w.dtype;
  sparse::SparseInput S = sparse::csr_matrix("S", d);
  Var D = mat("D", d);
  Var out = sparse::structured_dot(S, D);
  w.inputs = S.ins();
  w.inputs.emplace_back(D);
  if (gradient) {
    const Var cost = c(0.5, d) * T::sum(T::sqr(out));
    out = grad(cost, D);
    w.expected = {99.8794867784095};
  } else {
    w.expected = {-4342.956475887548};
  }
  out->set_name(gradient ? "gD" : "out");
  w.outputs = {out};
  w.size = "nnz 10^6, D 10^5x64";
  w.one_thread_figure = true;
  if (with_args) {
    w.args = sparse::arguments(w8_matrix(d));
    w.args.push_back(uniform(803, -1, 1, {100'000, 64}, d));
  }
}

/// W9: one training step of an Elman RNN (T=100, B=32, I=64, H=256, tanh):
/// forward scan, y = H Wy, mean squared error, BPTT gradients of the four
/// parameters (shared variables) and an SGD update.
void w9(Workload& w, bool with_args) {
  const DType d = w.dtype;
  constexpr std::int64_t kT = 100, kB = 32, kI = 64, kH = 256;
  Var x = T::tensor3("x", d), t = T::tensor3("t", d);
  const double a = std::sqrt(6.0 / (kI + kH)), b = std::sqrt(6.0 / (2 * kH)), cy = std::sqrt(6.0 / (kH + 1));
  Var Wx = shared(uniform(902, -a, a, {kI, kH}, d), "Wx");
  Var Wh = shared(uniform(903, -b, b, {kH, kH}, d), "Wh");
  Var bh = shared(NDArray::zeros({kH}, d), "bh");
  Var Wy = shared(uniform(904, -cy, cy, {kH, 1}, d), "Wy");
  Var h0 = T::constant(NDArray::zeros({kB, kH}, d));
  ScanResult r = scan(
      [](const std::vector<Var>& s) {  // x_t, h_tm1, Wx, Wh, bh
        return StepResult{{T::tanh(T::dot(s[0], s[2]) + T::dot(s[1], s[3]) + s[4])}};
      },
      ScanArgs().sequences(x).outputs_info(h0).non_sequences({Wx, Wh, bh}).name("rnn"));
  Var H = T::reshape(r.outputs[0], {kT * kB, kH});
  Var y = T::reshape(T::dot(H, Wy), {kT, kB, 1});
  Var loss = T::mean(T::sqr(y - t));
  loss->set_name("loss");
  const std::vector<Var> params{Wx, Wh, bh, Wy};
  const std::vector<Var> g = grad(loss, params);
  for (std::size_t k = 0; k < params.size(); ++k) w.options.updates[params[k]] = params[k] - c(0.01, d) * g[k];
  w.inputs = {x, t};
  w.outputs = {loss};
  w.state = params;
  w.size = "T=100 B=32 I=64 H=256";
  w.expected = {0.7141678534881253, -2.9774954403427722, -19.539213412403, 0.00020351703058041668, 1.632188739977615};
  w.checksum_rtol = 1e-7;  // 100 steps of tanh and BLAS sums in another order
  if (with_args) w.args = {uniform(901, -1, 1, {kT, kB, kI}, d), uniform(905, -1, 1, {kT, kB, 1}, d)};
}


/// W10: one training step of Theano's LeNet-5 tutorial network on 64 images
/// of 28x28 (conv 5x5 -> max-pool 2x2 -> tanh, twice; a tanh hidden layer of
/// 500; softmax regression; SGD 0.1 on the 8 parameters, shared variables).
void w10(Workload& w, bool with_args) {
  const DType d = w.dtype;
  constexpr std::int64_t B = 64;
  const double a1 = std::sqrt(6.0 / (25 + 125)), a2 = std::sqrt(6.0 / (500 + 312.5)), a3 = std::sqrt(6.0 / 1300),
               a4 = std::sqrt(6.0 / 510);
  Var X = T::tensor4("X", d), t = T::vector("t", DType::Int64);
  Var W1 = shared(uniform(1003, -a1, a1, {20, 1, 5, 5}, d), "W1");
  Var b1 = shared(NDArray::zeros({20}, d), "b1");
  Var W2 = shared(uniform(1004, -a2, a2, {50, 20, 5, 5}, d), "W2");
  Var b2 = shared(NDArray::zeros({50}, d), "b2");
  Var W3 = shared(uniform(1005, -a3, a3, {800, 500}, d), "W3");
  Var b3 = shared(NDArray::zeros({500}, d), "b3");
  Var W4 = shared(uniform(1006, -a4, a4, {500, 10}, d), "W4");
  Var b4 = shared(NDArray::zeros({10}, d), "b4");
  const auto layer = [](const Var& in, const Var& W, const Var& b) {
    Var pooled = T::signal::pool_2d(T::nnet::conv2d(in, W), {2, 2}, {.ignore_border = true});
    return T::tanh(pooled + T::dimshuffle(b, {T::kNewAxis, 0, T::kNewAxis, T::kNewAxis}));
  };
  Var h2 = layer(layer(X, W1, b1), W2, b2);  // (64, 50, 4, 4)
  Var h3 = T::tanh(T::dot(T::flatten(h2, 2), W3) + b3);
  Var logits = T::dot(h3, W4) + b4;
  Var loss = T::mean(T::nnet::crossentropy_categorical_1hot(T::nnet::softmax(logits), t));
  loss->set_name("loss");
  const std::vector<Var> params{W1, b1, W2, b2, W3, b3, W4, b4};
  const auto g = grad(loss, params);
  w.inputs = {X, t};
  w.outputs = {loss};
  for (std::size_t i = 0; i < params.size(); ++i) w.options.updates[params[i]] = params[i] - c(0.1, d) * g[i];
  w.state = params;
  w.size = "LeNet-5, batch 64 of 28x28";
  // sum(b4) is rounding noise: compared with an absolute tolerance.
  w.expected = {2.2826329003228345, 0.40755315620852905, -0.027168794649354226, 4.636166551424332,
                -0.008791199442397304, 24.621812884760374, -0.003529408744910996, 2.0418521904860762, 0.0};
  w.checksum_rtol = 1e-8;  // convolutions and BLAS sums in another order than JAX's
  if (with_args) {
    NDArray labels = NDArray::empty({B}, DType::Int64);
    for (std::int64_t j = 0; j < B; ++j)
      labels.data_as<std::int64_t>()[j] = static_cast<std::int64_t>(std::floor(10 * splitmix_unit(1002, j)));
    w.args = {uniform(1001, 0, 1, {B, 1, 28, 28}, d), labels};
  }
}

/// W11: a Gaussian process's log marginal likelihood and its gradient with
/// respect to the inputs X (n = 500, d = 8): a squared-exponential kernel
/// built with a dot, its Cholesky factor, a triangular solve. The outputs are
/// logp and |g|, as the peers return them (sum(g) is ~0 by translation
/// invariance; the checksum is sum(|g|)).
void w11(Workload& w, bool with_args) {
  const DType d = w.dtype;
  constexpr std::int64_t kN = 500, kD = 8;
  namespace LA = T::linalg;
  Var X = mat("X", d), y = vec("y", d);
  Var sq = T::sum(T::sqr(X), {1});
  Var D = T::dimshuffle(sq, {0, T::kNewAxis}) + T::dimshuffle(sq, {T::kNewAxis, 0}) - c(2, d) * T::dot(X, X.T());
  Var K = T::exp(c(-0.5, d) * D) + c(0.1, d) * T::eye(kN, {}, 0, d);
  Var L = LA::cholesky(K);
  Var a = LA::solve_triangular(L, y, /*lower=*/true);
  Var logp = c(-0.5, d) * T::dot(a, a) - T::sum(T::log(LA::diagonal(L))) - c(0.5 * kN * std::log(2 * M_PI), d);
  logp->set_name("logp");
  Var g = grad(logp, X);
  w.inputs = {X, y};
  w.outputs = {logp, T::abs(g)};
  w.size = "GP n=500 d=8";
  w.expected = {-542.7450953457718, 3143.9932943893955};
  w.checksum_rtol = 1e-8;  // a Cholesky factor and triangular solves in another order than JAX's
  if (with_args) w.args = {uniform(1101, -1, 1, {kN, kD}, d), uniform(1102, -1, 1, {kN}, d)};
}

/// W12: each row of a 2000 x 2000 matrix sorted, then its running sum along
/// the row (SortOp, then CumOp).
void w12(Workload& w, bool with_args) {
  const DType d = w.dtype;
  constexpr std::int64_t kN = 2000;
  Var X = mat("X", d);
  w.inputs = {X};
  w.outputs = {T::cumsum(T::sort(X, 1), 1)};
  w.size = "2000x2000, sort rows then cumsum";
  w.expected = {-1331765788.4111078};
  w.checksum_rtol = 1e-11;  // sums of about 4e6 running sums: the order of the final sum moves the last digits
  if (with_args) w.args = {uniform(1201, -1, 1, {kN, kN}, d)};
}

/// W13: an embedding lookup with an integer-matrix index (E[idx], idx 256 x 50
/// into 10000 rows of 64) and its gradient, a scatter-add of the rows used.
void w13(Workload& w, bool with_args) {
  const DType d = w.dtype;
  constexpr std::int64_t kRows = 10000, kDim = 64, kBatch = 256, kLen = 50;
  Var E = mat("E", d), idx = T::lmatrix("idx");
  Var cost = c(0.5, d) * T::sum(T::sqr(T::tanh(E[idx])));
  cost->set_name("cost");
  w.inputs = {E, idx};
  w.outputs = {cost, grad(cost, E)};
  w.size = "E 10000x64, idx 256x50";
  w.expected = {97723.00813783743, -625.1930824063611};
  w.checksum_rtol = 1e-10;  // the scatter-add sums repeated rows in index order
  if (with_args) {
    NDArray iv = NDArray::empty({kBatch, kLen}, DType::Int64);
    for (std::int64_t j = 0; j < kBatch * kLen; ++j)
      iv.data_as<std::int64_t>()[j] = static_cast<std::int64_t>(std::floor(kRows * splitmix_unit(1302, j)));
    w.args = {uniform(1301, -1, 1, {kRows, kDim}, d), iv};
  }
}

}  // namespace

/// A compile-time-only row (issue 33): y = tanh(tanh(...tanh(x))), n deep,
/// over a vector; no arguments or checksum.
void tanh_chain(Workload& w, int n) {
  Var x = vec("x", w.dtype);
  Var y = x;
  for (int k = 0; k < n; ++k) y = T::tanh(y);
  w.inputs = {x};
  w.outputs = {y};
  w.size = "chain of " + std::to_string(n) + " tanh";
}

const std::vector<std::string>& workload_ids() {
  static const std::vector<std::string> ids{"W1", "W1s", "W2",  "W3", "W4a", "W4b", "W4c",
                                            "W5", "W6",  "W6t", "W7", "W7s", "W8",  "W8g", "W9", "W10", "W11",
                                            "W12", "W13"};
  return ids;
}

const std::vector<std::string>& chain_ids() {
  static const std::vector<std::string> ids{"T1000", "T10000"};
  return ids;
}

Workload make_workload(const std::string& id, DType dtype, bool with_args) {
  THEANO_USER_CHECK(dtype == DType::Float64 || dtype == DType::Float32, ValueError)
      << "workloads come in float64 and float32, got " << dtype_name(dtype);
  Workload w;
  w.id = id;
  w.dtype = dtype;
  if (id == "W1" || id == "W1s") w1(w, id == "W1s", with_args);
  else if (id == "W1d") w1d(w, with_args);
  else if (id == "W2") w2(w, with_args);
  else if (id == "W3") w3(w, with_args);
  else if (id == "W4a" || id == "W4b" || id == "W4c") w4(w, id.back(), with_args);
  else if (id == "W5") w5(w, with_args);
  else if (id == "W6" || id == "W6t") w6(w, id == "W6t", with_args);
  else if (id == "W7" || id == "W7s") w7(w, id == "W7s", with_args);
  else if (id == "W8" || id == "W8g") w8(w, id == "W8g", with_args);
  else if (id == "W9") w9(w, with_args);
  else if (id == "W10") w10(w, with_args);
  else if (id == "W11") w11(w, with_args);
  else if (id == "W12") w12(w, with_args);
  else if (id == "W13") w13(w, with_args);
  else if (id == "T1000" || id == "T10000") tanh_chain(w, std::stoi(id.substr(1)));
  else THEANO_USER_CHECK(false, ValueError)
      << "unknown workload '" << id << "' (W1, W1s, W2, W3, W4a, W4b, W4c, W5, W6, W6t, W7, W7s, W8, W8g, W9, W10, W11, W12, W13, T1000, T10000)";
  return w;
}

Function compile_workload(const Workload& w) { return function(w.inputs, w.outputs, w.options); }

std::vector<double> checksums(const Workload& w, const std::vector<NDArray>& outputs) {
  std::vector<double> r;
  for (const NDArray& o : outputs) r.push_back(checksum(o.on_host() ? o : o.to_host()));
  for (const Var& s : w.state) r.push_back(checksum(get_value(s)));
  return r;
}

}  // namespace theano::bench
