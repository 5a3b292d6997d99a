# NIC RTL source list, include()-able from any CMakeLists.txt (like sim/rtl/core/sources.cmake).
# Sets NIC_RTL_SOURCES (absolute paths, the core's included), NIC_RTL_TOP and NIC_RTL_DIR.
# The sources `include nic_regs.vh and nic_memmap.vh: pass -I${NIC_GEN_DIR} to the tools.
include(${CMAKE_CURRENT_LIST_DIR}/../core/sources.cmake)
set(NIC_RTL_DIR ${CMAKE_CURRENT_LIST_DIR})
set(NIC_RTL_TOP nic_top)
set(NIC_RTL_SOURCES ${RV_CORE_SOURCES})
foreach(m nic_fifo nic_crc32_step nic_sram nic_rd_stream nic_wr_stream nic_imem nic_regbus nic_dbus
          nic_host_port nic_hostif nic_intc nic_timer nic_perf nic_console nic_testmb nic_doorbell
          nic_dma nic_mac_tx nic_mac_rx nic_mac nic_top)
  list(APPEND NIC_RTL_SOURCES ${CMAKE_CURRENT_LIST_DIR}/${m}.v)
endforeach()
