/// \file
/// A Scan node taken apart (internal to compiler/src): its sequences,
/// recurrent outputs, map outputs and non-sequences, each with its outer and
/// inner variables, so the scan rewrites (rewrite/scan.cpp) edit lists and
/// `build` makes the new node, instead of re-deriving input positions. Also
/// the check of a given n_steps, shared by scan and scan_checkpoints.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "theano/control/scan.h"
#include "theano/graph/basic.h"

namespace theano::detail {

struct ScanParts {
  struct Seq {
    Var outer;
    std::vector<std::int64_t> taps;
    std::vector<Var> inner;  ///< one per tap
  };
  struct Rec {
    Var init;
    std::vector<std::int64_t> taps;
    std::vector<Var> inner;  ///< one per tap
    Var inner_out;
    bool last = false;
    Var outer_out;  ///< the old node's output (null for a new one)
  };
  struct Map {
    Var inner_out;
    Var outer_out;
  };
  struct NonSeq {
    Var outer, inner;
  };
  ScanInfo info;  ///< name, go_backwards, truncate_gradient (the rest comes from the lists)
  Var n_steps;
  std::vector<Seq> seqs;
  std::vector<Rec> recs;
  std::vector<Map> maps;
  std::vector<NonSeq> nonseqs;
  Var until;  ///< the inner condition, or null

  static ScanParts of(const Apply& node);
  /// The new node's outputs: recurrent then map, in list order.
  std::vector<Var> build() const;
  /// Every inner input, in the Scan's order.
  std::vector<Var> inner_inputs() const;
  /// Every inner output (recurrent, map, until).
  std::vector<Var> inner_outputs() const;
};

/// ScanArgs::n_steps `n` as an int64 scalar: TypeError unless an integer
/// (or bool) scalar, ValueError for a constant < 0; errors name scan `nm`.
Var checked_n_steps(const Var& n, const std::string& nm);

}  // namespace theano::detail
