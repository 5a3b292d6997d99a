# Finds every tool the build needs and says which Debian package provides a missing one.
# scripts/setup installs them all; a hand-configured build gets a clear message instead.

function(nic_require_program var name package)
  find_program(${var} ${name})
  if(NOT ${var})
    message(FATAL_ERROR "${name} not found: install the Debian package '${package}' (or run scripts/setup)")
  endif()
endfunction()

find_package(Python3 3.11 COMPONENTS Interpreter)
if(NOT Python3_FOUND)
  message(FATAL_ERROR "Python 3.11 or newer not found: install the Debian package 'python3'")
endif()

find_package(verilator HINTS /usr/share/verilator $ENV{VERILATOR_ROOT})
if(NOT verilator_FOUND)
  message(FATAL_ERROR "Verilator not found: install the Debian package 'verilator'")
endif()

nic_require_program(RISCV_CC riscv64-unknown-elf-gcc gcc-riscv64-unknown-elf)
nic_require_program(RISCV_OBJCOPY riscv64-unknown-elf-objcopy binutils-riscv64-unknown-elf)
nic_require_program(RISCV_OBJDUMP riscv64-unknown-elf-objdump binutils-riscv64-unknown-elf)
nic_require_program(QEMU_RISCV32 qemu-system-riscv32 qemu-system-misc)
nic_require_program(YOSYS yosys yosys)

find_path(CMOCKA_INCLUDE_DIR cmocka.h)
find_library(CMOCKA_LIBRARY cmocka)
if(NOT CMOCKA_INCLUDE_DIR OR NOT CMOCKA_LIBRARY)
  message(FATAL_ERROR "cmocka not found: install the Debian package 'libcmocka-dev'")
endif()
add_library(cmocka::cmocka UNKNOWN IMPORTED)
set_target_properties(cmocka::cmocka PROPERTIES IMPORTED_LOCATION ${CMOCKA_LIBRARY}
                      INTERFACE_INCLUDE_DIRECTORIES ${CMOCKA_INCLUDE_DIR})

# cJSON: the JSON reports of nicsim and nicrun (sim/node/report.c)
find_path(CJSON_INCLUDE_DIR cjson/cJSON.h)
find_library(CJSON_LIBRARY cjson)
if(NOT CJSON_INCLUDE_DIR OR NOT CJSON_LIBRARY)
  message(FATAL_ERROR "cJSON not found (cjson/cJSON.h, libcjson): install the Debian package 'libcjson-dev' (or run scripts/setup)")
endif()
add_library(cjson::cjson UNKNOWN IMPORTED)
set_target_properties(cjson::cjson PROPERTIES IMPORTED_LOCATION ${CJSON_LIBRARY}
                      INTERFACE_INCLUDE_DIRECTORIES ${CJSON_INCLUDE_DIR})

set(NEWLIB_SOURCE_TARBALL /usr/src/newlib/newlib-3.3.0.tar.xz CACHE FILEPATH
    "newlib sources (Debian package newlib-source)")
if(NOT EXISTS ${NEWLIB_SOURCE_TARBALL})
  message(FATAL_ERROR "${NEWLIB_SOURCE_TARBALL} not found: install the Debian package 'newlib-source'")
endif()
