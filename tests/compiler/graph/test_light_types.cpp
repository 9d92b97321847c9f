// The small types that keep std headers out of the public API (issue 34):
// FunctionRef and Callback (for std::function), SmallMap (for std::map),
// PropValue (for std::variant) and TensordotAxes; each behaves as what it
// replaced did.
#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "theano/function_ref.h"
#include "theano/graph/op.h"
#include "theano/graph/small_map.h"
#include "theano/tensor/blas.h"
#include "theano/tensor/type.h"

using namespace theano;

namespace {

int twice(int v) { return 2 * v; }
int call_ref(FunctionRef<int(int)> f, int v) { return f(v); }

}  // namespace

TEST_CASE("FunctionRef calls lambdas, captures, functions, function pointers, functors and std::function") {
  int base = 10;
  CHECK(call_ref([](int v) { return v + 1; }, 1) == 2);
  CHECK(call_ref([&base](int v) { return v + base; }, 1) == 11);
  CHECK(call_ref(twice, 4) == 8);
  CHECK(call_ref(&twice, 5) == 10);
  struct Square {
    int operator()(int v) const { return v * v; }
  };
  CHECK(call_ref(Square{}, 6) == 36);
  const std::function<int(int)> fn = [](int v) { return -v; };
  CHECK(call_ref(fn, 7) == -7);
  // A mutable lambda keeps its state across calls through the reference.
  int calls = 0;
  auto counter = [&calls, n = 0](int v) mutable { ++calls; return v + ++n; };
  FunctionRef<int(int)> ref = counter;
  CHECK(ref(0) == 1);
  CHECK(ref(0) == 2);
  CHECK(calls == 2);
  // Conversion of the result, as std::function does (int -> double).
  FunctionRef<double(int)> widen = [](int v) { return v; };
  CHECK(widen(3) == 3.0);
}

TEST_CASE("Callback owns its callable, shares it between copies, and is empty by default") {
  Callback<int(int)> empty;
  CHECK_FALSE(empty);
  Callback<int(int)> c;
  {
    int offset = 100;
    c = [offset](int v) { return v + offset; };  // the copy outlives `offset`
  }
  Callback<int(int)> copy = c;
  CHECK(bool(c));
  CHECK(c(1) == 101);
  CHECK(copy(2) == 102);
  c = nullptr;
  CHECK_FALSE(c);
  CHECK(copy(3) == 103);
}

TEST_CASE("SmallMap keeps std::map's order, lookup and equality") {
  SmallMap<int, std::vector<int>> m{{2, {0}}, {0, {1, 2}}, {2, {9}}};  // a repeated key keeps its first entry
  std::map<int, std::vector<int>> reference{{2, {0}}, {0, {1, 2}}, {2, {9}}};
  REQUIRE(m.size() == reference.size());
  auto r = reference.begin();
  for (const auto& [k, v] : m) {  // ordered by key, structured bindings
    CHECK(k == r->first);
    CHECK(v == r->second);
    ++r;
  }
  CHECK(m.find(1) == m.end());
  CHECK(m.find(2)->second == std::vector<int>{0});
  CHECK(m.contains(0));
  CHECK(m.count(3) == 0);
  m[1].push_back(7);  // operator[] inserts in order
  CHECK(m.begin()[1].first == 1);
  CHECK(m.erase(0) == 1);
  CHECK(m.erase(0) == 0);
  CHECK(m == SmallMap<int, std::vector<int>>{{1, {7}}, {2, {0}}});
  CHECK_FALSE(m.empty());
}

TEST_CASE("PropValue holds each kind of op parameter, compares and prints as before") {
  CHECK(PropValue().kind() == PropValue::Kind::Bool);
  CHECK(PropValue(3).kind() == PropValue::Kind::Int);
  CHECK(PropValue(std::size_t{3}) == PropValue(std::int64_t{3}));
  CHECK(PropValue(0.5).kind() == PropValue::Kind::Float);
  CHECK(PropValue("name").kind() == PropValue::Kind::String);
  CHECK(PropValue(std::vector<std::int64_t>{1, 2}).kind() == PropValue::Kind::Ints);
  CHECK(PropValue(DType::Int8).kind() == PropValue::Kind::DType);
  CHECK(PropValue(true) != PropValue(1));  // kinds differ
  CHECK(PropValue(1.0) != PropValue(1));
  CHECK(to_string(PropValue(2.5)) == "2.5");
  CHECK(to_string(PropValue(false)) == "False");
  CHECK(to_string(PropValue(std::string("add"))) == "add");
  CHECK(PropValue(7).visit([](const auto& v) { return sizeof(v); }) == sizeof(std::int64_t));
}

TEST_CASE("tensordot axes as an int, two braced lists, or a pair") {
  const Var a = tensor::dtensor3("a"), b = tensor::dtensor3("b");
  CHECK(tensor::tensordot(a, b, 2).ndim() == 2);
  CHECK(tensor::tensordot(a, b, {{1, 2}, {1, 0}}).ndim() == 2);
  CHECK(tensor::tensordot(a, b, std::make_pair(std::vector<int>{0}, std::vector<int>{2})).ndim() == 4);
  const tensor::TensordotAxes lists({1, 2}, {1, 0});
  CHECK_FALSE(lists.is_count());
  CHECK(lists.b_axes() == std::vector<int>{1, 0});
}
