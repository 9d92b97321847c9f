# Script mode (cmake -P): install, configure the downstream project against the
# install prefix only, build it and run it (once plain, once with the
# package's precompiled-header option). Any failing step fails the test.
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}\n${err}")
  endif()
endfunction()

file(REMOVE_RECURSE ${PREFIX} ${DOWNSTREAM_BUILD})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX})
run(${CMAKE_COMMAND} -S ${SOURCE} -B ${DOWNSTREAM_BUILD} -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX} "-DCMAKE_CXX_FLAGS=${FLAGS}" "-DCMAKE_EXE_LINKER_FLAGS=${FLAGS}"
    -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)
run(${CMAKE_COMMAND} --build ${DOWNSTREAM_BUILD})
foreach(exe downstream downstream_pch)
  execute_process(COMMAND ${DOWNSTREAM_BUILD}/${exe} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  message("${out}")
  if(NOT rc EQUAL 0 OR NOT out MATCHES "downstream ok: add\\(x, mul\\(y, z\\)\\)")
    message(FATAL_ERROR "${exe} failed (${rc}): ${out}")
  endif()
endforeach()
# theano_target_precompile_headers() made a precompiled header (GCC: .gch,
# Clang: .pch) of theano.hpp for downstream_pch.
file(GLOB_RECURSE _pch ${DOWNSTREAM_BUILD}/CMakeFiles/downstream_pch.dir/cmake_pch.hxx.gch
                        ${DOWNSTREAM_BUILD}/CMakeFiles/downstream_pch.dir/cmake_pch.hxx.pch)
file(READ ${DOWNSTREAM_BUILD}/CMakeFiles/downstream_pch.dir/cmake_pch.hxx _pch_source)
if(NOT _pch OR NOT _pch_source MATCHES "theano/theano.hpp")
  message(FATAL_ERROR "downstream_pch has no precompiled header of theano/theano.hpp")
endif()
