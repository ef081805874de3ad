/* validate_shapes.h - `dmlsim shapes`: the model presets' GEMM shapes for the calibrator, each
 * with its modelled efficiency, or a profile's measured GEMMs against the shape model.
 *
 * The shapes are those the presets' layers run (conv as im2col, dense, a transformer block's
 * MLP), each printed once, so that dmlsim-calibrate measures what the simulations use. With
 * --calib the comparison reports the geometric-mean error separately on the rows GEMM_K_FILL was
 * fitted on (every third) and on the others, so the second figure is out of sample. Declared
 * for main.c through validate.h.
 */
#ifndef DMLSIM_VALIDATE_SHAPES_H
#define DMLSIM_VALIDATE_SHAPES_H

struct cli_args;

/* dmlsim shapes [--batch N] [--gpu NAME] | --calib FILE: prints the table; returns the exit
 * status, 0 or, with the message printed on stderr, that of the bad option or profile. */
int validate_shapes_main(const struct cli_args *a);

#endif
