# neardup_module(NAME [APP] SOURCES ... DEPS ... TESTS ...)
# Defines the static library neardup_<NAME> from src/<NAME>, or with APP an
# application library from apps/<NAME> (the report, mirrors, crawl studies
# and benchmark builder: built on the library, linked by the CLI, never
# installed; their headers are apps/<NAME>/<NAME>.h). DEPS is the list
# of allowed dependencies (other neardup modules and external targets): the
# module DAG is exactly these edges. TESTS are *_test.cc files beside the
# code; they are collected into the single neardup_tests binary.
#
# Include directories: include/ (the public API) is the only one that
# reaches an installed module ($<INSTALL_INTERFACE:include>); src/ is for
# modules of this build only. neardup_warnings is build-only too, so the
# installed package names neither a source path nor a warning target.
set_property(GLOBAL PROPERTY NEARDUP_MODULES "")
set_property(GLOBAL PROPERTY NEARDUP_TEST_SOURCES "")
set_property(GLOBAL PROPERTY NEARDUP_TEST_LIBS "")
function(neardup_module NAME)
  cmake_parse_arguments(M "APP" "" "SOURCES;DEPS;TESTS" ${ARGN})
  add_library(neardup_${NAME} STATIC ${M_SOURCES})
  target_include_directories(neardup_${NAME} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/src>
    $<INSTALL_INTERFACE:include>)
  target_link_libraries(neardup_${NAME} PUBLIC ${M_DEPS} PRIVATE $<BUILD_INTERFACE:neardup_warnings>)
  if(M_APP)
    target_include_directories(neardup_${NAME} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/apps>)
  else()
    set_property(GLOBAL APPEND PROPERTY NEARDUP_MODULES neardup_${NAME})
  endif()
  set(abs_tests "")
  foreach(t ${M_TESTS})
    list(APPEND abs_tests ${CMAKE_CURRENT_SOURCE_DIR}/${t})
  endforeach()
  set_property(GLOBAL APPEND PROPERTY NEARDUP_TEST_SOURCES ${abs_tests})
  set_target_properties(neardup_${NAME} PROPERTIES NEARDUP_MODULE_TESTS "${abs_tests}")
  set_property(GLOBAL APPEND PROPERTY NEARDUP_TEST_LIBS neardup_${NAME})
endfunction()

# Developer convenience: neardup_<NAME>_tests runs only one module's tests
# (not registered with ctest; neardup_tests holds them all). Must be called
# after every module is defined, from the top-level CMakeLists.
function(neardup_module_test_binaries)
  if(NOT NEARDUP_BUILD_TESTS)
    return()
  endif()
  get_property(libs GLOBAL PROPERTY NEARDUP_TEST_LIBS)
  foreach(lib ${libs})
    get_target_property(srcs ${lib} NEARDUP_MODULE_TESTS)
    if(srcs)
      add_executable(${lib}_tests EXCLUDE_FROM_ALL ${srcs} ${PROJECT_SOURCE_DIR}/tests/test_util.cc)
      target_include_directories(${lib}_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests)
      # neardup_io for MemEnv (include/neardup/env.h), which tests of every
      # module may use.
      target_link_libraries(${lib}_tests PRIVATE ${lib} neardup_io GTest::gtest GTest::gtest_main GTest::gmock ZLIB::ZLIB
                            nlohmann_json::nlohmann_json)
      target_compile_definitions(${lib}_tests PRIVATE NEARDUP_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
                                 NEARDUP_CLI_PATH="$<TARGET_FILE:neardup_cli>")
    endif()
  endforeach()
endfunction()
