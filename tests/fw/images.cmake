# Firmware test images: tiny programs linked with the real runtime (startup, traps, syscalls,
# newlib), reporting pass/fail through the test mailbox. Included by the firmware project;
# tests/fw/CMakeLists.txt (host project) registers the CTest tests that run them.
ncp_image(fw_selftest ${NIC_SOURCE_DIR}/tests/fw/selftest.c)
