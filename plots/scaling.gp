# scaling.gp - throughput and scaling efficiency against GPU count, drawn from the table of a
# one-axis `dmlsim sweep` (columns: axis value, gpus, batch, step_ms, samples/s, eff, ...).
# It computes nothing; every number comes from the table.
#   gnuplot -e "in='out/scaling.txt'; out='out/scaling.png'; name='ResNet-50, ring'" plots/scaling.gp
if (!exists("in")) in = 'out/scaling.txt'
if (!exists("out")) out = 'out/scaling.png'
if (!exists("name")) name = 'dmlsim'
set terminal pngcairo size 960,600 noenhanced font ',11'
set output out
set title name . ': data-parallel scaling (simulated)'
set logscale xy 2
set xlabel 'GPUs'
set ylabel 'throughput (samples/s)'
set y2label 'scaling efficiency vs 1 GPU (%)'
set ytics nomirror
set y2tics
set y2range [0:105]
set format y '%.0f'
set grid
set key bottom right
plot in using 2:5 with linespoints lw 2 pt 7 title 'throughput', \
     in using 2:($6 * 100) axes x1y2 with linespoints lw 2 pt 5 dt 2 title 'efficiency'
