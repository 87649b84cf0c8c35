# Writes the commit being built into a header for `muster --version`, at every build rather
# than at configure time: a build directory configured once and built at later commits still
# names the commit it built. The header is rewritten only when its text changes, so that an
# unchanged commit recompiles nothing.
#
#   cmake -DSOURCE_DIR=<checkout> -DOUTPUT=<header> -P commit_header.cmake

execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE status ERROR_QUIET)
if(NOT status EQUAL 0 OR NOT commit)
  set(commit unknown)
else()
  # Changes not committed (tracked files only) are marked, so that a build of them is not
  # taken for the commit's.
  execute_process(COMMAND git diff --quiet HEAD -- WORKING_DIRECTORY ${SOURCE_DIR}
                  RESULT_VARIABLE dirty ERROR_QUIET)
  if(dirty EQUAL 1)
    string(APPEND commit "+changes")
  endif()
endif()
set(text "#define MUSTER_GIT_COMMIT \"${commit}\"\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
  if(old STREQUAL text)
    return()
  endif()
endif()
file(WRITE ${OUTPUT} "${text}")
