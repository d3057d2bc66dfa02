// Issue 35 item 1: every export format, for hostile model and chip names, piped through a real
// shell (/bin/sh) whose PATH holds only stub commands: the frameworks' launchers exit 0,
// anything an injection would run (touch, rm, curl, wget, sh, bash, id, cat, echo ...) writes a
// marker, and the shell runs in an empty folder that must stay empty (a redirection or a
// builtin would write there). Nothing may run but the launch itself. The in-process check of
// the export fuzz target (fuzz/targets.cpp: the launch as a shell reads it, one command, the
// name one word) runs on the same texts.
#include "fuzz/targets.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

// The names a shell must never run anything from (no NUL: a file's text for sh).
const std::vector<std::pair<std::string, std::string>> &hostile_names() {
  static const std::vector<std::pair<std::string, std::string>> names = {
      {"newline", "m\ntouch pwned-newline"},
      {"newline at the start", "\ntouch pwned-start\n"},
      {"carriage return", "m\rtouch pwned-cr"},
      {"CR LF", "m\r\ntouch pwned-crlf"},
      {"command substitution", "$(touch pwned-subst)"},
      {"backticks", "`touch pwned-backtick`"},
      {"single quotes", "'; touch pwned-quote; '"},
      {"single quote, newline", "x'\ntouch pwned-qnl\n'"},
      {"double quotes", "\"; touch pwned-dquote; \""},
      {"backslash at the end", "m\\"},
      {"backslash newline", "m\\\ntouch pwned-bsnl"},
      {"semicolon", "m; touch pwned-semi"},
      {"and", "m && touch pwned-and"},
      {"pipe", "m | touch pwned-pipe"},
      {"redirection", "m > pwned-redirect"},
      {"builtin redirection", "m\n: > pwned-builtin"},
      {"variable", "$HOME${PATH}"},
      {"glob and tilde", "~/*?[a]"},
      {"line separator U+2028", "m\xe2\x80\xa8touch pwned-ls"},
      {"paragraph separator U+2029", "m\xe2\x80\xa9touch pwned-ps"},
      {"next line U+0085", "m\xc2\x85touch pwned-nel"},
      {"vertical tab, form feed", "m\v\ftouch pwned-vt"},
      {"terminal escapes", "m\x1b]0;title\x07\x1b[2J"},
      {"comment then newline", "# x\ntouch pwned-comment"},
      {"hf id shaped", "acme/model-1.0"},
      {"option", "--trust-remote-code"},
  };
  return names;
}

bool have_shell() {
  return access("/bin/sh", X_OK) == 0;
}

void write_file(const fs::path &p, const std::string &text, bool executable = false) {
  std::ofstream f(p, std::ios::binary);
  f << text;
  f.close();
  if (executable)
    chmod(p.c_str(), 0755);
}

// A folder with bin/ (the stubs), work/ (the shell's folder) and the marker's path.
struct Sandbox {
  fs::path root, bin, work, marker;
  Sandbox() {
    char tmpl[] = "/tmp/rl-export-shell-XXXXXX";
    const char *d = mkdtemp(tmpl);
    REQUIRE(d != nullptr);
    root = d;
    bin = root / "bin";
    work = root / "work";
    marker = root / "ran";
    fs::create_directories(bin);
    fs::create_directories(work);
    // The launchers: exit 0, nothing else.
    for (const char *ok : {"vllm", "python", "python3", "torchrun", "deepspeed", "trtllm-serve",
                           "sglang", "pip", "srun"})
      write_file(bin / ok, "#!/bin/sh\nexit 0\n", true);
    // What an injection would run: each writes the marker (with shell builtins only: the PATH
    // has nothing else).
    for (const char *bad : {"touch", "rm", "curl", "wget", "sh", "bash", "id", "cat", "echo",
                            "printf", "ls", "env", "nc", "chmod", "mv", "cp", "tee", "dd"})
      write_file(bin / bad,
                 "#!/bin/sh\nprintf '%s %s\\n' \"$0\" \"$*\" >> '" + marker.string() +
                     "'\nexit 0\n",
                 true);
  }
  ~Sandbox() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
  // The launch piped into sh in work/, under the stubs' PATH alone; returns sh's exit status.
  int pipe_through_shell(const std::string &text) const {
    const fs::path script = root / "launch.txt";
    write_file(script, text);
    const std::string cmd = "cd '" + work.string() + "' && env -i PATH='" + bin.string() +
                            "' HOME='" + work.string() + "' /bin/sh < '" + script.string() +
                            "' > /dev/null 2>&1";
    return std::system(cmd.c_str());
  }
  std::string ran() const {
    std::ifstream f(marker);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  bool work_empty() const { return fs::is_empty(work); }
  void reset() const {
    std::error_code ec;
    fs::remove(marker, ec);
    for (const auto &e : fs::directory_iterator(work))
      fs::remove_all(e.path(), ec);
  }
};

std::string escaped(const std::string &s) {
  std::string out;
  for (const unsigned char ch : s) {
    char buf[8];
    if (ch < 0x20 || ch >= 0x7f) {
      std::snprintf(buf, sizeof buf, "\\x%02x", ch);
      out += buf;
    } else {
      out += static_cast<char>(ch);
    }
  }
  return out;
}

} // namespace

TEST_CASE("export shell: the stubs catch what a launch would run", "[export][shell]") {
  if (!have_shell()) {
    WARN("no /bin/sh: the shell-stub test is skipped");
    return;
  }
  const Sandbox box;
  // A launch runs its launcher stub and nothing else.
  box.pipe_through_shell("# comment\nvllm serve m \\\n  --tp 1\n");
  CHECK(box.ran().empty());
  CHECK(box.work_empty());
  // The sandbox sees an injected command, a builtin's redirection.
  box.pipe_through_shell("vllm serve m\ntouch x\n");
  CHECK(box.ran().find("touch x") != std::string::npos);
  box.reset();
  box.pipe_through_shell(": > written\n");
  CHECK(!box.work_empty());
  box.reset();
}

// Found on 2026-11-28 (issue 35; the export fuzz target found the same): the Megatron-LM,
// vLLM, SGLang and TensorRT-LLM launches wrote the hardware preset's name raw into their first
// comment line, so a chip named "m\ntouch x" ran `touch x` when the launch was piped into sh
// (7 names x 4 formats ran a command). Every header is now written through comment_text
// (core/schema/printable: control characters as \xNN escapes), and a model name that starts
// with '-' (read as an option where the checkpoint belongs) is refused at model.name.
TEST_CASE("export shell: no hostile name runs anything through any launch format",
          "[export][shell][issue35]") {
  if (!have_shell()) {
    WARN("no /bin/sh: the shell-stub test is skipped");
    return;
  }
  const Sandbox box;
  int launches = 0;
  for (const auto &[label, name] : hostile_names()) {
    for (const rl::fuzz::ExportCase &c : rl::fuzz::export_cases(name)) {
      INFO(label << " (" << escaped(name) << "), " << c.config << " --format " << c.format);
      if (c.text.empty()) { // refused: a field-named error is an answer
        INFO(c.error_path << ": " << c.error);
        CHECK(!c.error.empty());
        continue;
      }
      ++launches;
      INFO("launch:\n" << escaped(c.text));
      box.pipe_through_shell(c.text);
      CHECK(box.ran().empty());
      CHECK(box.work_empty());
      box.reset();
      CHECK_NOTHROW(rl::fuzz::check_export_case(c));
      // a name that starts with '-' never reaches a serving launch's checkpoint operand
      if (c.format != "megatron" && c.format != "deepspeed" && c.format != "torchtitan")
        CHECK((c.model_word.empty() || c.model_word[0] != '-'));
    }
  }
  // Every hostile name was written into every format at least once (the parser may refuse
  // names, but not all of them).
  CHECK(launches >= static_cast<int>(hostile_names().size()));
}
