# Fuzzes for SECONDS on a copy of CORPUS (libFuzzer adds what it finds to its corpus; the checked-in one stays as
# it is). Fails on any crash, sanitizer report, leak, timeout or out-of-memory; the input is left in SCRATCH.
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH})
file(COPY ${CORPUS}/ DESTINATION ${SCRATCH}/corpus)
execute_process(
  COMMAND ${FUZZER} ${SCRATCH}/corpus -max_total_time=${SECONDS} -rss_limit_mb=2048 -timeout=25
          -artifact_prefix=${SCRATCH}/ -print_final_stats=1
  RESULT_VARIABLE status)
if(NOT status STREQUAL "0")
  file(GLOB found ${SCRATCH}/crash-* ${SCRATCH}/leak-* ${SCRATCH}/timeout-* ${SCRATCH}/oom-*)
  message(FATAL_ERROR "libFuzzer failed (${status}); input: ${found}")
endif()
