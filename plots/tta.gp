# tta.gp - test accuracy against simulated time for ring all-reduce, sync PS and async PS at
# staleness 0, 2, 8, 32, one 4x straggler (scenarios/tta.xml, tools/tta.sh). Each file DIR/tta-RUN.dat
# holds a run's evaluations ("t_s step accuracy loss", from its CSV's eval rows); sfx picks the
# files of the cost-model proxy runs (DIR/tta-RUN-resnet50.dat), unit the time axis (ms or s).
# This computes nothing.
#   gnuplot -e "dir='out'; out='out/tta.png'" plots/tta.gp
#   gnuplot -e "dir='out'; sfx='-resnet50'; unit='s'; out='out/tta-resnet50.png'" plots/tta.gp
if (!exists("dir")) dir = 'out'
if (!exists("out")) out = 'out/tta.png'
if (!exists("sfx")) sfx = ''
if (!exists("unit")) unit = 'ms'
k = unit eq 'ms' ? 1e3 : 1
cost = sfx eq '' ? 'the MLP''s own step cost' : 'each step costs ResNet-50''s time (cost-model proxy)'
W = 1000; H = 600; fs = 11
load ARG0[1:strlen(ARG0) - strlen('tta.gp')] . 'terminal.gp'
sub = exists("scen") ? "\n" . scen . (exists("seed") ? ", seed " . seed : "") : ""
set title 'MLP on Fashion-MNIST, 8 H100 workers, one 4x straggler: test accuracy (real SGD)' . "\n" . cost . sub
set xlabel 'simulated time (' . unit . ')'
set ylabel 'test accuracy'
set yrange [0.5:0.9]
set grid
set key bottom right
set arrow from graph 0, first 0.82 to graph 1, first 0.82 nohead dt 2 lc rgb '#7f7f7f'
plot dir.'/tta-ring'.sfx.'.dat' using ($1*k):3 with linespoints lw 2 pt 7 ps 0.5 title 'ring all-reduce', \
     dir.'/tta-sync-ps'.sfx.'.dat' using ($1*k):3 with linespoints lw 2 pt 5 ps 0.5 title 'sync PS', \
     dir.'/tta-async-0'.sfx.'.dat' using ($1*k):3 with lines lw 2 title 'async PS, tau 0', \
     dir.'/tta-async-2'.sfx.'.dat' using ($1*k):3 with lines lw 2 title 'async PS, tau 2', \
     dir.'/tta-async-8'.sfx.'.dat' using ($1*k):3 with lines lw 2 title 'async PS, tau 8', \
     dir.'/tta-async-32'.sfx.'.dat' using ($1*k):3 with lines lw 2 dt 3 title 'async PS, tau 32'
