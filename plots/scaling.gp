# scaling.gp - where data-parallel scaling goes, against the GPU count, from the CSV of a
# one-axis `dmlsim sweep --csv` over training.gpus, read by column name (gpus, step_ms, eff,
# exposed_ms: sim/cli/sweep_export.h). Left: the scaling efficiency (the table's `eff`:
# the 1-GPU compute-only step over the step, = samples/s / (gpus x 1-GPU compute-only samples/s);
# see `dmlsim metrics`), on an axis zoomed to the data because near-perfect scaling would be a flat
# line at 100%, each point labelled. Right: the communication not hidden behind compute, per step
# (`exposed_ms`), each bar labelled with its share of the step (exposed_ms / step_ms). With ring
# or NCCL all-reduce and overlap, 1 - eff is about that share: the efficiency lost is the exposed
# communication. Every number is a column of the table or a ratio of two columns.
#   gnuplot -e "in='out/scaling.csv'; out='out/scaling.png'; name='ResNet-50, ring'; \
#               scen='scenarios/scaling.xml'; seed='1'" plots/scaling.gp
# `out` ending in .svg or .pdf picks that format (plots/terminal.gp).
if (!exists("in")) in = 'out/scaling.csv'
if (!exists("out")) out = 'out/scaling.png'
if (!exists("name")) name = 'dmlsim'
if (!exists("scen")) scen = in
W = 1200; H = 600; fs = 11
load ARG0[1:strlen(ARG0) - strlen('scaling.gp')] . 'terminal.gp'
sub = exists("seed") ? scen . ', seed ' . seed : scen

set datafile separator comma
stats in using "eff" nooutput
lo = floor(STATS_min * 100 - 0.5)
stats in using "exposed_ms" nooutput
top = STATS_max
stats in using "gpus" nooutput
pmax = STATS_max

set multiplot layout 1,2 title name . ': data-parallel scaling (simulated)' . "\n" . sub
set logscale x 2
set xrange [0.7:pmax * 1.4]
set xtics 1, 2, pmax
set xlabel 'GPUs'
set grid
set key off

set title 'scaling efficiency (the 1-GPU compute-only step over the step)'
set ylabel sprintf('efficiency (%%; axis from %d%%)', lo)
set yrange [lo:100.25]
set format y '%g'

plot in using "gpus":(column("eff") * 100) with linespoints lw 3 pt 7 ps 1.2 lc rgb '#1f77b4', \
     in using "gpus":(column("eff") * 100):(sprintf('%.1f%%', column("eff") * 100)) with labels left offset 0.7,0.7 \
        textcolor rgb '#1f77b4' notitle

set title 'exposed communication per step (not hidden behind compute)'
set ylabel 'exposed per step (ms; label: ms and share of the step)'
set yrange [0:top * 1.3 + 1e-9]
set style fill solid 0.7 border -1
# Bars a fixed fraction of a doubling wide on the log axis: from x / 2^0.3 to x * 2^0.3.
plot in using "gpus":"exposed_ms":(column("gpus") / 2**0.3):(column("gpus") * 2**0.3):(0):"exposed_ms" \
        with boxxyerror lc rgb '#d62728', \
     in using "gpus":"exposed_ms":(sprintf('%.3f ms\n%.1f%%', column("exposed_ms"), \
        100 * column("exposed_ms") / column("step_ms"))) with labels offset 0,1.8 \
        notitle
unset multiplot
