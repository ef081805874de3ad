# accuracy-shuffle.gp - what a shuffle is worth on files stored by class
# (scenarios/numerics-shuffle.xml, tools/tta.sh): test accuracy over simulated time for the
# pipeline's three orders. `dir` holds accuracy-shuffle-none-evals.csv, -buffer-evals.csv and
# -epoch-evals.csv (header t_s,step,accuracy,loss: each run's CSV eval rows), read by column
# name; this computes nothing.
#   gnuplot -e "dir='out'; out='out/accuracy-shuffle.png'" plots/accuracy-shuffle.gp
if (!exists("dir")) dir = 'out'
if (!exists("out")) out = 'out/accuracy-shuffle.png'
W = 1000; H = 560; fs = 11
load ARG0[1:strlen(ARG0) - strlen('accuracy-shuffle.gp')] . 'terminal.gp'
sub = exists("scen") ? "\n" . scen . (exists("seed") ? ", seed " . seed : "") : ""
set title "Shuffle quality on files stored by class: MLP on Fashion-MNIST, 4 H100, ring, batch 32 per GPU" . sub
set xlabel 'simulated time (s)'
set ylabel 'test accuracy'
set yrange [0:1]
set grid
set key outside bottom center horizontal
set datafile separator comma
plot dir.'/accuracy-shuffle-none-evals.csv' using "t_s":"accuracy" with linespoints lw 2 pt 7 ps 0.5 lc rgb '#d62728' title "shuffle none (the files' order: a class at a time)", \
     dir.'/accuracy-shuffle-buffer-evals.csv' using "t_s":"accuracy" with linespoints lw 2 pt 5 ps 0.5 lc rgb '#ff7f0e' title 'WebDataset buffer, 1,000 samples', \
     dir.'/accuracy-shuffle-epoch-evals.csv' using "t_s":"accuracy" with linespoints lw 2 pt 9 ps 0.5 lc rgb '#2ca02c' title "MDS epoch shuffle"
