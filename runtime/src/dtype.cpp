// DType names, sizes, kinds, and numpy's casting lattice (can_cast / promote_types).
// Promotion is derived from safe casting ("smallest type both cast to safely"), which
// is how numpy defines it for the numeric types, so the two can never disagree.
#include "theano/runtime/dtype.h"

#include <array>
#include <cstdlib>
#include <ostream>
#include <string>

#include "theano/runtime/error.h"

namespace theano {
namespace {

struct Info {
  std::string_view name;
  std::size_t size;
  char kind;
};

constexpr std::array<Info, kNumDTypes> kInfo = {{
    {"bool", 1, 'b'},       {"int8", 1, 'i'},      {"int16", 2, 'i'},    {"int32", 4, 'i'},
    {"int64", 8, 'i'},      {"uint8", 1, 'u'},     {"uint16", 2, 'u'},   {"uint32", 4, 'u'},
    {"uint64", 8, 'u'},     {"float16", 2, 'f'},   {"float32", 4, 'f'},  {"float64", 8, 'f'},
    {"complex64", 8, 'c'},  {"complex128", 16, 'c'},
}};

[[noreturn, gnu::cold, gnu::noinline]] void invalid_dtype(std::size_t i) {
  THEANO_INTERNAL_CHECK(false) << "invalid DType value " << i;
  std::abort();  // not reached: the check throws
}

// Called on every array operation: the check's message is built out of line.
inline const Info& info(DType d) {
  const auto i = static_cast<std::size_t>(d);
  if (i >= kInfo.size()) [[unlikely]] invalid_dtype(i);
  return kInfo[i];
}

// Kind rank for same_kind casting: b < u < i < f < c.
int kind_rank(DType d) {
  switch (info(d).kind) {
    case 'b': return 0;
    case 'u': return 1;
    case 'i': return 2;
    case 'f': return 3;
    default: return 4;
  }
}

// Bytes of the smallest float that holds every value of integer type d exactly enough
// for numpy's safe casting: 8-bit -> float16, 16-bit -> float32, wider -> float64.
std::size_t float_size_for_int(DType d) {
  const std::size_t s = dtype_size(d);
  return s == 1 ? 2 : s == 2 ? 4 : 8;
}

bool safe_cast(DType from, DType to) {
  if (from == to || from == DType::Bool) return true;
  const char fk = info(from).kind, tk = info(to).kind;
  const std::size_t fs = dtype_size(from), ts = dtype_size(to);
  switch (tk) {
    case 'b': return false;
    case 'u': return fk == 'u' && ts >= fs;
    case 'i': return (fk == 'i' && ts >= fs) || (fk == 'u' && ts > fs);
    case 'f':
      if (fk == 'f') return ts >= fs;
      if (fk == 'i' || fk == 'u') return ts >= float_size_for_int(from);
      return false;
    default:  // complex: component size ts/2
      if (fk == 'c') return ts >= fs;
      if (fk == 'f') return ts / 2 >= fs;
      return ts / 2 >= float_size_for_int(from);
  }
}

// Candidate order for promotion: smallest first; within a size, unsigned before signed.
constexpr std::array<DType, kNumDTypes> kPromotionOrder = {
    DType::Bool,   DType::UInt8,   DType::Int8,    DType::UInt16,  DType::Int16,
    DType::UInt32, DType::Int32,   DType::UInt64,  DType::Int64,   DType::Float16,
    DType::Float32, DType::Float64, DType::Complex64, DType::Complex128};

}  // namespace

std::string_view dtype_name(DType d) { return info(d).name; }

DType dtype_from_name(std::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (kInfo[static_cast<std::size_t>(i)].name == name) return static_cast<DType>(i);
  std::string valid;
  for (const Info& in : kInfo) {
    if (!valid.empty()) valid += ", ";
    valid += in.name;
  }
  THEANO_USER_CHECK(false, ValueError)
      << "unknown dtype '" << name << "'; expected one of: " << valid;
  return DType::Float64;  // unreachable
}

std::size_t dtype_size(DType d) { return info(d).size; }
bool is_bool(DType d) { return d == DType::Bool; }
bool is_integer(DType d) { return info(d).kind == 'i' || info(d).kind == 'u'; }
bool is_unsigned(DType d) { return info(d).kind == 'u'; }
bool is_signed_integer(DType d) { return info(d).kind == 'i'; }
bool is_float(DType d) { return info(d).kind == 'f'; }
bool is_complex(DType d) { return info(d).kind == 'c'; }
char dtype_kind(DType d) { return info(d).kind; }

bool can_cast(DType from, DType to, Casting casting) {
  switch (casting) {
    case Casting::No:
    case Casting::Equiv: return from == to;
    case Casting::Safe: return safe_cast(from, to);
    case Casting::SameKind: return safe_cast(from, to) || kind_rank(from) <= kind_rank(to);
    case Casting::Unsafe: return true;
  }
  return false;
}

DType promote_types(DType a, DType b) {
  for (DType t : kPromotionOrder)
    if (safe_cast(a, t) && safe_cast(b, t)) return t;
  THEANO_INTERNAL_CHECK(false) << "no promotion for " << dtype_name(a) << " and " << dtype_name(b);
  return DType::Complex128;
}

std::ostream& operator<<(std::ostream& os, DType d) { return os << dtype_name(d); }

}  // namespace theano
