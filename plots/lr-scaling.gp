# lr-scaling.gp - final test accuracy after 500 steps and time to 82% against the worker count,
# with lr-scaling none and linear (scenarios/numerics-lr.xml, tools/tta.sh). Drawn from two
# one-axis `dmlsim sweep` tables over training.gpus (columns: gpus, gpus, batch, step_ms,
# samples/s, eff, exposed_ms, messages, idle, dropped, goodput, failed, accuracy, tta_ms). It
# computes nothing.
#   gnuplot -e "none='out/lr-none.txt'; linear='out/lr-linear.txt'; out='out/lr-scaling.png'" plots/lr-scaling.gp
if (!exists("none")) none = 'out/lr-none.txt'
if (!exists("linear")) linear = 'out/lr-linear.txt'
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
plot none   using 2:13 with linespoints lw 2 pt 7 title 'accuracy, lr 0.05 (no scaling)', \
     linear using 2:13 with linespoints lw 2 pt 5 title 'accuracy, lr 0.05 x workers (linear)', \
     none   using 2:14 axes x1y2 with linespoints lw 1 dt 2 pt 6 title 'time to 82%, no scaling', \
     linear using 2:14 axes x1y2 with linespoints lw 1 dt 2 pt 4 title 'time to 82%, linear'
