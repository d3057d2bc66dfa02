// ridgeline core: the one error type for bad input. It names the field path
// ("parallel.tp") and the reason ("7 does not divide heads 64").
#pragma once

#include <stdexcept>
#include <string>

namespace rl {

class ConfigError : public std::runtime_error {
public:
  ConfigError(std::string path, std::string message)
      : std::runtime_error(path.empty() ? message : path + ": " + message), path_(std::move(path)),
        message_(std::move(message)) {}
  const std::string &path() const { return path_; }
  const std::string &message() const { return message_; }

private:
  std::string path_;
  std::string message_;
};

// Joins a parent path and a key: join_path("parallel", "tp") == "parallel.tp".
inline std::string join_path(const std::string &parent, const std::string &key) {
  return parent.empty() ? key : parent + "." + key;
}

} // namespace rl
