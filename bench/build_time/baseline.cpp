// Build-time benchmark, reference program: the standard headers any C++
// program pays for (<vector> and <string>), nothing of theano-cpp.
#include <string>
#include <vector>

int main() {
  std::vector<std::string> words{"x", "*", "2.0"};
  return words.size() == 3 ? 0 : 1;
}
