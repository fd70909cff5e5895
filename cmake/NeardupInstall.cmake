# NEARDUP_INSTALL=ON: `cmake --install build --prefix P` lays out
#   P/include/neardup/*.h             the public API, and only it
#   P/lib/libneardup_<module>.a       every module library
#   P/lib/cmake/neardup/              neardupConfig.cmake, its version file and
#                                     neardupTargets*.cmake (namespace neardup::)
#   P/bin/neardup                     the command-line tool
# so that a user's project does
#   find_package(neardup CONFIG REQUIRED)
#   target_link_libraries(app PRIVATE neardup::neardup)
# The module libraries stay static and separate (as in the build): each is
# exported with its DAG edges, and neardup::neardup is the umbrella over them.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(NEARDUP_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/neardup)
get_property(neardup_modules GLOBAL PROPERTY NEARDUP_MODULES)

install(TARGETS ${neardup_modules} neardup
        EXPORT neardupTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS neardup_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
if(TARGET neardup_mpi)
  install(TARGETS neardup_mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/neardup
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h")

install(EXPORT neardupTargets
        NAMESPACE neardup::
        DESTINATION ${NEARDUP_INSTALL_CMAKEDIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/neardupConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/neardupConfig.cmake
                              INSTALL_DESTINATION ${NEARDUP_INSTALL_CMAKEDIR})
# 0.x: a minor release may change the API, so only the same major.minor matches.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/neardupConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION}
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/neardupConfig.cmake
              ${PROJECT_BINARY_DIR}/neardupConfigVersion.cmake
        DESTINATION ${NEARDUP_INSTALL_CMAKEDIR})
