# Helpers for the per-module CMakeLists.txt files under src/. A module is one folder, one
# library, one test executable; its dependencies are named explicitly in its own
# CMakeLists.txt (the order is in docs/design.md, "Module map", and scripts/check_layering.py
# checks the includes against it).

# vt_module_sources(<out-var> [RECURSE]): the module's own .cc files (this folder only, or
# with RECURSE its subfolders), without tests (*_test.cc) and programs (*_main.cc). Only a
# module's own folder is ever globbed.
function(vt_module_sources out)
  if(ARGV1 STREQUAL "RECURSE")
    file(GLOB_RECURSE srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  else()
    file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
  endif()
  list(FILTER srcs EXCLUDE REGEX "(_test|_main)\\.cc$")
  set(${out} ${srcs} PARENT_SCOPE)
endfunction()

# vt_module_tests(<module> [RECURSE] LIBS <targets...>): vt_<module>_tests from the module's
# *_test.cc files, registered with ctest (label unit;<module>). LIBS are what the tests link
# beyond GoogleTest; tests include headers of their own module and lower ones only.
function(vt_module_tests module)
  if(NOT VTENSOR_BUILD_TESTS)
    return()
  endif()
  cmake_parse_arguments(ARG "RECURSE" "" "LIBS" ${ARGN})
  if(ARG_RECURSE)
    file(GLOB_RECURSE tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cc)
  else()
    file(GLOB tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cc)
  endif()
  if(NOT tests)
    return()
  endif()
  add_executable(vt_${module}_tests ${tests})
  target_link_libraries(vt_${module}_tests PRIVATE ${ARG_LIBS} GTest::gtest_main GTest::gmock)
  target_include_directories(vt_${module}_tests PRIVATE ${PROJECT_SOURCE_DIR}/src)
  # Golden files (tests/golden/) and test data are read from the source tree.
  target_compile_definitions(vt_${module}_tests PRIVATE
                             VTENSOR_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  gtest_discover_tests(vt_${module}_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS "unit;${module}")
endfunction()

# vt_isa_flags(<sources...>): each file named *_avx512.cc, *_avx512vnni.cc or *_avx2.cc is
# compiled with exactly its ISA's flags; it is only called after run-time CPU detection, so the
# binary still runs on baseline x86-64.
function(vt_isa_flags)
  foreach(f ${ARGN})
    if(f MATCHES "_avx512\\.cc$")
      set_source_files_properties(${f} PROPERTIES COMPILE_OPTIONS
        "-mavx512f;-mavx512bw;-mavx512vl;-mavx512dq;-mfma")
    elseif(f MATCHES "_avx512vnni\\.cc$")
      # -ffp-contract=off: fused epilogues round exactly like their scalar twins.
      set_source_files_properties(${f} PROPERTIES COMPILE_OPTIONS
        "-mavx512f;-mavx512bw;-mavx512vl;-mavx512dq;-mavx512vnni;-ffp-contract=off")
    elseif(f MATCHES "_avx2\\.cc$")
      set_source_files_properties(${f} PROPERTIES COMPILE_OPTIONS "-mavx2;-mfma")
    endif()
  endforeach()
endfunction()
