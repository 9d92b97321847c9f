// ScanParts (scan_parts.h): a Scan node taken apart and put together again.
#include "scan_parts.h"

#include "theano/runtime/error.h"

namespace theano::detail {

ScanParts ScanParts::of(const Apply& node) {
  const auto* op = as_scan(node);
  THEANO_INTERNAL_CHECK(op != nullptr) << "ScanParts::of: not a Scan node";
  const ScanInfo& in = op->info();
  ScanParts p;
  p.info.name = in.name;
  p.info.go_backwards = in.go_backwards;
  p.info.truncate_gradient = in.truncate_gradient;
  p.n_steps = node.input(0);
  const auto& ii = op->inner_inputs();
  const auto& io = op->inner_outputs();
  std::size_t at = 0;
  int outer = 1;
  for (int s = 0; s < in.n_seq(); ++s) {
    Seq q{node.input(outer++), in.seq_taps[static_cast<std::size_t>(s)], {}};
    for (std::size_t k = 0; k < q.taps.size(); ++k) q.inner.push_back(ii[at++]);
    p.seqs.push_back(std::move(q));
  }
  for (int r = 0; r < in.n_rec(); ++r) {
    Rec c;
    c.init = node.input(outer++);
    c.taps = in.rec_taps[static_cast<std::size_t>(r)];
    for (std::size_t k = 0; k < c.taps.size(); ++k) c.inner.push_back(ii[at++]);
    c.inner_out = io[static_cast<std::size_t>(r)];
    c.last = in.last_only(r);
    c.outer_out = node.output(r);
    p.recs.push_back(std::move(c));
  }
  for (int m = 0; m < in.n_map; ++m)
    p.maps.push_back(Map{io[static_cast<std::size_t>(in.n_rec() + m)], node.output(in.n_rec() + m)});
  for (int k = 0; k < in.n_nonseq; ++k) p.nonseqs.push_back(NonSeq{node.input(outer++), ii[at++]});
  if (in.until) p.until = io.back();
  return p;
}

std::vector<Var> ScanParts::inner_inputs() const {
  std::vector<Var> r;
  for (const Seq& s : seqs) r.insert(r.end(), s.inner.begin(), s.inner.end());
  for (const Rec& c : recs) r.insert(r.end(), c.inner.begin(), c.inner.end());
  for (const NonSeq& n : nonseqs) r.push_back(n.inner);
  return r;
}

std::vector<Var> ScanParts::inner_outputs() const {
  std::vector<Var> r;
  for (const Rec& c : recs) r.push_back(c.inner_out);
  for (const Map& m : maps) r.push_back(m.inner_out);
  if (until) r.push_back(until);
  return r;
}

std::vector<Var> ScanParts::build() const {
  ScanInfo in = info;
  in.seq_taps.clear();
  in.rec_taps.clear();
  in.rec_last.clear();
  for (const Seq& s : seqs) in.seq_taps.push_back(s.taps);
  for (const Rec& c : recs) {
    in.rec_taps.push_back(c.taps);
    in.rec_last.push_back(c.last);
  }
  in.n_map = static_cast<int>(maps.size());
  in.n_nonseq = static_cast<int>(nonseqs.size());
  in.until = static_cast<bool>(until);
  std::vector<Var> outer{n_steps};
  for (const Seq& s : seqs) outer.push_back(s.outer);
  for (const Rec& c : recs) outer.push_back(c.init);
  for (const NonSeq& n : nonseqs) outer.push_back(n.outer);
  return (*OpPtr(new Scan(std::move(in), inner_inputs(), inner_outputs())))(outer);
}

}  // namespace theano::detail
