# Writes the deep inputs into OUT: call-tree chains at and one past the reader's depth limit (kMaxReportDepth in
# src/report/report_reader.h), nesting past the parser's limit, deep "stats" and unknown fields, and a chain of claims
# of children too many to check in.
file(STRINGS ${CMAKE_CURRENT_LIST_DIR}/../../src/report/report_reader.h limit
     REGEX "kMaxReportDepth = size_t\\(1\\) << [0-9]+")
if(NOT limit MATCHES "<< ([0-9]+)")
  message(FATAL_ERROR "kMaxReportDepth not found in report_reader.h: update deep_inputs.cmake")
endif()
math(EXPR max_depth "1 << ${CMAKE_MATCH_1}")
math(EXPR past_max_depth "${max_depth} + 1")
# The parser's limit (load_report_from_text): enough open containers for a tree one level too deep.
math(EXPR parser_limit "4 + 2 * (${max_depth} + 1)")
math(EXPR past_parser_limit "${parser_limit} + 1")

set(head "{\"schema\":\"umbra-report/1\",\"mode\":\"shadow\",\"threads\":[{\"os_tid\":1,\"roots\":[")
set(tail "]}]}")
function(write_chain name levels node)
  string(REPEAT "${node}" ${levels} open)
  string(REPEAT "]}" ${levels} close)
  file(WRITE ${OUT}/${name} "${head}${open}${close}${tail}")
endfunction()

file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
write_chain(chain_50000.json 50000 "{\"name\":\"f\",\"children\":[")
write_chain(chain_at_limit.json ${max_depth} "{\"name\":\"f\",\"children\":[")
write_chain(chain_past_limit.json ${past_max_depth} "{\"name\":\"f\",\"children\":[")
# Every level over the text report's cut-off, so that every line is written.
write_chain(chain_timed_2000.json 2000 "{\"name\":\"f\",\"calls\":1,\"total_ns\":5,\"self_ns\":0,\"children\":[")

# The same chains as umbra-report/4 writes them: one flat array of nodes, each an array, however deep the calls.
set(head4 "{\"schema\":\"umbra-report/4\",\"mode\":\"shadow\",\"node_fields\":[\"frame\",\"children\",\"calls\",\"samples\",\"self_samples\",\"total_ns\",\"self_ns\",\"tail_entries\",\"cpu_samples\",\"self_cpu_samples\"],\"frames\":[[\"f\",\"m\",\"managed\"]],\"threads\":[{\"os_tid\":1,\"nodes\":[")
function(write_chain4 name levels)
  math(EXPR parents "${levels} - 1")
  string(REPEAT "[0,1,1]," ${parents} open)
  file(WRITE ${OUT}/${name} "${head4}${open}[0,0,1]]}]}")
endfunction()
write_chain4(chain4_at_limit.json ${max_depth})
write_chain4(chain4_past_limit.json ${past_max_depth})

string(REPEAT "[" ${past_parser_limit} brackets)
file(WRITE ${OUT}/brackets_past_parser_limit.json "${head}${brackets}")

string(REPEAT "{\"a\":" 100000 open)
string(REPEAT "}" 100000 close)
file(WRITE ${OUT}/stats_deep.json "{\"schema\":\"umbra-report/1\",\"mode\":\"shadow\",\"threads\":[],\"stats\":${open}1${close}}")
string(REPEAT "[" 200000 open)
string(REPEAT "]" 200000 close)
file(WRITE ${OUT}/unknown_field_deep.json "${head}{\"name\":\"f\",\"extra\":${open}${close},\"children\":[]}${tail}")


# umbra-report/4 nodes each claiming every node after it as its children (each is the only child of the one before):
# the reader reserved room for every claim, memory the square of the count, before the claims counted what the
# nodes above still wait for.
set(claims "")
foreach(left RANGE 19999 0 -1)
  string(APPEND claims ",[0,${left}]")
endforeach()
string(SUBSTRING "${claims}" 1 -1 claims)
file(WRITE ${OUT}/claims_every_following_node_20000.json "${head4}${claims}]}]}")
