# staleness.gp - asynchronous PS against the staleness bound tau, drawn from a one-axis
# `dmlsim sweep` table over ps.staleness (columns: tau, gpus, batch, step_ms, samples/s, eff,
# exposed_ms, messages, idle, dropped, goodput). It computes nothing.
#   gnuplot -e "in='out/staleness.txt'; out='out/staleness.png'" plots/staleness.gp
if (!exists("in")) in = 'out/staleness.txt'
if (!exists("out")) out = 'out/staleness.png'
if (!exists("name")) name = 'ResNet-50, async PS'
set terminal pngcairo size 960,600 noenhanced font ',11'
set output out
set title name . ': throughput and idle time against the staleness bound (simulated)'
set xlabel 'staleness bound tau (versions)'
set ylabel 'samples/s'
set y2label 'idle fraction of worker time'
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:1]
set grid
set key top left
plot in using 1:5 with linespoints lw 2 pt 7 title 'throughput (computed)', \
     in using 1:11 with linespoints lw 2 pt 5 title 'goodput (applied)', \
     in using 1:9 axes x1y2 with linespoints lw 2 pt 9 dt 2 title 'idle fraction'
