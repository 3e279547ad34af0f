// tests/cli/run_ntp.h: running the `ntp` program from the CLI tests, as a
// user would, with its stdout, stderr and exit status captured.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace cli {

inline const std::string kSource = NTP_SOURCE_DIR;
inline const std::string kBinary = std::string(NTP_BINARY_DIR) + "/ntp";
inline const std::string kWork = std::string(NTP_BINARY_DIR) + "/cli_test";
inline const std::string kFamily = kSource + "/datasets/family";

struct Run {
  int status = -1;
  std::string out, err;
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `ntp ARGS` with stdout and stderr captured.
inline Run ntp(const std::string& args) {
  std::system(("mkdir -p " + kWork).c_str());
  const std::string out = kWork + "/stdout", err = kWork + "/stderr";
  const int raw = std::system((kBinary + " " + args + " > " + out + " 2> " + err).c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out), slurp(err)};
}

inline std::string last_line(const std::string& text) {
  std::string s = text;
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s.substr(s.rfind('\n') == std::string::npos ? 0 : s.rfind('\n') + 1);
}

// The number after "\"key\":" in a one-line JSON object.
inline double json_value(const std::string& json, const std::string& key) {
  const auto at = json.find("\"" + key + "\":");
  REQUIRE_MESSAGE(at != std::string::npos, "no " << key << " in " << json);
  return std::stod(json.substr(at + key.size() + 3));
}

inline void write(const std::string& name, const std::string& text) { std::ofstream(kWork + "/" + name) << text; }

}  // namespace cli

using namespace cli;  // the tests read as the commands they run
