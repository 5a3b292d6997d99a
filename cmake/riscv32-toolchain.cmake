# CMake toolchain file for the NIC's RISC-V core: bare-metal RV32IM with Zba and Zbb (bit
# manipulation; docs/core.md "ISA"), ILP32, soft float, no C extension.
#
# Debian ships one multilib GCC for riscv64-unknown-elf. C is compiled with -march=rv32im -mabi=ilp32
# (which selects the rv32im/ilp32 multilib of libgcc) and the assembler is told about Zicsr and
# Zifencei separately: gcc 12 with -march=rv32im_zicsr can silently pick the 64-bit default
# multilib, and plain rv32im rejects csrr / fence.i (see docs/CONTRIBUTING.md, "Toolchain").
# -mno-riscv-attribute stops gcc from writing `.attribute arch, "rv32i2p1_m2p0"` into its assembly,
# which would override the assembler's -march; the assembler then records the full
# rv32i_m_zicsr_zifencei_zba_zbb architecture in .riscv.attributes itself. Zba and Zbb change no
# ABI: libgcc and newlib stay those of the rv32im multilib (cmake/Firmware.cmake). The link line
# names the same -march: the NCP is compiled with link-time optimisation, whose code generation
# runs at the link and takes its -march from there.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)

set(RISCV_PREFIX riscv64-unknown-elf- CACHE STRING "Prefix of the RISC-V cross tools")
find_program(RISCV_GCC ${RISCV_PREFIX}gcc REQUIRED)
get_filename_component(_rv_bin "${RISCV_GCC}" DIRECTORY)

set(CMAKE_C_COMPILER "${RISCV_GCC}")
set(CMAKE_ASM_COMPILER "${RISCV_GCC}")
set(CMAKE_OBJCOPY "${_rv_bin}/${RISCV_PREFIX}objcopy" CACHE FILEPATH "")
set(CMAKE_OBJDUMP "${_rv_bin}/${RISCV_PREFIX}objdump" CACHE FILEPATH "")
set(CMAKE_SIZE "${_rv_bin}/${RISCV_PREFIX}size" CACHE FILEPATH "")
set(CMAKE_READELF "${_rv_bin}/${RISCV_PREFIX}readelf" CACHE FILEPATH "")

set(RISCV_ARCH_FLAGS "-march=rv32im_zba_zbb -mabi=ilp32 -mno-riscv-attribute -Wa,-march=rv32im_zicsr_zifencei_zba_zbb")
set(CMAKE_C_FLAGS_INIT "${RISCV_ARCH_FLAGS} -ffreestanding -ffunction-sections -fdata-sections -fno-common")
set(CMAKE_ASM_FLAGS_INIT "${RISCV_ARCH_FLAGS}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-march=rv32im_zba_zbb -mabi=ilp32 -nostartfiles -nostdlib -Wl,--gc-sections")

# Nothing can run on the host, so test the compiler by building a static library.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
