// The demo: builds the seed's example graph e = x + y * z exactly as Theano's
// "Graph Structures" page does (explicit Variables and Applies, with two small
// op-agnostic stand-ins for add and mul defined below), prints it and walks it
// with the graph algorithms, then trains a logistic regression with the tensor
// language: grad, shared weights and updates through function().
#include <iomanip>
#include <iostream>

#include <theano/graph/toposort.h>
#include <theano/theano.hpp>

namespace {

using namespace theano;

// A binary op on two tensors of one type. It has no perform: this demo builds
// and inspects graphs, it does not run them.
class BinaryOp : public Op {
 public:
  explicit BinaryOp(std::string name) : name_(std::move(name)) {}
  std::string_view type_name() const override { return name_; }
  ApplyPtr make_node(std::vector<Var> in) const override {
    THEANO_USER_CHECK(in.size() == 2 && *in[0].type() == *in[1].type(), TypeError)
        << name_ << " expects two inputs of one type";
    Var out = in[0].type()->make_variable();
    return Apply::create(OpPtr(this), std::move(in), {out});
  }

 private:
  std::string name_;
};

void section(const char* title) { std::cout << "\n== " << title << "\n"; }

std::string join(const std::vector<Var>& vs) {
  std::string r;
  for (const Var& v : vs) r += (r.empty() ? "" : ", ") + v.str();
  return "[" + r + "]";
}

}  // namespace

int main() {
  namespace T = theano::tensor;
  const OpPtr add(new BinaryOp("add")), mul(new BinaryOp("mul"));

  section("explicit construction (Theano's Graph Structures example)");
  TypePtr float64_matrix = T::TensorType::from_broadcastable(DType::Float64, {false, false});
  Var x = float64_matrix->make_variable("x");
  Var y = float64_matrix->make_variable("y");
  Var z = float64_matrix->make_variable("z");
  Var mul_variable = float64_matrix->make_variable();
  ApplyPtr node_mul = Apply::create(mul, {y, z}, {mul_variable});
  Var add_variable = float64_matrix->make_variable();
  ApplyPtr node_add = Apply::create(add, {x, mul_variable}, {add_variable});
  Var e = add_variable;
  std::cout << "type of x:          " << x.type()->str() << "\n"
            << "e.owner:            " << *e.owner() << "\n"
            << "e.owner.inputs[1]:  " << e.owner()->input(1).str() << " (owner " << *e.owner()->input(1).owner()
            << ")\n"
            << "mul_variable.index: " << *mul_variable.index() << "\n";

  section("graph algorithms");
  std::cout << "as_string:   " << as_string({x, y, z}, {e})[0] << "\n"
            << "ancestors:   " << join(ancestors({e})) << "\n"
            << "inputs:      " << join(inputs({e})) << "\n"
            << "variables:   " << join(variables({x, y, z}, {e})) << "\n"
            << "io_toposort:";
  for (Apply* n : io_toposort({x, y, z}, {e})) std::cout << " " << *n << ";";
  std::cout << "\n";

  section("cloning and structural equality");
  auto [ins, outs] = clone({x, y, z}, {e});
  std::cout << "clone:                          " << as_string(ins, outs)[0] << "\n"
            << "equal_computations(e, clone):   " << std::boolalpha
            << equal_computations({e}, outs, {x, y, z}, ins) << "\n";
  Var other = add->apply1({mul->apply1({x, y}), z});
  std::cout << "is_same_graph(x+y*z, x*y+z):    " << is_same_graph(e, other) << "\n";
  Var w = T::dmatrix("w");
  std::cout << "is_same_graph(w+y*z, e | w=x):  " << is_same_graph(add->apply1({w, mul->apply1({y, z})}), e, {{w, x}})
            << "\n";

  section("a shared subexpression");
  Var yz = mul->apply1({y, z});
  Var twice = add->apply1({yz, yz});
  std::cout << as_string({y, z}, {twice})[0] << "\n";

  section("FunctionGraph: a private copy with clients, changed only through its API");
  FunctionGraph fg({x, y, z}, {e});
  const Var fx = fg.inputs()[0], fy = fg.inputs()[1];
  std::cout << "fgraph:            " << fg.str() << "\n"
            << "clients of y:      ";
  for (const Client& c : fg.clients(fy)) std::cout << *c.node << " (input " << c.index << ") ";
  std::cout << "\nclients of output: ";
  for (const Client& c : fg.clients(fg.outputs()[0])) std::cout << (c.is_output() ? "(\"output\", " : "(") << c.index << ") ";
  // Replace y*z by x*y inside the fgraph: the user's graph is untouched.
  Var xy = mul->apply1({fx, fy});
  fg.replace(fg.outputs()[0].owner()->input(1), xy, "demo");
  std::cout << "\nafter replace:     " << fg.str() << "\n"
            << "user graph still:  " << as_string({x, y, z}, {e})[0] << "\n"
            << "nodes in fgraph:   " << fg.num_apply_nodes() << " (the old mul was pruned)\n";

  section("values: the runtime's NDArray");
  NDArray a = NDArray::arange(0, 6).reshape({2, 3});
  std::cout << "a   = " << a << "\n"
            << "a.T = " << a.transpose() << "\n"
            << "filter(int32 array) into " << float64_matrix->str() << " -> dtype "
            << dtype_name(float64_matrix->filter(NDArray::ones({2, 2}, DType::Int32)).dtype()) << "\n";
  try {
    float64_matrix->filter(NDArray::ones({2}));
  } catch (const TypeError& err) {
    std::cout << "a bad value is refused: " << err.what() << "\n";
  }

  section("training: logistic regression with grad, shared weights and updates");
  {
    // Synthetic, separable data drawn with theano's own counter-based RNG.
    constexpr std::int64_t N = 400, D = 5;
    T::RandomStream srng(2024);
    const NDArray X_data = srng.normal({N, D}).eval();
    const NDArray w_true = NDArray::from_list<double>({1.5, -2.0, 0.5, 1.0, -0.75});
    Var Xs = T::dmatrix("X"), ws = T::dvector("w_true");
    const NDArray t_data = T::cast(T::gt(T::dot(Xs, ws), 0.0), DType::Float64).eval({{Xs, X_data}, {ws, w_true}});

    Var X = T::dmatrix("X"), t = T::dvector("t");
    Var w = shared(NDArray::zeros({D}), "w");
    Var b = shared(NDArray::scalar(0.0), "b");
    Var p = T::nnet::sigmoid(T::dot(X, w) + b);
    Var cost = T::mean(T::nnet::binary_crossentropy(p, t));
    auto grads = grad(cost, std::vector<Var>{w, b});
    Function train = function({X, t}, {cost}, {.updates = {{w, w - 0.5 * grads[0]}, {b, b - 0.5 * grads[1]}}});
    Function accuracy = function({X, t}, {T::mean(T::eq(T::gt(p, 0.5), T::cast(t, DType::Bool)))});
    for (int step = 0; step <= 200; ++step) {
      const double c = train({X_data, t_data})[0].item<double>();
      if (step % 50 == 0) std::cout << "step " << step << ": cost " << c << "\n";
    }
    const ProfileStats prof = train.profile();
    std::cout << "learned w = " << get_value(w) << "\n"
              << "training accuracy: " << accuracy({X_data, t_data})[0].item<double>() << "\n"
              << "the training step was JIT-compiled (mode " << prof.mode << ", linker " << prof.linker << "): "
              << train.fgraph().toposort().size() << " nodes after rewriting; rewrite " << prof.rewrite_ms
              << " ms, codegen " << prof.build.codegen_ms << " ms, clang " << prof.build.compile_ms << " ms, load "
              << prof.build.load_ms << " ms\n";
  }
  return 0;
}
