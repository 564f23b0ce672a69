# The Debian/Ubuntu development packages that building kerntime needs, as pairs of what and its
# package: the one list. The configure message below CMakeLists.txt's AUTO check is formed from
# it, the Python package's "no command" message reads it (kerntime/_build_packages.py, generated
# by python/CMakeLists.txt), and python/tests/test_build_packages.py checks the install text of
# docs/python.md and scripts/setup.sh against it.

# Every build, the Python module's included. Where the packages are missing, fmt's and
# nlohmann_json's headers may come from KERNTIME_DEPS_INCLUDE and simdjson and zlib from beside it.
set(KERNTIME_LIBRARY_PACKAGES
  fmt libfmt-dev
  nlohmann_json nlohmann-json3-dev
  simdjson libsimdjson-dev
  zlib zlib1g-dev)
# The kerntime command besides (KERNTIME_BUILD_CLI; AUTO builds it where all of them are found).
set(KERNTIME_COMMAND_PACKAGES
  CLI11 libcli11-dev
  Boost libboost-dev
  RE2 libre2-dev
  SQLite libsqlite3-dev
  libpq libpq-dev)

# kerntime_package_field(out pairs index): of the list named `pairs`, the names (index 0) or the
# packages (index 1), in order.
function(kerntime_package_field out pairs index)
  set(values "")
  list(LENGTH ${pairs} length)
  math(EXPR last "${length} - 1")
  foreach(i RANGE ${index} ${last} 2)
    list(GET ${pairs} ${i} value)
    list(APPEND values "${value}")
  endforeach()
  set(${out} "${values}" PARENT_SCOPE)
endfunction()
