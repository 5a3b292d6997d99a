# rv_core RTL source list, include()-able from any CMakeLists.txt.
# Sets RV_CORE_SOURCES (absolute paths), RV_CORE_TOP and RV_CORE_DIR.
set(RV_CORE_DIR ${CMAKE_CURRENT_LIST_DIR})
set(RV_CORE_TOP rv_core)
set(RV_CORE_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/rv_alu.v
  ${CMAKE_CURRENT_LIST_DIR}/rv_btb.v
  ${CMAKE_CURRENT_LIST_DIR}/rv_csr.v
  ${CMAKE_CURRENT_LIST_DIR}/rv_decode.v
  ${CMAKE_CURRENT_LIST_DIR}/rv_div.v
  ${CMAKE_CURRENT_LIST_DIR}/rv_fetch.v
  ${CMAKE_CURRENT_LIST_DIR}/rv_mul.v
  ${CMAKE_CURRENT_LIST_DIR}/rv_regfile.v
  ${CMAKE_CURRENT_LIST_DIR}/rv_core.v
)
