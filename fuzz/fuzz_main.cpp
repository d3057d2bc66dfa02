// ridgeline fuzz: the libFuzzer entry point of one target (RL_FUZZ_TARGET, set by
// fuzz/CMakeLists.txt). A contract breach aborts with its reason. Slow inputs are caught
// here, not by libFuzzer's -timeout (its signal handler can deadlock under ASan): a
// watchdog thread writes the input that used more than RL_FUZZ_SLOW_S seconds (default 10)
// of CPU time to slow-<target> and exits 70. CPU time, so a fuzzer run at low priority beside
// a build is not flagged for waiting; an input that waits 30 times that on the wall clock
// (a hang) is flagged too.
#include "fuzz/targets.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <time.h>
#include <unistd.h>

namespace {

std::atomic<long long> g_started_ms{0};     // 0: no input running
std::atomic<long long> g_started_cpu_ms{0}; // process CPU time when it started
const std::uint8_t *g_data = nullptr;
std::size_t g_size = 0;

long long now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

long long cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<long long>(t.tv_sec) * 1000 + t.tv_nsec / 1000000;
}

void watchdog(long long limit_ms) {
  for (;;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const long long t = g_started_ms.load();
    if (t != 0 && (cpu_ms() - g_started_cpu_ms.load() > limit_ms || now_ms() - t > 30 * limit_ms)) {
      const std::string file = std::string("slow-") + RL_FUZZ_TARGET;
      if (FILE *f = std::fopen(file.c_str(), "wb")) {
        std::fwrite(g_data, 1, g_size, f);
        std::fclose(f);
      }
      std::fprintf(stderr, "\n==ridgeline fuzz== slow input: over %lld ms; written to %s\n",
                   limit_ms, file.c_str());
      _exit(70);
    }
  }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  const char *env = std::getenv("RL_FUZZ_SLOW_S");
  const long long limit_ms = env ? std::atoll(env) * 1000 : 10000;
  std::thread(watchdog, limit_ms > 0 ? limit_ms : 10000).detach();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  g_data = data;
  g_size = size;
  g_started_cpu_ms.store(cpu_ms());
  g_started_ms.store(now_ms());
  try {
    rl::fuzz::check(RL_FUZZ_TARGET, std::string(reinterpret_cast<const char *>(data), size));
  } catch (const rl::fuzz::Breach &b) {
    std::fprintf(stderr, "\n==ridgeline fuzz== contract breach in %s: %s\n", RL_FUZZ_TARGET,
                 b.what());
    std::abort();
  }
  g_started_ms.store(0);
  return 0;
}
