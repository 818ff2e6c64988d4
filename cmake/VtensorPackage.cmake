# The installable library (docs/install.md): libvtensor.so and libvtensor.a built from every
# module's objects (operators included), the public headers, a CMake package
# (find_package(vtensor): vtensor::vtensor, vtensor::vtensor_static) and pkg-config files
# (vtensor.pc, vtensor-static.pc).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Module libraries whose objects make up the library, lowest first (tools stay out).
set(VT_PACKAGE_MODULES vt_base vt_layout vt_tensor vt_format_proto vt_format vt_kernels vt_graph
                       vt_forms vt_exec vt_ops vt_passes vt_runtime vt_export vt_api)
set(VT_PACKAGE_OBJECTS "")
foreach(m ${VT_PACKAGE_MODULES})
  list(APPEND VT_PACKAGE_OBJECTS $<TARGET_OBJECTS:${m}>)
endforeach()
set(VT_LIB_DIR ${PROJECT_BINARY_DIR}/lib)

# Shared library. Its link dependencies are recorded in it (DT_NEEDED), so consumers name
# only vtensor; --no-undefined proves every symbol is found.
add_library(vtensor_shared SHARED ${VT_PACKAGE_OBJECTS})
set_target_properties(vtensor_shared PROPERTIES
  OUTPUT_NAME vtensor VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
  LIBRARY_OUTPUT_DIRECTORY ${VT_LIB_DIR})
target_link_libraries(vtensor_shared PRIVATE onnx_proto protobuf::libprotobuf
                      ${CMAKE_DL_LIBS} ${XXHASH_LIBRARY}
                      OpenMP::OpenMP_CXX fmt::fmt)
# -z nodelete: dlclose never unmaps it, so the thread that reads its code pages in the
# background (base/code_pages.h) never runs on unmapped code.
target_link_options(vtensor_shared PRIVATE -Wl,--no-undefined -Wl,-z,nodelete)
# In the build tree (examples/) it is used like the installed library: public headers only.
target_include_directories(vtensor_shared INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/proto>)
target_link_libraries(vtensor_shared INTERFACE protobuf::libprotobuf)

# Static library: one relocatable object (ld -r of every module object) in libvtensor.a.
# Operators register themselves from static initialisers that nothing references; inside one
# object they are linked whenever any vtensor symbol is, so consumers need no whole-archive
# flags.
set(VT_STATIC_OBJECT ${VT_LIB_DIR}/vtensor_all.o)
set(VT_STATIC_LIB ${VT_LIB_DIR}/libvtensor.a)
add_custom_command(
  OUTPUT ${VT_STATIC_LIB}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${VT_LIB_DIR}
  COMMAND ${CMAKE_LINKER} -r -o ${VT_STATIC_OBJECT} ${VT_PACKAGE_OBJECTS}
  COMMAND ${CMAKE_COMMAND} -E rm -f ${VT_STATIC_LIB}
  COMMAND ${CMAKE_AR} qc ${VT_STATIC_LIB} ${VT_STATIC_OBJECT}
  COMMAND ${CMAKE_RANLIB} ${VT_STATIC_LIB}
  COMMAND ${CMAKE_COMMAND} -E rm -f ${VT_STATIC_OBJECT}
  DEPENDS ${VT_PACKAGE_MODULES}
  COMMAND_EXPAND_LISTS VERBATIM
  COMMENT "Linking libvtensor.a (one relocatable object)")
add_custom_target(vtensor_static ALL DEPENDS ${VT_STATIC_LIB})

# Public headers: the C API, the C++ Session and what it includes, and model / value loading.
# tests/install/install_test.sh checks that every vtensor header they include is installed.
set(VT_PUBLIC_HEADERS
  vtensor_c.h
  runtime/session.h
  base/status.h base/file.h base/read_ahead.h
  layout/dtype.h layout/encoding.h layout/layout.h
  tensor/storage.h tensor/tensor.h tensor/value.h
  format/tensor_proto.h
  graph/graph.h graph/type_info.h graph/onnx_import.h
  forms/weight_cache.h forms/weight_form.h forms/weight_provider.h
  forms/cache_summary.h forms/miss_reason.h forms/verify_memo.h forms/conv_mode.h forms/isa.h
  forms/weight_profile.h forms/weight_use.h)
foreach(h ${VT_PUBLIC_HEADERS})
  get_filename_component(dir ${h} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/include/vtensor/${h}
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/vtensor/${dir})
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/proto/vtensor/format/vtensor_ext.pb.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/vtensor/format)

install(TARGETS vtensor_shared LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The operator libraries plugin (src/ops/common/op_libs.h) that both libraries load on demand:
# ImageDecoder's format libraries and RE2 are its dependencies, not theirs.
install(TARGETS vtensor_oplibs LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# The ONNX operator definitions plugin (src/format/onnx_defs.h): libonnx is its dependency.
install(TARGETS vtensor_onnxdefs LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${VT_STATIC_LIB} DESTINATION ${CMAKE_INSTALL_LIBDIR})

set(VT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/vtensor)
get_filename_component(VT_XXHASH_NAME ${XXHASH_LIBRARY} NAME)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/vtensorConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/vtensorConfig.cmake
  INSTALL_DESTINATION ${VT_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
# 0.x: a minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/vtensorConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/vtensorConfig.cmake
              ${PROJECT_BINARY_DIR}/package/vtensorConfigVersion.cmake
        DESTINATION ${VT_CMAKE_DIR})

# pkg-config files locate the prefix from their own directory, so the tree can be moved.
file(RELATIVE_PATH VT_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
foreach(pc vtensor vtensor-static)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/package/${pc}.pc
                 @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/package/${pc}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
