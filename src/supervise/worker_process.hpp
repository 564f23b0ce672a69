#pragma once
// One worker process of `kerntime run`: started from a command line, spoken to over two pipes
// (commands in, messages out, one line each), killed when it hangs, reaped with a reason.

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kerntime::detail {

// The environment variable that tells a started program it is a worker and names its channel:
// "IN,OUT", the file descriptors of the command pipe and the message pipe.
inline constexpr const char* worker_channel_variable = "KERNTIME_WORKER_CHANNEL";

struct worker_launch {
  std::vector<std::string> argv;                                // argv[0] is the program's path
  std::vector<std::pair<std::string, std::string>> environment; // set on top of ours
};

class worker_process {
public:
  // Starts the program. It dies with us (PR_SET_PDEATHSIG), so a killed supervisor never leaves
  // a worker spinning on a GPU. Throws kerntime::error when the process cannot be created; a
  // program that cannot be executed exits 127 and reads as a worker that died at start.
  explicit worker_process(const worker_launch& launch);
  ~worker_process(); // kills and reaps a worker still running
  worker_process(const worker_process&) = delete;
  worker_process& operator=(const worker_process&) = delete;
  worker_process(worker_process&&) = delete;
  worker_process& operator=(worker_process&&) = delete;

  [[nodiscard]] pid_t pid() const { return pid_; }
  [[nodiscard]] int message_fd() const { return messages_; }

  // Writes one line; false when the worker no longer reads (it died).
  bool send(const std::string& line);
  // No more commands: the worker sees the end of its input and exits.
  void close_commands();
  // Reads what is available without blocking. Complete lines are returned; `ended` becomes true
  // once the worker has closed its end (it exited or died).
  [[nodiscard]] std::vector<std::string> read_lines();
  [[nodiscard]] bool ended() const { return ended_; }

  void kill();
  // Waits for the process to exit and says how: "exit code 0", "signal 11 (SIGSEGV)".
  // Blocking; call after ended() or kill().
  std::string reap();
  // The exit code, when it exited normally; set by reap().
  [[nodiscard]] std::optional<int> exit_code() const { return exit_code_; }

private:
  pid_t pid_ = -1;
  int commands_ = -1;
  int messages_ = -1;
  std::string pending_; // bytes after the last complete line
  bool ended_ = false;
  bool reaped_ = false;
  std::optional<int> exit_code_;
  std::string how_;
};

// "signal 11 (SIGSEGV)" or "exit code 3", from a waitpid status.
[[nodiscard]] std::string describe_exit(int wait_status);

} // namespace kerntime::detail
