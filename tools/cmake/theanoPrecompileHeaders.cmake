# theano_target_precompile_headers(<target>): compile <theano/theano.hpp> once
# as a precompiled header for <target> (a target that links theano::theano),
# so that each of its translation units skips parsing the umbrella header
# (bench/build_time.sh: a one-function program compiles in about a third of
# the time). The header is force-included into every C++ source of the target,
# so a source that includes it again costs nothing.
#
# Options: REUSE_FROM <other> reuses the precompiled header of another target
# built with the same flags (several executables, one PCH).
# Installed with the package (theanoConfig.cmake includes it) and used in the
# build tree by the top-level CMakeLists.txt.
function(theano_target_precompile_headers target)
  cmake_parse_arguments(PARSE_ARGV 1 _theano_pch "" "REUSE_FROM" "")
  if(_theano_pch_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "theano_target_precompile_headers(${target}): unexpected arguments "
                        "'${_theano_pch_UNPARSED_ARGUMENTS}' (expected: <target> [REUSE_FROM <target>])")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "theano_target_precompile_headers: '${target}' is not a target")
  endif()
  if(_theano_pch_REUSE_FROM)
    target_precompile_headers(${target} REUSE_FROM ${_theano_pch_REUSE_FROM})
  else()
    target_precompile_headers(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:<theano/theano.hpp$<ANGLE-R>>")
  endif()
endfunction()
