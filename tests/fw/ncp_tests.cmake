# NCP firmware-level tests on the Verilated cluster (images from tests/fw/ncp_images.cmake).

# ncp_fw_test(NAME IMAGE [LABELS l...] ARGS nicrun-args...): fw.ncp.NAME, nicrun on two nodes with
# build/fw/IMAGE.img, and its twin fw.ncp.NAME_nofast with build/fw-nofast/IMAGE.img: the NCP
# built with NCP_FASTPATH=OFF, so every packet takes the general paths (label nofast as well).
function(ncp_fw_test name image)
  cmake_parse_arguments(T "" "" "LABELS;ARGS" ${ARGN})
  set(labels fw ${T_LABELS})
  foreach(tree fw fw-nofast)
    set(t fw.ncp.${name})
    set(l ${labels})
    if(tree STREQUAL "fw-nofast")
      set(t ${t}_nofast)
      list(APPEND l nofast)
    endif()
    add_test(NAME ${t} COMMAND ${NICRUN} --nodes 2 ${T_ARGS} ${CMAKE_BINARY_DIR}/${tree}/${image}.img)
    set_tests_properties(${t} PROPERTIES LABELS "${l}")
  endforeach()
endfunction()

ncp_fw_test(rdma fw_ncp_rdma ARGS --max-cycles 20000000)
ncp_fw_test(rdma_faults fw_ncp_rdma
            ARGS --seed 2 --drop 0.1 --corrupt 0.05 --duplicate 0.05 --delay 0.1 --max-cycles 60000000)
add_test(NAME fw.ncp.rdma_seed_faithful
         COMMAND ${NICRUN} --nodes 2 --max-cycles 60000000 ${CMAKE_BINARY_DIR}/fw-nonack/fw_ncp_rdma.img)
set_tests_properties(fw.ncp.rdma_seed_faithful PROPERTIES LABELS fw)
# Benchmark (prints cycles per VMH hit at A = 2/4/8; fails only if a filled line misses).
add_test(NAME fw.ncp.bench_lkc COMMAND ${NICRUN} --nodes 1 --max-cycles 20000000 ${NCP_FW_DIR}/fw_ncp_bench_lkc.img)
set_tests_properties(fw.ncp.bench_lkc PROPERTIES LABELS "fw;bench")
# The static-lookup baseline (build/fw-static, same sources, NCP_LOOKUP=static): RDMA with full
# tables preloaded by STATIC_LOAD, and STATIC_LOAD answering NO_RESOURCES when a bucket is full.
add_test(NAME fw.ncp.rdma_static
         COMMAND ${NICRUN} --nodes 2 --seed 3 --drop 0.05 --max-cycles 60000000
                 ${CMAKE_BINARY_DIR}/fw-static/fw_ncp_rdma.img)
set_tests_properties(fw.ncp.rdma_static PROPERTIES LABELS fw)
# Benchmark (prints fast-path cycles per packet, send/receive, median/max; fails only if an
# operation fails or a lookup misses). Its nofast twin streams the same 1,000 packets through the
# general paths (and prints what they cost).
ncp_fw_test(bench_fast fw_ncp_bench_fast LABELS bench ARGS --max-cycles 60000000)
# Error paths (docs/firmware.md "Host DMA errors", "Read timeout"): a packet whose data DMA from
# host memory fails goes void and fails its operation HOST_ERROR (writes and read responses; no
# stale frame bytes reach either host); a read whose responder hangs fails UNREACHABLE after the
# read timeout, late responses are discarded; a responder's give-up (RESYNC) fails it at once.
ncp_fw_test(dma_errors fw_ncp_dma_errors ARGS --max-cycles 20000000)
ncp_fw_test(read_timeout fw_ncp_read_timeout ARGS --max-cycles 200000000)
# the same in the static-lookup build (no line is ever missing there either)
add_test(NAME fw.ncp.dma_errors_static
         COMMAND ${NICRUN} --nodes 2 --max-cycles 20000000 ${CMAKE_BINARY_DIR}/fw-static/fw_ncp_dma_errors.img)
set_tests_properties(fw.ncp.dma_errors_static PROPERTIES LABELS fw)
# The same images in the static-lookup and seed-faithful (no miss NACK) trees: the read timeout,
# and RDMA under faults where misses are recovered by timeouts only (the RESUME/hold path unused).
add_test(NAME fw.ncp.read_timeout_static
         COMMAND ${NICRUN} --nodes 2 --max-cycles 200000000 ${CMAKE_BINARY_DIR}/fw-static/fw_ncp_read_timeout.img)
add_test(NAME fw.ncp.read_timeout_nonack
         COMMAND ${NICRUN} --nodes 2 --max-cycles 200000000 ${CMAKE_BINARY_DIR}/fw-nonack/fw_ncp_read_timeout.img)
add_test(NAME fw.ncp.rdma_faults_nonack
         COMMAND ${NICRUN} --nodes 2 --seed 2 --drop 0.1 --corrupt 0.05 --duplicate 0.05 --delay 0.1
                 --max-cycles 100000000 ${CMAKE_BINARY_DIR}/fw-nonack/fw_ncp_rdma.img)
set_tests_properties(fw.ncp.read_timeout_static fw.ncp.read_timeout_nonack fw.ncp.rdma_faults_nonack PROPERTIES LABELS fw)
# Late responses of a flushed read are discarded and counted, never taken by a later read in the
# same operation slot (issue 18 item 1: wide operation id generations, responses matched).
ncp_fw_test(stale fw_ncp_stale ARGS --max-cycles 100000000)
# A write whose source is deregistered while its lost segments await resending fails BAD_HANDLE:
# its VOID resends never count as delivered (issue 18 item 2).
ncp_fw_test(void fw_ncp_void ARGS --max-cycles 100000000)
# The debug build's state trace (NCP_TRACE_STATES, build/fw-trace): a stream of reads and writes
# prints the transitions of operations, responses, endpoints and commands; the normal build prints
# none of them.
add_test(NAME fw.ncp.trace_states
         COMMAND ${CMAKE_COMMAND} -DNICSIM=$<TARGET_FILE:nicsim> -DTRACE_IMG=${CMAKE_BINARY_DIR}/fw-trace/ncp.img
                 -DPLAIN_IMG=${NCP_FW_DIR}/ncp.img -P ${CMAKE_CURRENT_SOURCE_DIR}/check_trace_states.cmake)
set_tests_properties(fw.ncp.trace_states PROPERTIES LABELS fw)
# The firmware build options are checked when the build is configured (no silent cap or fallback).
add_test(NAME fw.options_checked
         COMMAND ${CMAKE_COMMAND} -DSRC=${CMAKE_SOURCE_DIR} -P ${CMAKE_CURRENT_SOURCE_DIR}/check_fw_options.cmake)
set_tests_properties(fw.options_checked PROPERTIES LABELS fw)
