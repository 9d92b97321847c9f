/// \file
/// Where the user created a Variable (Theano's `variable.tag.trace`), so that
/// an error raised while running a compiled function can point at the line
/// of the user's code that built the failing value.
///
/// Capture is off by default: THEANO_FLAGS `traceback_limit=N` (Theano's
/// `traceback__limit` is accepted too) records up to N frames of the call
/// stack outside theano's own code for every Variable created from then on.
/// Capturing costs a stack walk per Variable (about a microsecond); turning
/// the frames into text (function, and file:line where debug information
/// exists) happens only when an error is reported, through addr2line. Rewrites do not capture (the optimizer suppresses it while it
/// runs) and instead copy the replaced variable's site onto its replacement.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace theano {

class CreationSite {
 public:
  explicit CreationSite(std::vector<const void*> frames, int limit) : frames_(std::move(frames)), limit_(limit) {}
  /// Up to `limit` frames outside theano's code, one per line: "  at <function> (<file>:<line>)".
  std::string str() const;
  const std::vector<const void*>& frames() const noexcept { return frames_; }

 private:
  std::vector<const void*> frames_;
  int limit_;
};
using CreationSitePtr = std::shared_ptr<const CreationSite>;

/// The current call stack when capture is on (traceback_limit > 0 and not
/// suppressed on this thread), else null.
CreationSitePtr capture_creation_site();

/// Suppresses capture on this thread while alive (the optimizer holds one).
class SuppressCreationSites {
 public:
  SuppressCreationSites();
  ~SuppressCreationSites();
  SuppressCreationSites(const SuppressCreationSites&) = delete;
  SuppressCreationSites& operator=(const SuppressCreationSites&) = delete;
};

}  // namespace theano
