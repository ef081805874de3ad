# staleness.gp - asynchronous PS against the staleness bound tau, for both consistencies: drop
# (a push lagging more than tau versions is dropped and redone) and bounded delay (a worker waits
# so that it is at most tau iterations ahead; Li et al. OSDI'14). Drawn from two one-axis
# `dmlsim sweep --csv` tables over ps.staleness, read by column name (ps.staleness, samples/s,
# goodput, idle: sim/cli/sweep_export.h). It computes nothing.
#   gnuplot -e "in='out/staleness.csv'; bd='out/staleness-bounded.csv'; out='out/staleness.png'; \
#               scen='scenarios/staleness.xml'; seed='1'" plots/staleness.gp
# `scen` and `seed` go under the title; `out` ending in .svg or .pdf picks that format
# (plots/terminal.gp).
if (!exists("in")) in = 'out/staleness.csv'
if (!exists("bd")) bd = 'out/staleness-bounded.csv'
if (!exists("out")) out = 'out/staleness.png'
if (!exists("name")) name = 'ResNet-50, async PS'
if (!exists("scen")) scen = in
W = 960; H = 600; fs = 11
load ARG0[1:strlen(ARG0) - strlen('staleness.gp')] . 'terminal.gp'
sub = exists("seed") ? scen . ', seed ' . seed : scen
set title name . ': throughput and idle time against the staleness bound (simulated)' . "\n" . sub
set xlabel 'staleness bound tau (drop: versions; bounded delay: iterations)'
set ylabel 'samples/s'
set y2label 'idle fraction of worker time'
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:1]
set grid
set key top left
set datafile separator comma
tau = 'ps.staleness'
plot in using tau:"samples/s" with linespoints lw 2 pt 7 title 'drop: throughput (computed)', \
     in using tau:"goodput" with linespoints lw 2 pt 5 title 'drop: goodput (applied)', \
     in using tau:"idle" axes x1y2 with linespoints lw 2 pt 9 dt 2 title 'drop: idle fraction', \
     bd using tau:"goodput" with linespoints lw 2 pt 4 title 'bounded delay: goodput (= throughput)', \
     bd using tau:"idle" axes x1y2 with linespoints lw 2 pt 8 dt 2 title 'bounded delay: idle fraction'
