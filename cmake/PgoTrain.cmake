# PgoTrain.cmake: the training run of the profile-guided NIC model (NIC_MODEL_PGO,
# sim/rtl/nic/CMakeLists.txt). cmake -DTOOL=nicsim-pgogen -DFW=ncp.img -DRAW=dir -DUSE=dir
# -DSTAMP=file -P PgoTrain.cmake
#
# Runs nicsim-pgogen (nicsim on the model compiled with -fprofile-generate) on a mix of what the
# model spends its time on: a busy 2-node stream (DMA and MACs), a 4-node fft with misses (the
# driver's fills, control frames) and a pingpong over message sizes. GCC writes the counts into
# RAW under names made of each object's path; nic_model's objects have the same paths with
# nic_model for nic_model_pgogen, so the files are copied into USE under those names. A failed
# training run fails the build: the tool is nicsim itself, so the failure is a real one.
foreach(v TOOL FW RAW USE STAMP)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "PgoTrain.cmake: ${v} not given")
  endif()
endforeach()
file(REMOVE_RECURSE ${RAW} ${USE})
file(MAKE_DIRECTORY ${RAW} ${USE})
set(runs
  "--workload stream --nodes 2 --iters 20"
  "--workload fft --nodes 4 --ws-pages 32 --phases 1"
  "--workload pingpong --nodes 2 --iters 3 --size-max 65536")
foreach(shown IN LISTS runs)
  separate_arguments(args UNIX_COMMAND "${shown}")
  execute_process(COMMAND ${TOOL} --fw ${FW} --quiet ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "PGO training run failed (exit ${rc}): ${TOOL} --fw ${FW} --quiet ${shown}\n${out}")
  endif()
endforeach()
file(GLOB counts RELATIVE ${RAW} ${RAW}/*.gcda)
list(LENGTH counts n)
if(n EQUAL 0)
  message(FATAL_ERROR "PGO training wrote no profile into ${RAW}")
endif()
foreach(f IN LISTS counts)
  string(REPLACE "nic_model_pgogen" "nic_model" g "${f}")
  file(COPY_FILE ${RAW}/${f} ${USE}/${g})
endforeach()
file(TOUCH ${STAMP})
message(STATUS "PGO: ${n} profiles of the NIC model trained")
