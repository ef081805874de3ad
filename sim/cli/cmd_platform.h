/* cmd_platform.h - `dmlsim platform`: the SimGrid platform a scenario's <cluster> generates,
 * written to a file.
 *
 * The file is what a run would simulate on (platform_write), refused as a run would refuse the
 * cluster (platform_check_cluster), and written as one output file (outfile.h: atomically, never
 * over the scenario it was made from). A scenario naming an existing platform file has nothing to
 * generate.
 */
#ifndef DMLSIM_CMD_PLATFORM_H
#define DMLSIM_CMD_PLATFORM_H

struct cli_args;

/* dmlsim platform FILE -o OUT.xml: returns the exit status, 0 or, with the message printed on
 * stderr, that of the bad input. */
int cmd_platform_main(const struct cli_args *a);

#endif
