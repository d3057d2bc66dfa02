// ridgeline schema: "did you mean" for a misspelled name (a command, an option, a preset, a
// field): the closest known name by edit distance, when it is close enough to be a typo.
#pragma once

#include <string>
#include <vector>

namespace rl::schema {

// Levenshtein distance (insertions, deletions, substitutions), case-insensitive.
std::size_t edit_distance(const std::string &a, const std::string &b);
// " (did you mean \"x\"?)" for the closest of names within a third of the given name's length
// (at least 1, at most 3 edits); "" when none is that close.
std::string did_you_mean(const std::string &given, const std::vector<std::string> &names);

} // namespace rl::schema
