/* interrupt.h - SIGINT and SIGTERM end dmlsim cleanly: the outputs' temporary files, a
 * generated platform's folder and a sweep's folder removed, a sweep's children stopped.
 *
 * The handler calls only async-signal-safe functions (outfile_discard, platform_interrupt,
 * sweep_interrupt) and exits with 128 + the signal, as a shell reports it. SimGrid installs its
 * own SIGINT handler in simgrid_init (one that exits 1 and leaves files), so `dmlsim run`
 * installs this one again after it.
 */
#ifndef DMLSIM_INTERRUPT_H
#define DMLSIM_INTERRUPT_H

/* Installs the handler for SIGINT and SIGTERM; again after simgrid_init, whose own SIGINT
 * handler would exit(1) and leave files. A signal ignored when dmlsim started (a background job
 * of a script, nohup) stays ignored. */
void interrupt_catch(void);

#endif
