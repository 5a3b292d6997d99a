/*
 * sim_exec.h - running a simulator tool on its traced twin. The waveform-tracing model is a
 * separate Verilation (slower, so never the default): coresim --vcd/--fst re-executes as
 * coresim-trace, nicrun --fst as nicrun-trace, nicsim --fst as nicsim-trace, each built into the
 * same directory as the tool, with the same command line.
 *
 * Contract: sim_exec_twin() does not return when the twin starts (the process image is replaced;
 * the twin sees exactly `argv`). It returns -1 when it cannot: this executable's path unknown, the
 * path too long, or exec failed (no twin built, not executable); it has then printed one line to
 * stderr: "<tool>: <path or reason>: <why> (needed for <option>)". The caller exits with its
 * setup-error status.
 */
#ifndef SIM_EXEC_H
#define SIM_EXEC_H

int sim_exec_twin(const char *tool, const char *twin, const char *option, char *const argv[]);

#endif /* SIM_EXEC_H */
