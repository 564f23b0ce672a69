# cmake --install: kerntime as a C++ library. The public headers, the static libraries, the
# kerntime command and a CMake package: find_package(kerntime CONFIG) gives kerntime::kerntime
# and kerntime::kerntime_main. (The Python module installs itself, python/CMakeLists.txt.)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(kerntime_libraries kerntime)
foreach(library IN ITEMS kerntime_compare kerntime_cli kerntime_main)
  if(TARGET ${library})
    list(APPEND kerntime_libraries ${library})
  endif()
endforeach()

# These libraries are header-only and used privately: compiled into kerntime's static libraries,
# they add nothing to a link. CMake still lists a static library's private dependencies in its
# link interface ($<LINK_ONLY:...>); installed, that would make every consumer find them (or fail
# on the .deps fallback targets), so they stay in the build tree's interface only.
set(kerntime_header_only_dependencies
  fmt::fmt-header-only nlohmann_json::nlohmann_json CLI11::CLI11 Boost::headers)
foreach(library IN LISTS kerntime_libraries)
  get_target_property(link_interface ${library} INTERFACE_LINK_LIBRARIES)
  if(NOT link_interface)
    continue()
  endif()
  set(installable_link_interface "")
  foreach(item IN LISTS link_interface)
    if(item MATCHES "^\\$<LINK_ONLY:(.+)>$"
        AND CMAKE_MATCH_1 IN_LIST kerntime_header_only_dependencies)
      set(item "$<BUILD_INTERFACE:${item}>")
    endif()
    list(APPEND installable_link_interface "${item}")
  endforeach()
  set_property(TARGET ${library} PROPERTY INTERFACE_LINK_LIBRARIES "${installable_link_interface}")
endforeach()

install(DIRECTORY include/kerntime
  DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}"
  COMPONENT development)
install(TARGETS ${kerntime_libraries}
  EXPORT kerntime_targets
  ARCHIVE DESTINATION "${CMAKE_INSTALL_LIBDIR}" COMPONENT development
  INCLUDES DESTINATION "${CMAKE_INSTALL_INCLUDEDIR}")

set(kerntime_package_dir "${CMAKE_INSTALL_LIBDIR}/cmake/kerntime")
install(EXPORT kerntime_targets
  NAMESPACE kerntime::
  FILE kerntimeTargets.cmake
  DESTINATION "${kerntime_package_dir}"
  COMPONENT development)
if(KERNTIME_FMT STREQUAL "fmt::fmt")
  set(KERNTIME_FMT_COMPILED TRUE)
else()
  set(KERNTIME_FMT_COMPILED FALSE)
endif()
configure_package_config_file(cmake/kerntimeConfig.cmake.in
  "${PROJECT_BINARY_DIR}/kerntimeConfig.cmake"
  INSTALL_DESTINATION "${kerntime_package_dir}")
# 0.x: a minor version may change the API, so only the same minor version is compatible.
write_basic_package_version_file("${PROJECT_BINARY_DIR}/kerntimeConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/kerntimeConfig.cmake"
  "${PROJECT_BINARY_DIR}/kerntimeConfigVersion.cmake"
  cmake/nvcc_cxx20.cmake
  DESTINATION "${kerntime_package_dir}"
  COMPONENT development)

if(TARGET kerntime_command)
  install(TARGETS kerntime_command RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}" COMPONENT command)
  # The command links cuBLAS dynamically; installed, it finds it where it was built against.
  set_target_properties(kerntime_command PROPERTIES INSTALL_RPATH "${CUDAToolkit_LIBRARY_DIR}")
endif()
