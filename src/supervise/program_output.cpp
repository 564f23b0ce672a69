#include "supervise/program_output.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "kerntime/errors.hpp"
#include "supervise/worker_process.hpp"

extern char** environ; // NOLINT(readability-redundant-declaration): POSIX declares it nowhere

namespace kerntime::detail {
namespace {

void close_quietly(int& fd) {
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
}

// Reads what is there into `into`, stopping once it holds more than `limit` bytes (a writer
// without end never lets the pipe run dry); false at the end of the stream.
bool drain(int fd, std::string& into, std::size_t limit) {
  std::array<char, 65536> buffer{};
  while (into.size() <= limit) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n > 0) {
      into.append(buffer.data(), static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) {
      continue;
    }
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
  return true;
}

} // namespace

program_output run_program(const std::vector<std::string>& argv, double timeout_s) {
  std::array<int, 2> out{-1, -1};
  std::array<int, 2> err{-1, -1};
  if (::pipe2(out.data(), O_CLOEXEC) != 0 || ::pipe2(err.data(), O_CLOEXEC) != 0) {
    throw error(fmt::format("cannot run {}: pipe failed ({})", argv.at(0), std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
  // A process group of its own: whatever it started is killed with it.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) {
    args.push_back(const_cast<char*>(a.c_str())); // NOLINT(cppcoreguidelines-pro-type-const-cast)
  }
  args.push_back(nullptr);
  // Not a worker: a channel variable inherited from a supervisor above must not reach it.
  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, worker_channel_variable, std::strlen(worker_channel_variable)) != 0) {
      environment.emplace_back(*e);
    }
  }
  std::vector<char*> envp;
  envp.reserve(environment.size() + 1);
  for (auto& e : environment) {
    envp.push_back(e.data());
  }
  envp.push_back(nullptr);
  pid_t pid = -1;
  const int spawned = ::posix_spawn(&pid, args[0], &actions, &attributes, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close_quietly(out[1]);
  close_quietly(err[1]);
  program_output result;
  if (spawned != 0) {
    close_quietly(out[0]);
    close_quietly(err[0]);
    result.how = fmt::format("it could not be started ({})", std::strerror(spawned));
    return result;
  }
  ::fcntl(out[0], F_SETFL, ::fcntl(out[0], F_GETFL) | O_NONBLOCK);
  ::fcntl(err[0], F_SETFL, ::fcntl(err[0], F_GETFL) | O_NONBLOCK);
  using clock_type = std::chrono::steady_clock;
  const auto deadline = clock_type::now() + std::chrono::duration_cast<clock_type::duration>(
                                                std::chrono::duration<double>(timeout_s));
  // Once it has exited, what it printed is read for a moment more: a child of its own may hold
  // the pipes open for good.
  constexpr auto after_exit = std::chrono::seconds(1);
  auto read_until = clock_type::time_point::max();
  bool out_open = true;
  bool err_open = true;
  bool exited = false;
  int status = 0;
  for (;;) {
    // WNOWAIT: seen, not reaped, so its process group's number cannot be reused before the kill
    // at the end.
    siginfo_t info{};
    if (!exited &&
        ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid) {
      exited = true;
      read_until = clock_type::now() + after_exit;
    }
    const auto now = clock_type::now();
    if ((exited && !out_open && !err_open) || now >= read_until) {
      break;
    }
    if (now >= deadline) {
      result.timed_out = !exited;
      break;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    std::array<pollfd, 2> fds{{{.fd = out_open ? out[0] : -1, .events = POLLIN, .revents = 0},
                               {.fd = err_open ? err[0] : -1, .events = POLLIN, .revents = 0}}};
    // Short waits: an exit is seen by polling waitpid.
    (void)::poll(fds.data(), fds.size(), static_cast<int>(std::min<long long>(left.count(), 50)));
    if (out_open && fds[0].revents != 0) {
      out_open = drain(out[0], result.out, max_output_bytes);
    }
    if (err_open && fds[1].revents != 0) {
      err_open = drain(err[0], result.err, max_error_bytes);
      if (result.err.size() > max_error_bytes) {
        result.err.resize(max_error_bytes); // the start says why; the rest is dropped
      }
    }
    if (result.out.size() > max_output_bytes) {
      result.too_much_output = true;
      break;
    }
  }
  close_quietly(out[0]);
  close_quietly(err[0]);
  ::kill(-pid, SIGKILL); // its group: anything it left running, and itself if it still runs
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  }
  result.how = describe_exit(status);
  return result;
}

std::string find_program(const std::string& name) {
  namespace fs = std::filesystem;
  if (name.empty()) {
    return "";
  }
  if (name.find('/') != std::string::npos) {
    return name;
  }
  const char* path = std::getenv("PATH");
  std::string_view folders = path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
  while (!folders.empty()) {
    const auto end = std::min(folders.find(':'), folders.size());
    const fs::path candidate = fs::path(std::string(folders.substr(0, end))) / name;
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) {
      return candidate.string();
    }
    folders.remove_prefix(std::min(end + 1, folders.size()));
  }
  return "";
}

} // namespace kerntime::detail
