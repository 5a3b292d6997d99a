# Host-native unit tests of the NCP's portable modules (firmware/lib: lookup cache, transport,
# packet validation, miss table, send queue entry validation): the same sources as the firmware, compiled for the host.
set(NCP_LIB_DIR ${PROJECT_SOURCE_DIR}/firmware/lib)
add_library(ncp_lib_host STATIC ${NCP_LIB_DIR}/lkc.c ${NCP_LIB_DIR}/xport.c ${NCP_LIB_DIR}/pkt.c
            ${NCP_LIB_DIR}/misstab.c ${NCP_LIB_DIR}/sqe.c ${NCP_LIB_DIR}/cc.c)
target_include_directories(ncp_lib_host PUBLIC ${NCP_LIB_DIR})
target_link_libraries(ncp_lib_host PUBLIC nic_hal_headers) # nic_abi.h takes the doorbell layout from the map
target_compile_options(ncp_lib_host PRIVATE ${NIC_C_WARN_FLAGS} ${NIC_SANITIZE_FW_FLAGS})

foreach(m lkc xport pkt misstab sqe cc)
  nic_unit_test(ncp_${m} ncp_test_${m}.c)
  target_link_libraries(test_ncp_${m} PRIVATE ncp_lib_host)
endforeach()
