# Firmware test images: tiny programs linked with the real runtime (startup, traps, syscalls,
# newlib), reporting pass/fail through the test mailbox. Included by the firmware project;
# tests/fw/CMakeLists.txt (host project) registers the CTest tests that run them.
ncp_image(fw_selftest ${NIC_SOURCE_DIR}/tests/fw/selftest.c)
ncp_image(fw_nic_dma ${NIC_SOURCE_DIR}/tests/fw/nic_dma.c)
ncp_image(fw_nic_unpinned ${NIC_SOURCE_DIR}/tests/fw/nic_unpinned.c)
ncp_image(fw_nic_link ${NIC_SOURCE_DIR}/tests/fw/nic_link.c)
ncp_image(fw_bench_idle ${NIC_SOURCE_DIR}/tests/fw/bench_idle.c)
ncp_image(fw_trap_demo ${NIC_SOURCE_DIR}/tests/fw/trap_demo.c)
foreach(t fw_nic_dma fw_nic_unpinned fw_nic_link fw_trap_demo)
  target_include_directories(${t} PRIVATE ${NIC_SOURCE_DIR}/tests/fw)
endforeach()
include(${NIC_SOURCE_DIR}/tests/fw/ncp_images.cmake)
