#include "shell/terminal.hpp"

#include "core/schema/printable.hpp"

namespace rl::shell {

namespace {
// A line longer than this is passed on in pieces (cut before a UTF-8 lead byte).
constexpr std::size_t kHeldBytes = std::size_t{1} << 16;
} // namespace

bool PrintableBuf::flush_line(bool all) {
  std::size_t cut = line_.size();
  if (!all) // keep a character whose bytes are not all here yet
    while (cut > 0 && (static_cast<unsigned char>(line_[cut - 1]) & 0xC0u) == 0x80u)
      --cut;
  if (!all && cut > 0 && static_cast<unsigned char>(line_[cut - 1]) >= 0xC0u)
    --cut;
  if (cut == 0 && !all)
    cut = line_.size();
  const std::string text = schema::printable(std::string_view(line_).substr(0, cut), true);
  line_.erase(0, cut);
  return to_->sputn(text.data(), static_cast<std::streamsize>(text.size())) ==
         static_cast<std::streamsize>(text.size());
}

PrintableBuf::int_type PrintableBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof()))
    return traits_type::not_eof(c);
  line_.push_back(traits_type::to_char_type(c));
  const bool ok = c == '\n' ? flush_line() : line_.size() < kHeldBytes || flush_line(false);
  return ok ? c : traits_type::eof();
}

std::streamsize PrintableBuf::xsputn(const char *s, std::streamsize n) {
  for (std::streamsize i = 0; i < n; ++i)
    if (traits_type::eq_int_type(overflow(traits_type::to_int_type(s[i])), traits_type::eof()))
      return i;
  return n;
}

int PrintableBuf::sync() {
  return flush_line() && to_->pubsync() == 0 ? 0 : -1;
}

} // namespace rl::shell
