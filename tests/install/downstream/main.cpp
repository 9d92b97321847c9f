// Builds a graph through the installed headers and libraries.
#include <iostream>

#include <theano/theano.hpp>

namespace {
class Named : public theano::Op {
 public:
  explicit Named(std::string n) : n_(std::move(n)) {}
  std::string_view type_name() const override { return n_; }
  theano::ApplyPtr make_node(std::vector<theano::Var> in) const override {
    theano::Var out = in.at(0).type()->make_variable();
    return theano::Apply::create(theano::OpPtr(this), std::move(in), {out});
  }

 private:
  std::string n_;
};
}  // namespace

int main() {
  namespace T = theano::tensor;
  auto x = T::dmatrix("x"), y = T::dmatrix("y"), z = T::dmatrix("z");
  theano::OpPtr add(new Named("add")), mul(new Named("mul"));
  auto e = add->apply1({x, mul->apply1({y, z})});
  std::cout << "downstream ok: " << theano::as_string({x, y, z}, {e})[0] << "\n";
}
