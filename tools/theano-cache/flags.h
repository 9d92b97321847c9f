// `theano-cache flags`: every THEANO_FLAGS key theano-cpp reads (the flag
// registry, theano/config_flags.h), with its type, default, the value this
// process got from THEANO_FLAGS, and its doc.
#pragma once

namespace theano::cli {

inline constexpr const char* kFlagsHelp =
    "usage: theano-cache flags [--json]\n"
    "every THEANO_FLAGS key: name, type, default, current value (from THEANO_FLAGS; secrets shown as (set))\n"
    "and what it does. A key not listed here is unknown: theano-cpp warns about it and ignores it.\n";

/// Prints the flags; returns the exit code.
int run_flags(bool json);

}  // namespace theano::cli
