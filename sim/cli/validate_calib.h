/* validate_calib.h - `dmlsim calib`: what was read of a calibration profile, or a GPU's spec
 * profile written out.
 *
 * The summary prints every inference of the reader (calib.h) as a "# read" line, the measured
 * GEMMs against the catalog GPU's peak, the copies and kernels, and an alpha-beta fit per
 * collective and rank count, so that a user sees what a profile will change before using it.
 * --spec writes the profile the catalog's data sheet implies (calib_write_spec), atomically when
 * -o names a file (outfile.h). Declared for main.c through validate.h.
 */
#ifndef DMLSIM_VALIDATE_CALIB_H
#define DMLSIM_VALIDATE_CALIB_H

struct cli_args;

/* dmlsim calib FILE | --spec GPU [-o FILE]: returns the exit status, 0 or, with the message
 * printed on stderr, that of the bad argument, profile or output. */
int validate_calib_main(const struct cli_args *a);

#endif
