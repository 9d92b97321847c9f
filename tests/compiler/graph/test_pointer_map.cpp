// The graph walks' pointer table (compiler/src/graph/pointer_map.h): every
// inserted key is found with its value through many growths, a second insert
// keeps the first value, and keys never inserted are absent.
#include <doctest/doctest.h>

#include <memory>
#include <vector>

#include "../../../compiler/src/graph/pointer_map.h"

TEST_CASE("PointerMap: inserts, finds and keeps the first value through its growths") {
  // Heap objects, as the walks' keys are (aligned, clustered addresses).
  std::vector<std::unique_ptr<long>> objects;
  for (int i = 0; i < 5000; ++i) objects.push_back(std::make_unique<long>(i));
  theano::detail::PointerMap<int> map(4);
  for (int i = 0; i < 4000; ++i) {
    auto [value, inserted] = map.try_emplace(objects[i].get(), i);
    CHECK(inserted);
    CHECK(*value == i);
  }
  CHECK(map.size() == 4000);
  for (int i = 0; i < 4000; ++i) {
    auto [value, inserted] = map.try_emplace(objects[i].get(), -1);
    CHECK_FALSE(inserted);
    CHECK(*value == i);
    REQUIRE(map.find(objects[i].get()) != nullptr);
    CHECK(*map.find(objects[i].get()) == i);
  }
  for (int i = 4000; i < 5000; ++i) {
    CHECK_FALSE(map.contains(objects[i].get()));
    CHECK(map.find(objects[i].get()) == nullptr);
  }
  CHECK(map.size() == 4000);
}
