// numpy.einsum's subscript grammar (einsum_detail.h): comma-separated terms,
// one per operand, of letters and at most one `...`, then optionally `->`
// and the output term. Spaces are ignored, as NumPy does.
#include <algorithm>
#include <sstream>

#include "einsum_detail.h"
#include "theano/runtime/error.h"
#include "theano/tensor/type.h"

namespace theano::tensor::einsum_detail {
namespace {

int letter_label(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -1;
}

struct Term {
  std::vector<int> before, after;  // letters before and after `...`
  bool ellipsis = false;
};

// One term: letters and at most one "...". `what` names it in messages.
Term parse_term(const std::string& t, const std::string& subscripts, const std::string& what) {
  Term r;
  for (std::size_t i = 0; i < t.size();) {
    if (t[i] == '.') {
      THEANO_USER_CHECK(t.compare(i, 3, "...") == 0, ValueError)
          << "einsum: subscripts '" << subscripts << "': " << what << " has a '.' that is not part of '...'";
      THEANO_USER_CHECK(!r.ellipsis, ValueError)
          << "einsum: subscripts '" << subscripts << "': " << what << " has '...' more than once";
      r.ellipsis = true;
      i += 3;
      continue;
    }
    const int l = letter_label(t[i]);
    THEANO_USER_CHECK(l >= 0, ValueError) << "einsum: subscripts '" << subscripts << "': " << what
                                          << " has the character '" << t[i]
                                          << "', expected letters a-z, A-Z and '...'";
    (r.ellipsis ? r.after : r.before).push_back(l);
    ++i;
  }
  return r;
}

}  // namespace

std::string label_text(int label) {
  if (label < 26) return std::string(1, static_cast<char>('A' + label));
  if (label < kEllipsisLabel) return std::string(1, static_cast<char>('a' + label - 26));
  return "...[" + std::to_string(label - kEllipsisLabel) + "]";
}

Subscripts parse(const std::string& subscripts_in, const std::vector<Var>& operands) {
  std::string s;
  for (char c : subscripts_in)
    if (c != ' ') s.push_back(c);
  const std::string& shown = subscripts_in;
  THEANO_USER_CHECK(!operands.empty(), ValueError) << "einsum: subscripts '" << shown << "': no operands given";
  const std::size_t arrow = s.find("->");
  THEANO_USER_CHECK(arrow == std::string::npos || s.find("->", arrow + 2) == std::string::npos, ValueError)
      << "einsum: subscripts '" << shown << "' have '->' more than once";
  const std::string in = s.substr(0, arrow);
  THEANO_USER_CHECK(in.find('>') == std::string::npos && in.find('-') == std::string::npos, ValueError)
      << "einsum: subscripts '" << shown << "' have a '-' or '>' that is not part of '->'";
  std::vector<std::string> terms(1);
  for (char c : in) {
    if (c == ',') terms.emplace_back();
    else terms.back().push_back(c);
  }
  THEANO_USER_CHECK(terms.size() == operands.size(), ValueError)
      << "einsum: subscripts '" << shown << "' have " << terms.size() << " operand term(s) but " << operands.size()
      << " operand(s) were given";
  Subscripts r;
  int max_ell = 0;
  std::vector<Term> parsed;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const std::string what = "operand " + std::to_string(i) + " ('" + terms[i] + "')";
    parsed.push_back(parse_term(terms[i], shown, what));
    const Term& t = parsed.back();
    const int nd = tensor_type(operands[i])->ndim();
    const int nl = static_cast<int>(t.before.size() + t.after.size());
    THEANO_USER_CHECK(t.ellipsis ? nl <= nd : nl == nd, ValueError)
        << "einsum: subscripts '" << shown << "': " << what << " names " << nl << " axes"
        << (t.ellipsis ? " besides '...'" : "") << " but operand " << i << " (" << operands[i].str() << ") has "
        << nd;
    if (t.ellipsis) max_ell = std::max(max_ell, nd - nl);
  }
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    const Term& t = parsed[i];
    const int nd = tensor_type(operands[i])->ndim();
    std::vector<int> labels = t.before;
    const int ne = t.ellipsis ? nd - static_cast<int>(t.before.size() + t.after.size()) : 0;
    for (int e = 0; e < ne; ++e) labels.push_back(kEllipsisLabel + max_ell - ne + e);
    labels.insert(labels.end(), t.after.begin(), t.after.end());
    r.inputs.push_back(labels);
  }
  std::vector<int> count(static_cast<std::size_t>(kEllipsisLabel), 0);
  for (const Term& t : parsed) {
    for (int l : t.before) ++count[static_cast<std::size_t>(l)];
    for (int l : t.after) ++count[static_cast<std::size_t>(l)];
  }
  if (arrow == std::string::npos) {
    for (int e = 0; e < max_ell; ++e) r.output.push_back(kEllipsisLabel + e);
    for (int l = 0; l < kEllipsisLabel; ++l)
      if (count[static_cast<std::size_t>(l)] == 1) r.output.push_back(l);
    return r;
  }
  const std::string out = s.substr(arrow + 2);
  THEANO_USER_CHECK(out.find(',') == std::string::npos, ValueError)
      << "einsum: subscripts '" << shown << "': the output term ('" << out << "') has a ','";
  const Term t = parse_term(out, shown, "the output term ('" + out + "')");
  THEANO_USER_CHECK(t.ellipsis || max_ell == 0, ValueError)
      << "einsum: subscripts '" << shown << "': operands have " << max_ell
      << " axes under '...' but the output term ('" << out << "') has no '...' to keep them";
  std::vector<int> seen;
  auto add = [&](int l) {
    THEANO_USER_CHECK(std::find(seen.begin(), seen.end(), l) == seen.end(), ValueError)
        << "einsum: subscripts '" << shown << "': the output term ('" << out << "') has '" << label_text(l)
        << "' more than once";
    THEANO_USER_CHECK(count[static_cast<std::size_t>(l)] > 0, ValueError)
        << "einsum: subscripts '" << shown << "': the output term ('" << out << "') has '" << label_text(l)
        << "', which no operand term has";
    seen.push_back(l);
    r.output.push_back(l);
  };
  for (int l : t.before) add(l);
  if (t.ellipsis)
    for (int e = 0; e < max_ell; ++e) r.output.push_back(kEllipsisLabel + e);
  for (int l : t.after) add(l);
  return r;
}

}  // namespace theano::tensor::einsum_detail
