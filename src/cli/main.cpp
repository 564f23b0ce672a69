// The provided main of kerntime_main: link it with your benchmarks to get the whole command line.

#include "kerntime/benchmark.hpp"

int main(int argc, char** argv) {
  return kerntime::run_command_line(argc, argv);
}
