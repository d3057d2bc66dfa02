// ridgeline schema: text from input made safe to show. A name, path or kernel name read from a
// file can hold control characters (ESC sequences that clear a terminal or set its title, a
// newline that ends a shell comment); shown, each is written as a visible escape instead.
#pragma once

#include <string>
#include <string_view>

namespace rl::schema {

// Whether `s` holds a character a terminal or a shell line treats as control: C0 (below
// U+0020) except '\n' and '\t' when `keep_lines`, DEL, the C1 controls U+0080..U+009F
// (U+009B is a one-byte CSI to many terminals), the line and paragraph separators U+2028 /
// U+2029, and the bidirectional overrides U+202A..U+202E and U+2066..U+2069 (Unicode TR 36,
// "Trojan Source", CVE-2021-42574). Bytes that are not UTF-8 count too.
bool has_control(std::string_view s, bool keep_lines = false);
// `s` with each such character written as \xNN (C0, DEL, a byte that is not UTF-8) or \uNNNN
// (the others); '\n' and '\t' kept when `keep_lines`.
std::string printable(std::string_view s, bool keep_lines = false);

} // namespace rl::schema
