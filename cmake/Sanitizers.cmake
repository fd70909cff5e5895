# NEARDUP_SANITIZE=ON builds everything with ASan + UBSan (CI runs the suite
# this way as well as in Release).
if(NEARDUP_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()

# NEARDUP_BUILD_FUZZERS (clang): instrument every library for coverage so
# libFuzzer is guided through the parsers, not only the fuzz entry points.
if(NEARDUP_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "NEARDUP_BUILD_FUZZERS needs clang (-DCMAKE_CXX_COMPILER=clang++)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
