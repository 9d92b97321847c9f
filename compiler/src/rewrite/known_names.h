/// \file
/// The names and tags registered in any rewrite database, so that a name the
/// user asks for (THEANO_FLAGS optimizer_including, FunctionOptions::
/// optimizer_including) can be checked: a typo would otherwise select
/// nothing, silently. Internal to the compiler library; filled by the
/// register functions of optdb.cpp.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace theano::rewrite {

/// Records an entry's name and tags (EquilibriumDB and SequenceDB registration).
void note_known(const std::string& name, const std::set<std::string>& tags);

/// ValueError naming `flag` when an entry of `names` is neither the name nor
/// a tag of a registered stage or rewrite (the process-wide optdb is built
/// first). Empty names are ignored.
void check_known(const std::vector<std::string>& names, const std::string& flag);

}  // namespace theano::rewrite
