# accuracy-faults.gp - test accuracy over simulated time through failures, with the run's fault,
# new-membership and checkpoint rows marked (scenarios/numerics-faults.xml, tools/tta.sh). `dat`
# holds the evaluations (a CSV with the header t_s,step,accuracy,loss, from the run's CSV's eval
# rows), `ev` the run's fault, membership and checkpoint rows (header t_s,kind); both read by
# column name; this computes nothing.
#   gnuplot -e "ev='out/accuracy-faults-events.csv'; dat='out/accuracy-faults-evals.csv'; out='out/accuracy-faults.png'" plots/accuracy-faults.gp
if (!exists("ev")) ev = 'out/accuracy-faults-events.csv'
if (!exists("dat")) dat = 'out/accuracy-faults-evals.csv'
if (!exists("out")) out = 'out/accuracy-faults.png'
W = 1100; H = 600; fs = 11
load ARG0[1:strlen(ARG0) - strlen('accuracy-faults.gp')] . 'terminal.gp'
sub = exists("scen") ? "\n" . scen . (exists("seed") ? ", seed " . seed : "") : ""
set title 'MLP on Fashion-MNIST, 4 H100, ring: accuracy through a crash (step 350) and a partition (70-90 ms)' . sub
set xlabel 'simulated time (ms)'
set ylabel 'test accuracy'
set y2label 'steps committed'
set ytics nomirror
set y2tics
set yrange [0.5:0.9]
set grid
set key outside bottom center horizontal
set datafile separator comma
mark(k) = strcol("kind") eq k ? 1 : NaN
ms = '(column("t_s") * 1e3)'
plot dat using @ms:"accuracy" with linespoints lw 2 pt 7 ps 0.5 title 'test accuracy', \
     dat using @ms:"step" axes x1y2 with steps lw 1 lc rgb '#9467bd' title 'step of the evaluation', \
     ev using @ms:(mark('fault') * 0.5):(0):(0.4) with vectors nohead lw 2 lc rgb '#d62728' title 'fault', \
     ev using @ms:(mark('recovery') * 0.5):(0):(0.3) with vectors nohead lw 1 dt 2 lc rgb '#2ca02c' title 'new membership (rollback)', \
     ev using @ms:(mark('checkpoint') * 0.5):(0):(0.03) with vectors nohead lw 1 lc rgb '#7f7f7f' title 'checkpoint counts'
