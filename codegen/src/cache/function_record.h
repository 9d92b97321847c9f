/// \file
/// Internal: the function record, what CLinker keeps in the compiledir beside
/// a compiled object so that a later function() with an equal request (its
/// canonical text, compile/request_text.h) gets the same thunk without
/// rewriting, generating source or compiling: the object's key, the memory
/// plan's sizes, the inputs the code overwrites, the node labels and the
/// constants the code reads.
///
/// Why here and so strict: the record is read back from disk and decides
/// which machine code runs with which constants, so it is parsed as untrusted
/// input (every count and size bounded, the text must be exactly what
/// serialize() writes, else it is ignored), keyed by everything that makes
/// the request compile the way it did (this build of theano-cpp, the
/// compiler identity, the runtime ABI, the request), and stored through the
/// CompileCache (its ownership, permission and checksum checks).
#pragma once

#include <theano/codegen/clang_compiler.h>
#include <theano/runtime/ndarray.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace theano::codegen::detail {

struct FunctionRecord {
  std::string object_key;                    ///< the compiledir key of the compiled object
  std::int64_t nslots = 0;                   ///< the memory plan's slots
  std::int64_t nvars = 0;                    ///< variables of the compiled graph
  std::vector<std::size_t> destroyed_inputs; ///< inputs the code overwrites
  std::vector<std::string> labels;           ///< per node, for messages
  std::vector<NDArray> constants;            ///< in the order the code reads them
};

/// The record's bytes.
std::string serialize(const FunctionRecord& r);
/// The record in `bytes`, or nullopt when they are not exactly what
/// serialize() writes (truncated, damaged, another version, absurd sizes).
std::optional<FunctionRecord> parse_function_record(std::string_view bytes);

/// The compiledir key of the record of `request` compiled with `options`;
/// empty when this build of theano-cpp has no build identity (no records).
std::string function_record_key(const std::string& request, const CompileOptions& options);

/// This build's identity: the GNU build-id of the binary holding theano-cpp's
/// code generator (any change to it changes what a request compiles to); ""
/// when the binary has none.
const std::string& build_identity();

}  // namespace theano::codegen::detail
