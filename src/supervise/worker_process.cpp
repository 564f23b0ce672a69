#include "supervise/worker_process.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "kerntime/errors.hpp"

extern char** environ; // NOLINT(readability-redundant-declaration): POSIX declares it nowhere

namespace kerntime::detail {
namespace {

// The descriptors the worker finds its channel on, whatever numbers the pipes got here.
constexpr int child_commands_fd = 3;
constexpr int child_messages_fd = 4;

void close_quietly(int& fd) {
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
}

// The environment of the child: ours, with `overrides` replacing or adding variables.
std::vector<std::string>
child_environment(const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::vector<std::string> entries;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const auto name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& [key, value] : overrides) {
      replaced = replaced || key == name;
    }
    if (!replaced) {
      entries.push_back(entry);
    }
  }
  for (const auto& [key, value] : overrides) {
    entries.push_back(key + "=" + value);
  }
  return entries;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) {
    out.push_back(s.data());
  }
  out.push_back(nullptr);
  return out;
}

} // namespace

std::string describe_exit(int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    const int signal = WTERMSIG(wait_status);
    const char* name = ::sigabbrev_np(signal);
    return name != nullptr ? fmt::format("signal {} (SIG{})", signal, name)
                           : fmt::format("signal {}", signal);
  }
  if (WIFEXITED(wait_status)) {
    return fmt::format("exit code {}", WEXITSTATUS(wait_status));
  }
  return fmt::format("ended with wait status {}", wait_status);
}

worker_process::worker_process(const worker_launch& launch) {
  std::array<int, 2> commands{-1, -1};
  std::array<int, 2> messages{-1, -1};
  if (::pipe2(commands.data(), O_CLOEXEC) != 0 || ::pipe2(messages.data(), O_CLOEXEC) != 0) {
    throw error(
        fmt::format("cannot start a worker process: pipe failed ({})", std::strerror(errno)));
  }
  auto overrides = launch.environment;
  overrides.emplace_back(worker_channel_variable,
                         fmt::format("{},{}", child_commands_fd, child_messages_fd));
  auto environment = child_environment(overrides);
  auto arguments = launch.argv;
  auto argv = pointers(arguments);
  auto envp = pointers(environment);
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    throw error(
        fmt::format("cannot start a worker process: fork failed ({})", std::strerror(errno)));
  }
  if (pid_ == 0) {
    // The child: only async-signal-safe calls until exec.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) {
      ::_exit(127); // the supervisor died before the line above took effect
    }
    // dup2 clears close-on-exec on the copies; move the read end of the commands away from 4
    // first, in case the pipes were given 3 and 4 themselves.
    const int in = ::fcntl(commands[0], F_DUPFD_CLOEXEC, child_messages_fd + 1);
    if (in < 0 || ::dup2(messages[1], child_messages_fd) < 0 || ::dup2(in, child_commands_fd) < 0) {
      ::_exit(127);
    }
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(commands[0]);
  ::close(messages[1]);
  commands_ = commands[1];
  messages_ = messages[0];
  ::fcntl(messages_, F_SETFL, ::fcntl(messages_, F_GETFL) | O_NONBLOCK);
}

worker_process::~worker_process() {
  if (!reaped_) {
    kill();
    reap();
  }
  close_quietly(commands_);
  close_quietly(messages_);
}

bool worker_process::send(const std::string& line) {
  if (commands_ < 0) {
    return false;
  }
  const std::string text = line + '\n';
  std::size_t written = 0;
  while (written < text.size()) {
    // MSG_NOSIGNAL is for sockets; a pipe to a dead worker raises SIGPIPE, which the supervisor
    // ignores (supervisor.cpp), so the write fails with EPIPE instead.
    const ssize_t n = ::write(commands_, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return false;
    }
    written += static_cast<std::size_t>(n);
  }
  return true;
}

void worker_process::close_commands() {
  close_quietly(commands_);
}

std::vector<std::string> worker_process::read_lines() {
  std::array<char, 65536> buffer{};
  for (;;) {
    const ssize_t n = ::read(messages_, buffer.data(), buffer.size());
    if (n > 0) {
      pending_.append(buffer.data(), static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) {
      ended_ = true;
    } else if (errno == EINTR) {
      continue;
    } else if (errno != EAGAIN && errno != EWOULDBLOCK) {
      ended_ = true;
    }
    break;
  }
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (auto end = pending_.find('\n'); end != std::string::npos; end = pending_.find('\n', start)) {
    lines.push_back(pending_.substr(start, end - start));
    start = end + 1;
  }
  pending_.erase(0, start);
  return lines;
}

void worker_process::kill() {
  if (!reaped_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
  }
}

std::string worker_process::reap() {
  if (reaped_) {
    return how_;
  }
  int status = 0;
  pid_t done = -1;
  do {
    done = ::waitpid(pid_, &status, 0);
  } while (done < 0 && errno == EINTR);
  reaped_ = true;
  close_quietly(commands_);
  if (done < 0) {
    how_ = fmt::format("ended (waitpid failed: {})", std::strerror(errno));
    return how_;
  }
  if (WIFEXITED(status)) {
    exit_code_ = WEXITSTATUS(status);
  }
  how_ = describe_exit(status);
  return how_;
}

} // namespace kerntime::detail
