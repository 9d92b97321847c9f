# Script mode (cmake -P): install, configure the downstream project against the
# install prefix only, build it and run it. Any failing step fails the test.
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
execute_process(COMMAND ${DOWNSTREAM_BUILD}/downstream RESULT_VARIABLE rc OUTPUT_VARIABLE out)
message("${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "downstream ok: add\\(x, mul\\(y, z\\)\\)")
  message(FATAL_ERROR "downstream program failed (${rc}): ${out}")
endif()
