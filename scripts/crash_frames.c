// A crash reporter to preload into a process that dies of a signal where no debugger is installed
// (the GPU machine has none): on SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT it writes one line per
// frame of the crashing thread, "FRAME <library> <offset in it> <nearest exported symbol>", to
// stderr, then lets the signal kill the process as it would have. scripts/crash_frames.sh turns
// the offsets into function, file and line with addr2line.
//   gcc -shared -fPIC -O1 -o crash_frames.so scripts/crash_frames.c -ldl
//   LD_PRELOAD=$PWD/crash_frames.so python3 -m pytest -p no:faulthandler ...
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void report(int signal_number, siginfo_t* info, void* context) {
  (void)context;
  void* frames[96];
  const int count = backtrace(frames, 96);
  fprintf(stderr, "CRASH signal %d (%s) at address %p, %d frames\n", signal_number,
          strsignal(signal_number), info ? info->si_addr : NULL, count);
  for (int i = 0; i < count; ++i) {
    Dl_info where;
    memset(&where, 0, sizeof where);
    if (dladdr(frames[i], &where) != 0 && where.dli_fname != NULL) {
      // A return address points after the call: one byte back names the calling line.
      const uintptr_t offset = (uintptr_t)frames[i] - (uintptr_t)where.dli_fbase - (i > 0 ? 1 : 0);
      fprintf(stderr, "FRAME %s 0x%lx %s\n", where.dli_fname, (unsigned long)offset,
              where.dli_sname ? where.dli_sname : "?");
    } else {
      fprintf(stderr, "FRAME ? %p ?\n", frames[i]);
    }
  }
  fflush(stderr);
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

// The handler runs on a stack of its own (the main thread's), so a stack overflow, such as a
// function that an interposed symbol turns into endless recursion, is reported too.
static char handler_stack[1 << 16];

__attribute__((constructor)) static void install(void) {
  stack_t stack;
  memset(&stack, 0, sizeof stack);
  stack.ss_sp = handler_stack;
  stack.ss_size = sizeof handler_stack;
  sigaltstack(&stack, NULL);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = report;
  action.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  const int signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
  for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; ++i) {
    sigaction(signals[i], &action, NULL);
  }
}
