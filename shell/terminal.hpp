// ridgeline shell: what the CLI writes, made safe for a terminal. Text from input (a model's
// name, a path, a kernel name from a measurement file) can hold escape sequences that clear
// the screen or retitle the window; every control character is written as a visible escape
// (core/schema/printable), '\n' and '\t' kept. JSON stays valid: its strings carry the
// escapes JSON itself defines (\u2028, \u009b) for the characters it would write raw.
#pragma once

#include <streambuf>
#include <string>

namespace rl::shell {

// A stream buffer in front of another: a line at a time, made printable, passed on.
class PrintableBuf : public std::streambuf {
public:
  explicit PrintableBuf(std::streambuf *to) : to_(to) {}
  PrintableBuf(const PrintableBuf &) = delete;
  PrintableBuf &operator=(const PrintableBuf &) = delete;
  ~PrintableBuf() override { flush_line(); }

protected:
  int_type overflow(int_type c) override;
  std::streamsize xsputn(const char *s, std::streamsize n) override;
  int sync() override;

private:
  // Writes the held text (up to its last whole UTF-8 character unless `all`); false when
  // the buffer below refuses it.
  bool flush_line(bool all = true);
  std::streambuf *to_;
  std::string line_;
};

} // namespace rl::shell
