# Runs an example program as a CTest test and checks what it printed, so the
# examples stay working (see examples/CMakeLists.txt for the tests). Script mode:
#
#   cmake -DPROGRAM=<exe> [-DARGS="<args, space-separated>"] [-DRUNS=<n>]
#         [-DCLEAN=<paths to delete first, space-separated>] [-DEXPECT_RC=<code>]
#         [-DEXPECT_FIRST=<regex>] [-DEXPECT_LAST="<regex>[;<regex>...]"]
#         [-DEXPECT_FILE=<path>] [-DEXPECT_FILE_REGEX=<regex>] -P check_example.cmake
#
# The program runs RUNS times (default 1) with the same arguments and the
# environment CTest gives the test (THEANO_FLAGS). Every run must exit with
# EXPECT_RC (default 0); the first run's output must match EXPECT_FIRST, the
# last run's every regex of EXPECT_LAST; EXPECT_FILE must exist afterwards and
# contain EXPECT_FILE_REGEX.
cmake_minimum_required(VERSION 3.25)

if(NOT PROGRAM)
  message(FATAL_ERROR "check_example.cmake: -DPROGRAM=<executable> is required")
endif()
if(NOT DEFINED RUNS)
  set(RUNS 1)
endif()
if(NOT DEFINED EXPECT_RC)
  set(EXPECT_RC 0)
endif()
separate_arguments(args UNIX_COMMAND "${ARGS}")
separate_arguments(clean UNIX_COMMAND "${CLEAN}")

# Start from nothing: a compiledir or an output file left by an earlier run
# would change what the first run prints.
foreach(path IN LISTS clean)
  file(REMOVE_RECURSE "${path}")
endforeach()

function(expect_match what text regex)
  if(NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what} does not match '${regex}'. It was:\n${text}")
  endif()
endfunction()

foreach(run RANGE 1 ${RUNS})
  execute_process(COMMAND "${PROGRAM}" ${args}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "run ${run} of ${PROGRAM} ${ARGS} (exit ${rc}):\n${out}${err}")
  if(NOT rc STREQUAL EXPECT_RC)
    message(FATAL_ERROR "run ${run} exited with '${rc}', expected ${EXPECT_RC}")
  endif()
  if(run EQUAL 1 AND DEFINED EXPECT_FIRST)
    expect_match("the output of run 1" "${out}${err}" "${EXPECT_FIRST}")
  endif()
endforeach()

foreach(regex IN LISTS EXPECT_LAST)
  expect_match("the output of run ${RUNS}" "${out}${err}" "${regex}")
endforeach()

if(DEFINED EXPECT_FILE)
  if(NOT EXISTS "${EXPECT_FILE}")
    message(FATAL_ERROR "${EXPECT_FILE} was not written")
  endif()
  if(DEFINED EXPECT_FILE_REGEX)
    file(READ "${EXPECT_FILE}" content)
    expect_match("${EXPECT_FILE}" "${content}" "${EXPECT_FILE_REGEX}")
  endif()
endif()
