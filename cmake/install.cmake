# Install rules: `cmake --install BUILD --prefix P` puts the public headers, the library (static, or
# shared with -DBUILD_SHARED_LIBS=ON), the cclabel tool (src/cli), a CMake package and a pkg-config
# file under P. Included from the top CMakeLists.txt after the library is defined.
include(CMakePackageConfigHelpers)

set(CCLABEL_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/cclabel")

# The headers. cclabel/io.hpp is the CLI's reader library (cclabel_io, not installed); the device
# API's headers go only with a library that has the CUDA backend, or they would promise functions
# that are not in it.
set(_cclabel_header_excludes PATTERN "io.hpp" EXCLUDE)
if(NOT CCLABEL_HAVE_CUDA)
  list(APPEND _cclabel_header_excludes PATTERN "cuda*.hpp" EXCLUDE)
endif()
install(DIRECTORY include/cclabel DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} ${_cclabel_header_excludes})
install(FILES ${PROJECT_BINARY_DIR}/include/cclabel/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cclabel)

set(_cclabel_targets cclabel)
if(CCLABEL_HAVE_CUDA)
  list(APPEND _cclabel_targets cclabel_cuda)
endif()
install(TARGETS ${_cclabel_targets} EXPORT cclabelTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT cclabelTargets NAMESPACE cclabel:: DESTINATION ${CCLABEL_INSTALL_CMAKEDIR})

configure_package_config_file(cmake/cclabelConfig.cmake.in ${PROJECT_BINARY_DIR}/cclabelConfig.cmake
  INSTALL_DESTINATION ${CCLABEL_INSTALL_CMAKEDIR})
# 0.x: a minor version may break the API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cclabelConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cclabelConfig.cmake ${PROJECT_BINARY_DIR}/cclabelConfigVersion.cmake
  DESTINATION ${CCLABEL_INSTALL_CMAKEDIR})

# pkg-config: relocatable (the prefix is found from the .pc file's own folder, so `--prefix P` at
# install time works). A static library lists what it links in Libs, a shared one in Libs.private.
file(RELATIVE_PATH CCLABEL_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
string(REGEX REPLACE "/$" "" CCLABEL_PC_TO_PREFIX "${CCLABEL_PC_TO_PREFIX}")
set(CCLABEL_PC_CFLAGS "")
set(_cclabel_pc_deps " -pthread")
if(CCLABEL_HAVE_CUDA)
  foreach(dir IN LISTS CUDAToolkit_INCLUDE_DIRS)
    string(APPEND CCLABEL_PC_CFLAGS " -I${dir}")
  endforeach()
  string(APPEND _cclabel_pc_deps " -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt")
endif()
if(BUILD_SHARED_LIBS)
  set(CCLABEL_PC_LIBS "")
  set(CCLABEL_PC_LIBS_PRIVATE "${_cclabel_pc_deps}")
else()
  set(CCLABEL_PC_LIBS "${_cclabel_pc_deps}")
  set(CCLABEL_PC_LIBS_PRIVATE "")
endif()
configure_file(cmake/cclabel.pc.in ${PROJECT_BINARY_DIR}/cclabel.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cclabel.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
