# fw.ncp.trace_states: the debug build (NCP_TRACE_STATES) prints every state transition of the
# NCP's state machines on the console; the normal build prints none. A small stream of RDMA reads
# (node 0 reads from node 1) exercises operations, read responses, endpoints and commands.
foreach(v NICSIM TRACE_IMG PLAIN_IMG)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "check_trace_states: ${v} not set")
  endif()
endforeach()
set(args --nodes 2 --workload stream --op read --iters 4 --size-max 16384 --console)
execute_process(COMMAND ${NICSIM} ${args} --fw ${TRACE_IMG} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nicsim with the trace build failed (${rc}):\n${out}\n${err}")
endif()
# Each transition the run must go through, in the order a read lives (per node).
foreach(re
    "\\[node 0\\] ncp: ep 1 CLOSED -> IDLE"
    "\\[node 0\\] ncp: ep 1 IDLE -> ACTIVE"
    "\\[node 0\\] ncp: op [0-9]+ FREE -> ACTIVE"
    "\\[node 1\\] ncp: resp [0-9]+ FREE -> SENDING"
    "\\[node 1\\] ncp: resp [0-9]+ SENDING -> ACKWAIT"
    "\\[node 1\\] ncp: resp [0-9]+ ACKWAIT -> FREE"
    "\\[node 0\\] ncp: op [0-9]+ ACTIVE -> FREE"
    "\\[node 0\\] ncp: ep 1 ACTIVE -> IDLE"
    "\\[node 1\\] ncp: cmd [0-9]+ IDLE -> WAIT_DMA"
    "\\[node 1\\] ncp: cmd [0-9]+ WAIT_DMA -> ANSWER"
    "\\[node 1\\] ncp: cmd [0-9]+ ANSWER -> IDLE")
  if(NOT err MATCHES "${re}")
    message(FATAL_ERROR "trace build: no line matching '${re}' on the console:\n${err}")
  endif()
endforeach()
string(REGEX MATCHALL "ncp: resp [0-9]+ FREE -> SENDING" starts "${err}")
string(REGEX MATCHALL "ncp: resp [0-9]+ ACKWAIT -> FREE" ends "${err}")
list(LENGTH starts ns)
list(LENGTH ends ne)
if(NOT ns EQUAL 4 OR NOT ne EQUAL 4)
  message(FATAL_ERROR "trace build: 4 reads should start and free 4 responses, saw ${ns} and ${ne}")
endif()
if(err MATCHES "ncp: [a-z]+ [0-9]+ ([A-Z_]+) -> \\1\n")
  message(FATAL_ERROR "trace build: a transition to the same state was traced: ${CMAKE_MATCH_0}")
endif()
execute_process(COMMAND ${NICSIM} ${args} --fw ${PLAIN_IMG} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nicsim with the normal build failed (${rc}):\n${out}\n${err}")
endif()
if(err MATCHES "ncp: (op|resp|ep|cmd) [0-9]+ ")
  message(FATAL_ERROR "the normal build printed a state transition: ${CMAKE_MATCH_0}")
endif()
message(STATUS "trace_states: transitions traced in the debug build, none in the normal build")
