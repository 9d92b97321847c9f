// Theano's plural variable makers (`dmatrices(3)`, `fvectors(names)`); the
// form taking names one by one is a template in tensor/type.h that calls the
// singular maker once per name.
#include "theano/runtime/error.h"
#include "theano/tensor/type.h"

namespace theano::tensor {

namespace {
std::vector<Var> make_count(Var (*make)(std::string), const char* plural, int count) {
  THEANO_USER_CHECK(count >= 0, ValueError) << plural << "(" << count << "): the count must be >= 0";
  std::vector<Var> r;
  r.reserve(static_cast<std::size_t>(count));
  for (int k = 0; k < count; ++k) r.push_back(make({}));
  return r;
}

std::vector<Var> make_named(Var (*make)(std::string), const std::vector<std::string>& names) {
  std::vector<Var> r;
  r.reserve(names.size());
  for (const std::string& n : names) r.push_back(make(n));
  return r;
}

// The floatX makers take an optional dtype; these fix it to floatX.
#define THEANO_FLOATX_MAKER(singular) \
  Var singular##_floatx(std::string name) { return singular(std::move(name)); }
THEANO_FLOATX_MAKER(scalar)
THEANO_FLOATX_MAKER(vector)
THEANO_FLOATX_MAKER(matrix)
THEANO_FLOATX_MAKER(row)
THEANO_FLOATX_MAKER(col)
THEANO_FLOATX_MAKER(tensor3)
THEANO_FLOATX_MAKER(tensor4)
#undef THEANO_FLOATX_MAKER
}  // namespace

#define THEANO_DEFINE_PLURAL_MAKER(plural, make)                                  \
  std::vector<Var> plural(int count) { return make_count(make, #plural, count); } \
  std::vector<Var> plural(const std::vector<std::string>& names) { return make_named(make, names); }
#define THEANO_DEFINE_PLURAL_MAKERS(p)                \
  THEANO_DEFINE_PLURAL_MAKER(p##scalars, p##scalar)   \
  THEANO_DEFINE_PLURAL_MAKER(p##vectors, p##vector)   \
  THEANO_DEFINE_PLURAL_MAKER(p##matrices, p##matrix)  \
  THEANO_DEFINE_PLURAL_MAKER(p##rows, p##row)         \
  THEANO_DEFINE_PLURAL_MAKER(p##cols, p##col)         \
  THEANO_DEFINE_PLURAL_MAKER(p##tensor3s, p##tensor3) \
  THEANO_DEFINE_PLURAL_MAKER(p##tensor4s, p##tensor4)
THEANO_DEFINE_PLURAL_MAKER(scalars, scalar_floatx)
THEANO_DEFINE_PLURAL_MAKER(vectors, vector_floatx)
THEANO_DEFINE_PLURAL_MAKER(matrices, matrix_floatx)
THEANO_DEFINE_PLURAL_MAKER(rows, row_floatx)
THEANO_DEFINE_PLURAL_MAKER(cols, col_floatx)
THEANO_DEFINE_PLURAL_MAKER(tensor3s, tensor3_floatx)
THEANO_DEFINE_PLURAL_MAKER(tensor4s, tensor4_floatx)
THEANO_DEFINE_PLURAL_MAKERS(f)
THEANO_DEFINE_PLURAL_MAKERS(d)
THEANO_DEFINE_PLURAL_MAKERS(i)
THEANO_DEFINE_PLURAL_MAKERS(l)
#undef THEANO_DEFINE_PLURAL_MAKERS
#undef THEANO_DEFINE_PLURAL_MAKER

}  // namespace theano::tensor
