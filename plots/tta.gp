# tta.gp - test accuracy against simulated time for ring all-reduce, sync PS and async PS at
# staleness 0, 2, 8, 32, one 4x straggler (scenarios/tta.xml, tools/tta.sh). Each file
# DIR/tta-RUN-evals.csv holds a run's evaluations (a CSV with the header t_s,step,accuracy,loss,
# from its CSV's eval rows; read by column name); sfx picks the files of the cost-model proxy runs
# (DIR/tta-RUN-resnet50-evals.csv), unit the time axis (ms or s). `target` is the scenario's
# target accuracy, drawn as a labelled line; same832=1 says that async PS at tau 8 and tau 32
# gave the same evaluations (tools/tta.sh compares the files), so the key names them as one
# curve; tau 32 is drawn dashed over a wide tau 8 line either way, so neither hides the other.
# This computes nothing.
#   gnuplot -e "dir='out'; out='out/tta.png'; target=0.82; same832=1" plots/tta.gp
#   gnuplot -e "dir='out'; sfx='-resnet50'; unit='s'; out='out/tta-resnet50.png'" plots/tta.gp
if (!exists("dir")) dir = 'out'
if (!exists("out")) out = 'out/tta.png'
if (!exists("sfx")) sfx = ''
if (!exists("unit")) unit = 'ms'
if (!exists("target")) target = 0.82
if (!exists("same832")) same832 = 0
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
set arrow from graph 0, first target to graph 1, first target nohead dt 2 lc rgb '#7f7f7f'
set label sprintf('target accuracy %g', target) at graph 0.01, first target offset 0,0.6 \
    textcolor rgb '#595959'
set datafile separator comma
f(run) = dir.'/tta-'.run.sfx.'-evals.csv'
t = '(column("t_s") * k)'
t8 = same832 ? 'async PS, tau 8 (tau 32: the same evaluations)' : 'async PS, tau 8'
t32 = same832 ? 'async PS, tau 32 (= tau 8)' : 'async PS, tau 32'
plot f('ring') using @t:"accuracy" with linespoints lw 2 pt 7 ps 0.5 title 'ring all-reduce', \
     f('sync-ps') using @t:"accuracy" with linespoints lw 2 pt 5 ps 0.5 title 'sync PS', \
     f('async-0') using @t:"accuracy" with lines lw 2 title 'async PS, tau 0', \
     f('async-2') using @t:"accuracy" with lines lw 2 title 'async PS, tau 2', \
     f('async-8') using @t:"accuracy" with lines lw 6 lc rgb '#f0e442' title t8, \
     f('async-32') using @t:"accuracy" with lines lw 1.5 dt (6, 4) lc rgb '#0b3c8c' title t32
