# accuracy-split.gp - split brain (scenarios/numerics-split.xml, tools/tta.sh): test accuracy over
# simulated time of the store's side and of the side cut off from the store, the steps each has
# committed, and the partition, heal and merge marked. `dir` holds accuracy-split-0.csv (the
# store's side) and accuracy-split-1.csv (the other side), with the header t_s,step,accuracy,loss
# (the run's CSV's eval rows), and accuracy-split-events.csv (header t_s,kind; kind fault or
# merge), read by column name; this computes nothing.
#   gnuplot -e "dir='out'; out='out/accuracy-split.png'" plots/accuracy-split.gp
if (!exists("dir")) dir = 'out'
if (!exists("out")) out = 'out/accuracy-split.png'
W = 1100; H = 600; fs = 11
load ARG0[1:strlen(ARG0) - strlen('accuracy-split.gp')] . 'terminal.gp'
sub = exists("scen") ? "\n" . scen . (exists("seed") ? ", seed " . seed : "") : ""
set title "Split brain: MLP on Fashion-MNIST, 4 H100, ring, ResNet-50 step cost, a rendezvous replica per node\nnode0,node1 | node2,node3 partitioned from 10 s to 15 s" . sub
set xlabel 'simulated time (s)'
set ylabel 'test accuracy'
set y2label 'steps committed'
set ytics nomirror
set y2tics
set yrange [0.6:0.9]
set grid
set key outside bottom center horizontal
set datafile separator comma
mark(k) = strcol("kind") eq k ? 1 : NaN
plot dir.'/accuracy-split-0.csv' using "t_s":"accuracy" with linespoints lw 2 pt 7 ps 0.5 lc rgb '#1f77b4' title 'store side (job model)', \
     dir.'/accuracy-split-1.csv' using "t_s":"accuracy" with linespoints lw 2 pt 5 ps 0.5 lc rgb '#ff7f0e' title 'side cut off (node2, node3)', \
     dir.'/accuracy-split-0.csv' using "t_s":"step" axes x1y2 with steps lw 1 lc rgb '#1f77b4' dt 3 title 'store side step', \
     dir.'/accuracy-split-1.csv' using "t_s":"step" axes x1y2 with steps lw 1 lc rgb '#ff7f0e' dt 3 title 'other side step', \
     dir.'/accuracy-split-events.csv' using "t_s":(mark('fault') * 0.6):(0):(0.3) with vectors nohead lw 2 lc rgb '#d62728' title 'partition / heal', \
     dir.'/accuracy-split-events.csv' using "t_s":(mark('merge') * 0.6):(0):(0.3) with vectors nohead lw 2 dt 2 lc rgb '#2ca02c' title 'merge: roll back to step 400'
