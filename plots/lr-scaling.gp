# lr-scaling.gp - final test accuracy after 500 steps and time to 82% against the worker count,
# with lr-scaling none and linear (scenarios/numerics-lr.xml, tools/tta.sh). Drawn from two
# `dmlsim sweep --csv` tables over training.gpus, read by column name (gpus, accuracy, tta_ms:
# sim/cli/sweep_export.h; a point that never reached the target has no tta_ms). It computes
# nothing.
#   gnuplot -e "none='out/lr-none.csv'; linear='out/lr-linear.csv'; out='out/lr-scaling.png'" plots/lr-scaling.gp
if (!exists("none")) none = 'out/lr-none.csv'
if (!exists("linear")) linear = 'out/lr-linear.csv'
if (!exists("out")) out = 'out/lr-scaling.png'
W = 1000; H = 600; fs = 11
load ARG0[1:strlen(ARG0) - strlen('lr-scaling.gp')] . 'terminal.gp'
sub = exists("scen") ? "\n" . scen . (exists("seed") ? ", seed " . seed : "") : ""
set title 'MLP on Fashion-MNIST, ring all-reduce, batch 32 per worker, 500 steps (real SGD)' . sub
set xlabel 'workers (global batch = 32 x workers)'
set logscale x 2
set ylabel 'final test accuracy'
set y2label 'time to 82% (simulated ms; missing: not reached)'
set ytics nomirror
set y2tics
set grid
set key bottom right
set datafile separator comma
plot none   using "gpus":"accuracy" with linespoints lw 2 pt 7 title 'accuracy, lr 0.05 (no scaling)', \
     linear using "gpus":"accuracy" with linespoints lw 2 pt 5 title 'accuracy, lr 0.05 x workers (linear)', \
     none   using "gpus":"tta_ms" axes x1y2 with linespoints lw 1 dt 2 pt 6 title 'time to 82%, no scaling', \
     linear using "gpus":"tta_ms" axes x1y2 with linespoints lw 1 dt 2 pt 4 title 'time to 82%, linear'
