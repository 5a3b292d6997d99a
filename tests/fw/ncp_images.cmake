# NCP firmware-level test images (firmware project): the real NCP library with a test main that
# reaches the NCP through firmware/src/ncp_test.h only (implemented by testapi.c, never in ncp.img).
# The test images are the production NCP plus test hooks: message queues (ncp_core_fp has NCP_MQ on
# since IMEM is 128 KiB) and host endpoints (epc.c, linked by tests/fw/ncp_prod.c), as in ncp.img.
# The fast-path benchmark alone (fw_ncp_bench_fast) links ncp_core_bench, without either, so its
# figures stay comparable with the earlier ones (docs/firmware.md "Fast path").
add_library(ncp_testapi STATIC ${NIC_SOURCE_DIR}/firmware/src/testapi.c)
add_library(ncp_testapi_bench STATIC ${NIC_SOURCE_DIR}/firmware/src/testapi.c)
set(FW_PROD ${NIC_SOURCE_DIR}/tests/fw/ncp_prod.c)
# The test images' own code (the test API, the host's part, the test mains) is compiled for size:
# none of it is in the fast path the benchmarks sample.
set_source_files_properties(${NIC_SOURCE_DIR}/firmware/src/testapi.c ${NIC_SOURCE_DIR}/tests/fw/imghost.c ${FW_PROD}
  ${NIC_SOURCE_DIR}/tests/fw/ncp_rdma.c ${NIC_SOURCE_DIR}/tests/fw/ncp_bench_fast.c
  ${NIC_SOURCE_DIR}/tests/fw/ncp_dma_errors.c ${NIC_SOURCE_DIR}/tests/fw/ncp_read_timeout.c
  ${NIC_SOURCE_DIR}/tests/fw/ncp_stale.c ${NIC_SOURCE_DIR}/tests/fw/ncp_void.c
  ${NIC_SOURCE_DIR}/tests/fw/ncp_crash.c ${NIC_SOURCE_DIR}/tests/fw/tinyprintf.c
  PROPERTIES COMPILE_OPTIONS -Os)
# ... and their printf is tests/fw/tinyprintf.c (to the console, without newlib's stdio): a source
# of each image, so that it comes before newlib on the link line.
set(FW_TINYPRINTF ${NIC_SOURCE_DIR}/tests/fw/tinyprintf.c)
target_link_libraries(ncp_testapi PUBLIC ncp_core_fp) # with the fast-path samples (ncp_test_fp)
target_link_libraries(ncp_testapi_bench PUBLIC ncp_core_bench)
# The host's part for the images that play it (tests/fw/imghost.h): one copy for all of them.
add_library(fw_imghost STATIC ${NIC_SOURCE_DIR}/tests/fw/imghost.c)
target_link_libraries(fw_imghost PUBLIC ncp_testapi)
target_include_directories(fw_imghost PUBLIC ${NIC_SOURCE_DIR}/tests/fw)
add_library(fw_imghost_bench STATIC ${NIC_SOURCE_DIR}/tests/fw/imghost.c)
target_link_libraries(fw_imghost_bench PUBLIC ncp_testapi_bench)
target_include_directories(fw_imghost_bench PUBLIC ${NIC_SOURCE_DIR}/tests/fw)
ncp_image(fw_ncp_rdma ${NIC_SOURCE_DIR}/tests/fw/ncp_rdma.c ${FW_TINYPRINTF} ${FW_PROD})
target_link_libraries(fw_ncp_rdma PRIVATE fw_imghost)
target_include_directories(fw_ncp_rdma PRIVATE ${NIC_SOURCE_DIR}/tests/fw)


# Benchmark: VMH lookup hit cost at A = 2/4/8 (docs/firmware.md).
ncp_image(fw_ncp_bench_lkc ${NIC_SOURCE_DIR}/tests/fw/ncp_bench_lkc.c)
target_link_libraries(fw_ncp_bench_lkc PRIVATE ncp_core_fp)
target_include_directories(fw_ncp_bench_lkc PRIVATE ${NIC_SOURCE_DIR}/tests/fw)

# Benchmark: fast-path cycles per packet, send and receive, every lookup hitting (docs/firmware.md).
ncp_image(fw_ncp_bench_fast ${NIC_SOURCE_DIR}/tests/fw/ncp_bench_fast.c ${FW_TINYPRINTF})
target_link_libraries(fw_ncp_bench_fast PRIVATE fw_imghost_bench)
target_include_directories(fw_ncp_bench_fast PRIVATE ${NIC_SOURCE_DIR}/tests/fw)

# Error paths with every cache line installed first (tests/fw/imghost.h): host DMA errors while
# loading packet data (docs/firmware.md "Host DMA errors"), and the initiator's read timeout.
foreach(t dma_errors read_timeout stale void)
  ncp_image(fw_ncp_${t} ${NIC_SOURCE_DIR}/tests/fw/ncp_${t}.c ${FW_TINYPRINTF} ${FW_PROD})
  target_link_libraries(fw_ncp_${t} PRIVATE fw_imghost)
  target_include_directories(fw_ncp_${t} PRIVATE ${NIC_SOURCE_DIR}/tests/fw)
endforeach()

# A real NCP that crashes mid-run on node 1 (issue 17: nicsim explains a halted NCP).
ncp_image(fw_ncp_crash ${NIC_SOURCE_DIR}/tests/fw/ncp_crash.c ${FW_TINYPRINTF} ${FW_PROD})
target_link_libraries(fw_ncp_crash PRIVATE ncp_testapi)
