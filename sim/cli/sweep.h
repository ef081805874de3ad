/* sweep.h - `dmlsim sweep`: one simulation per point of a parameter grid, as separate processes.
 *
 * Each --set ELEM.ATTR=V1,V2,... is one axis; the grid is their Cartesian product (the first
 * axis varies slowest). Every point runs `dmlsim run FILE --set ... --summary TMP` in a child
 * process (SimGrid allows one engine per process), at most -j at a time; the merged table has one
 * row per point, in grid order whatever order the children finish in, so the output is
 * deterministic. A progress bar goes to stderr when it is a terminal. If any point fails, its
 * message is printed and nothing is written.
 */
#ifndef DMLSIM_SWEEP_H
#define DMLSIM_SWEEP_H

/* The sweep command; `self` is argv[0], args are the arguments after "sweep". Returns the exit
 * status. */
int sweep_main(const char *self, int argc, char **argv);

#endif
