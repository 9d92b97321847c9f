// Function records (see function_record.h).
//
// Format (text lines, then raw constant bytes), version 2:
//   theano-cpp function record 2
//   object <40 hex digits>
//   nslots <n> nvars <n>
//   destroyed <count> <i>...
//   labels <count>            then per label: <bytes> \n <the bytes> \n
//   constants <count>         then per constant: <dtype> <ndim> <dims>... and either
//                               <bytes> \n <the bytes> \n
//                             or, when every element is the same (zeros, a full array),
//                               fill \n <one element's bytes> \n
//   end
//
// Why "fill": a warm start reads, checks (CRC-32) and copies every byte of
// the record; W9's two 64 KB zero states were 97% of its record.
#include "function_record.h"

#include "../compile/build_id.h"

#include <theano/codegen/compiledir.h>
#include <theano/runtime/repeated_element.h>

#include <sys/mman.h>

#include <algorithm>
#include <charconv>
#include <cstring>

namespace theano::codegen::detail {
namespace {

constexpr std::string_view kMagic = "theano-cpp function record 2\n";
constexpr std::int64_t kMaxCount = 1 << 20;  // nodes, labels, constants, slots
constexpr std::int64_t kMaxLabel = 1 << 16;
constexpr int kMaxDims = 64;
/// The largest constant a record writes as "fill" (and so the most one
/// element's bytes can make a parse allocate); larger ones are written out.
constexpr std::int64_t kMaxFillBytes = std::int64_t{1} << 32;

/// A constant of `bytes` zero bytes (its fill element `element` all zero,
/// `bytes` at least kZeroPagesBytes) in fresh anonymous pages, which the
/// kernel hands out zeroed when first read: a recurrent state's zero start
/// (W9: two of 64 KB) was written into fresh memory by
/// every warm start, 6 % of W9's. Undefined otherwise (or when mmap fails):
/// the caller fills a new array.
constexpr std::int64_t kZeroPagesBytes = std::int64_t{32} << 10;
NDArray zero_pages(const std::vector<std::int64_t>& shape, DType dtype, std::int64_t bytes, std::string_view element) {
  if (bytes < kZeroPagesBytes || element.find_first_not_of('\0') != std::string_view::npos) return {};
  const auto n = static_cast<std::size_t>(bytes);
  void* p = ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return {};
  std::shared_ptr<void> owner(p, [n](void* q) { ::munmap(q, n); });
  return NDArray::from_strided(std::move(owner), p, dtype, shape, NDArray::c_strides(shape, dtype_size(dtype)),
                               Device::cpu());
}

/// Whether `a` (C-contiguous) is written as a fill.
bool is_fill(const NDArray& a) { return a.nbytes() <= kMaxFillBytes && repeats_one_element(a); }

class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}
  bool literal(std::string_view w) {
    if (s_.substr(at_, w.size()) != w) return false;
    at_ += w.size();
    return true;
  }
  /// A decimal integer in [lo, hi], followed by one space or newline.
  bool integer(std::int64_t lo, std::int64_t hi, std::int64_t& v) {
    const char* b = s_.data() + at_;
    const char* e = s_.data() + s_.size();
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || p == b || p == e || (*p != ' ' && *p != '\n') || v < lo || v > hi) return false;
    at_ += static_cast<std::size_t>(p - b) + 1;
    return true;
  }
  /// `n` raw bytes followed by a newline.
  bool bytes(std::int64_t n, std::string_view& out) {
    if (n < 0 || static_cast<std::uint64_t>(n) >= s_.size() - at_) return false;
    out = s_.substr(at_, static_cast<std::size_t>(n));
    at_ += static_cast<std::size_t>(n);
    return literal("\n");
  }
  /// A word of [0-9a-f] of exactly `n` characters, then a newline.
  bool hex(std::size_t n, std::string& out) {
    if (s_.size() - at_ < n + 1) return false;
    out = std::string(s_.substr(at_, n));
    for (char c : out)
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    at_ += n;
    return literal("\n");
  }
  bool done() const { return at_ == s_.size(); }

 private:
  std::string_view s_;
  std::size_t at_ = 0;
};

}  // namespace

const std::string& build_identity() {
  static const std::string id = elf_build_id(reinterpret_cast<const void*>(&build_identity));
  return id;
}

std::string function_record_key(const std::string& request, const CompileOptions& options) {
  if (build_identity().empty()) return {};
  return local_hash_fields({"theano-cpp function record key 2", build_identity(), std::to_string(kRuntimeAbiVersion),
                      ClangCompiler(options).identity(), request});
}

std::string serialize(const FunctionRecord& r) {
  std::string s(kMagic);
  s += "object " + r.object_key + "\n";
  s += "nslots " + std::to_string(r.nslots) + " nvars " + std::to_string(r.nvars) + "\n";
  s += "destroyed " + std::to_string(r.destroyed_inputs.size());
  for (std::size_t i : r.destroyed_inputs) s += " " + std::to_string(i);
  s += "\nlabels " + std::to_string(r.labels.size()) + "\n";
  for (const std::string& l : r.labels) s += std::to_string(l.size()) + "\n" + l + "\n";
  s += "constants " + std::to_string(r.constants.size()) + "\n";
  for (const NDArray& c : r.constants) {
    const NDArray dense = c.is_c_contiguous() ? c : c.copy();
    s += std::to_string(static_cast<int>(dense.dtype())) + " " + std::to_string(dense.shape().size());
    for (std::int64_t d : dense.shape()) s += " " + std::to_string(d);
    const bool fill = is_fill(dense);
    const auto n = fill ? dense.itemsize() : static_cast<std::size_t>(dense.nbytes());
    s += fill ? std::string(" fill\n") : " " + std::to_string(n) + "\n";
    s.append(static_cast<const char*>(dense.data()), n);
    s += "\n";
  }
  s += "end\n";
  return s;
}

std::optional<FunctionRecord> parse_function_record(std::string_view bytes) {
  Reader in(bytes);
  FunctionRecord r;
  std::int64_t n = 0;
  if (!in.literal(kMagic) || !in.literal("object ") || !in.hex(40, r.object_key)) return std::nullopt;
  if (!in.literal("nslots ") || !in.integer(0, kMaxCount, r.nslots)) return std::nullopt;
  if (!in.literal("nvars ") || !in.integer(0, kMaxCount, r.nvars)) return std::nullopt;
  if (!in.literal("destroyed ") || !in.integer(0, kMaxCount, n)) return std::nullopt;
  for (std::int64_t k = 0; k < n; ++k) {
    std::int64_t i = 0;
    if (!in.integer(0, kMaxCount, i)) return std::nullopt;
    r.destroyed_inputs.push_back(static_cast<std::size_t>(i));
  }
  if (!in.literal("labels ") || !in.integer(0, kMaxCount, n)) return std::nullopt;
  for (std::int64_t k = 0; k < n; ++k) {
    std::int64_t len = 0;
    std::string_view text;
    if (!in.integer(0, kMaxLabel, len) || !in.bytes(len, text)) return std::nullopt;
    r.labels.emplace_back(text);
  }
  if (!in.literal("constants ") || !in.integer(0, kMaxCount, n)) return std::nullopt;
  for (std::int64_t k = 0; k < n; ++k) {
    std::int64_t code = 0, ndim = 0, nbytes = 0;
    if (!in.integer(0, kNumDTypes - 1, code) || !in.integer(0, kMaxDims, ndim)) return std::nullopt;
    const auto dtype = static_cast<DType>(code);
    std::vector<std::int64_t> shape(static_cast<std::size_t>(ndim));
    std::int64_t elements = 1;
    for (std::int64_t& d : shape)
      if (!in.integer(0, INT64_MAX, d) || __builtin_mul_overflow(elements, d, &elements)) return std::nullopt;
    const auto item = static_cast<std::int64_t>(dtype_size(dtype));
    std::int64_t expect = 0;
    if (__builtin_mul_overflow(elements, item, &expect)) return std::nullopt;
    std::string_view data;
    if (in.literal("fill\n")) {
      // What serialize() writes as fill: more than one element, at most kMaxFillBytes.
      if (expect <= item || expect > kMaxFillBytes || !in.bytes(item, data)) return std::nullopt;
      if (NDArray z = zero_pages(shape, dtype, expect, data); z.defined()) {
        r.constants.push_back(std::move(z));
        continue;
      }
      NDArray c = NDArray::empty(shape, dtype);
      auto* out = static_cast<char*>(c.data());
      std::memcpy(out, data.data(), data.size());
      for (std::int64_t done = item; done < expect; done *= 2)  // doubling: the filled part copies itself
        std::memcpy(out + done, out, static_cast<std::size_t>(std::min(done, expect - done)));
      r.constants.push_back(std::move(c));
      continue;
    }
    if (!in.integer(expect, expect, nbytes) || !in.bytes(nbytes, data)) return std::nullopt;
    NDArray c = NDArray::empty(shape, dtype);
    if (nbytes) std::memcpy(c.data(), data.data(), data.size());
    r.constants.push_back(std::move(c));
  }
  if (!in.literal("end\n") || !in.done()) return std::nullopt;
  return r;
}

}  // namespace theano::codegen::detail
