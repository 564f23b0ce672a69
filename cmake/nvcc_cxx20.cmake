# CMake 3.25 does not know nvcc 13's C++20 flag, so cuda_std_20 (which kerntime's targets require:
# the public headers are C++20 and device code shares them) would be an unknown feature. Teach it.
# Included by kerntime's build and by its installed CMake package, in the scope of the project
# whose CUDA files include kerntime's headers.
if(CMAKE_CUDA_COMPILER_LOADED AND NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  list(APPEND CMAKE_CUDA_COMPILE_FEATURES cuda_std_20)
endif()
