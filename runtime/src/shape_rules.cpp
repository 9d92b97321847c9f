// The host side of the shared shape rules (shape_rules.h): the exception a
// failed rule raises in perform and NDArray, worded as generated code words it.
#include "theano/runtime/kernels/shape_rules.h"

#include "theano/runtime/error.h"

namespace theano {

void throw_shape_rule(int rule, const std::string& context, std::int64_t value) {
  std::string msg = context + ": " + theano_rule_text(rule);
  if (theano_rule_has_value(rule)) msg += std::to_string(value);
  switch (theano_rule_error_kind(rule)) {
    case THEANO_RULE_SHAPE_ERROR: throw ShapeError(msg);
    case THEANO_RULE_INDEX_ERROR: throw IndexError(msg);
    default: throw ValueError(msg);
  }
}

}  // namespace theano
