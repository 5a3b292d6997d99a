# Firmware build options: CMake cache options that become compile-time constants (firmware/include/
# ncp_config.h is generated from them). Included by the top-level project, which forwards them to
# the cross-compiled firmware project, and by that project itself, so both see one list.
#
# NCP_FW_OPTIONS lists the names to forward.

set(NCP_LOOKUP "dynamic" CACHE STRING "Lookup structures: dynamic (software LRU caches) or static (full tables)")
set_property(CACHE NCP_LOOKUP PROPERTY STRINGS dynamic static)
set(NCP_CACHE_ENTRIES 16384 CACHE STRING "Lookup cache size C, in entries (power of two)")
set(NCP_CACHE_LINE 64 CACHE STRING "Lookup cache line size L, in entries (power of two; the fill unit)")
set(NCP_CACHE_WAYS 4 CACHE STRING "Lookup cache associativity A (power of two)")
set(NCP_MTU 4096 CACHE STRING "Largest packet payload, in bytes (multiple of 64)")
set(NCP_SENDQ_ENTRIES 32 CACHE STRING "Entries per process send queue (power of two, at most NIC_SENDQ_STRIDE / 64 = 32: the firmware build refuses more)")
set(NCP_MAX_PROCS 16 CACHE STRING "Processes (endpoints) the NIC serves at once")
set(NCP_MAX_PEERS 64 CACHE STRING "Nodes the transport keeps connections to (1..256)")

option(NCP_NACK "Receive-path translation misses NACK the sender (OFF: seed-faithful, the sender times out)" ON)
option(NCP_PROFILE "Development build: rdcycle/rdinstret checkpoints on the fast paths (firmware/src/ncp.h NCP_PROF), printed by fw_ncp_bench_fast" OFF)
option(NCP_TRACE_STATES "Debug build: every state transition of operations, responses, endpoints and commands printed on the console" OFF)
option(NCP_FASTPATH "The NCP's straight-line fast paths run before the general ones (OFF: general paths only, for the differential tests)" ON)

set(NCP_FW_OPTIONS NCP_LOOKUP NCP_CACHE_ENTRIES NCP_CACHE_LINE NCP_CACHE_WAYS NCP_MTU
    NCP_SENDQ_ENTRIES NCP_MAX_PROCS NCP_MAX_PEERS NCP_NACK NCP_FASTPATH NCP_TRACE_STATES NCP_PROFILE)

function(ncp_check_options)
  if(NOT NCP_LOOKUP MATCHES "^(dynamic|static)$")
    message(FATAL_ERROR "NCP_LOOKUP must be dynamic or static, not '${NCP_LOOKUP}'")
  endif()
  foreach(opt NCP_CACHE_ENTRIES NCP_CACHE_LINE NCP_CACHE_WAYS NCP_SENDQ_ENTRIES)
    set(v "${${opt}}")
    if(NOT v MATCHES "^[0-9]+$" OR v EQUAL 0)
      message(FATAL_ERROR "${opt} must be a positive integer, not '${v}'")
    endif()
    math(EXPR pow2 "${v} & (${v} - 1)")
    if(NOT pow2 EQUAL 0)
      message(FATAL_ERROR "${opt} must be a power of two, not ${v}")
    endif()
  endforeach()
  # NIC_SENDQ_STRIDE (linker/memmap.toml, 2 KiB) / 64-byte entries; firmware/src/ncp.h asserts the
  # same against the generated value
  if(NCP_SENDQ_ENTRIES GREATER 32)
    message(FATAL_ERROR "NCP_SENDQ_ENTRIES must be at most 32 (a send queue is NIC_SENDQ_STRIDE = 2 KiB of 64-byte entries), not ${NCP_SENDQ_ENTRIES}")
  endif()
  math(EXPR lines "${NCP_CACHE_ENTRIES} / ${NCP_CACHE_LINE}")
  math(EXPR sets "${NCP_CACHE_ENTRIES} / (${NCP_CACHE_LINE} * ${NCP_CACHE_WAYS})")
  if(sets LESS 1)
    message(FATAL_ERROR "cache geometry C=${NCP_CACHE_ENTRIES} L=${NCP_CACHE_LINE} A=${NCP_CACHE_WAYS} has no sets (need C >= L*A)")
  endif()
  foreach(opt NCP_MTU NCP_MAX_PROCS NCP_MAX_PEERS)
    if(NOT "${${opt}}" MATCHES "^[0-9]+$" OR "${${opt}}" EQUAL 0)
      message(FATAL_ERROR "${opt} must be a positive integer, not '${${opt}}'")
    endif()
  endforeach()
  if(NCP_MAX_PEERS GREATER 256)
    message(FATAL_ERROR "NCP_MAX_PEERS must be at most 256 (the simulator's and the switch's node limit), not ${NCP_MAX_PEERS}")
  endif()
  math(EXPR mtu_rem "${NCP_MTU} % 64")
  if(NOT mtu_rem EQUAL 0 OR NCP_MTU GREATER 16384 OR NCP_MTU LESS 256)
    message(FATAL_ERROR "NCP_MTU must be a multiple of 64 between 256 and 16384, not ${NCP_MTU}")
  endif()
endfunction()

# ncp_config_bools(TEMPLATE): for every boolean option X the template (firmware/include/
# ncp_config.h.in) names as @X_01@, sets X_01 to 1 or 0 from X, in the caller's scope (a macro).
macro(ncp_config_bools template)
  file(READ ${template} _ncp_tmpl)
  string(REGEX MATCHALL "@[A-Z0-9_]+_01@" _ncp_bools "${_ncp_tmpl}")
  list(TRANSFORM _ncp_bools REPLACE "^@(.*)_01@$" "\\1")
  foreach(_b ${_ncp_bools})
    if(${_b})
      set(${_b}_01 1)
    else()
      set(${_b}_01 0)
    endif()
  endforeach()
endmacro()
