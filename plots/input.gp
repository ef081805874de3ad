# input.gp - the input pipeline (scenarios/input.xml: ResNet-50 on 8 H100 fed ImageNet from the
# node's NVMe, decoded on its 64 cores): throughput and the wait for batches against the loader
# workers per GPU, one line per prefetch depth. Drawn from `dmlsim sweep` tables over
# data.loader-workers, one per prefetch (columns: workers, gpus, batch, step_ms, samples/s, eff,
# exposed_ms, messages, idle, dropped, goodput, failed, input_ms); it computes nothing.
#   gnuplot -e "dir='out'; out='out/input.png'; scen='scenarios/input.xml'; seed='1'" plots/input.gp
# `scen` and `seed` go under the title; `out` ending in .svg or .pdf picks that format
# (plots/terminal.gp).
if (!exists("dir")) dir = 'out'
if (!exists("out")) out = 'out/input.png'
if (!exists("scen")) scen = 'scenarios/input.xml'
W = 960; H = 600; fs = 11
load ARG0[1:strlen(ARG0) - strlen('input.gp')] . 'terminal.gp'
sub = exists("seed") ? scen . ', seed ' . seed : scen
set title "ResNet-50 on 8 H100, ImageNet from the node's NVMe, decoded on 64 cores (simulated)" . "\n" . sub
set xlabel 'loader workers per GPU (0: loading in the training loop)'
set ylabel 'samples/s'
set y2label 'wait for a batch (ms)'
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set grid
set key center right
plot for [p in "1 2 4"] dir.'/input-p'.p.'.txt' using 1:5 with linespoints lw 2 pt 7 title 'samples/s, prefetch '.p, \
     for [p in "1 2 4"] dir.'/input-p'.p.'.txt' using 1:13 axes x1y2 with linespoints lw 1 dt 2 pt 6 title 'wait, prefetch '.p
