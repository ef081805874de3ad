# input.gp - the input pipeline (scenarios/input.xml: ResNet-50 on 8 H100 fed ImageNet from the
# node's NVMe, decoded on its 64 cores): throughput (left) and the wait for batches (right)
# against the loader workers per GPU, one line per prefetch depth. Drawn from `dmlsim sweep
# --csv` tables over data.loader-workers, one per prefetch (dir/input-pP.csv), read by column
# name (data.loader-workers, samples/s, input_ms: sim/cli/sweep_export.h); it computes nothing.
# Where prefetch depths give the same values their lines coincide: each depth has its own dash
# and its own hollow marker, larger as the depth grows, so a line under another still shows its
# markers around the other's, and the key says so.
#   gnuplot -e "dir='out'; out='out/input.png'; scen='scenarios/input.xml'; seed='1'" plots/input.gp
# `scen` and `seed` go under the title; `out` ending in .svg or .pdf picks that format
# (plots/terminal.gp).
if (!exists("dir")) dir = 'out'
if (!exists("out")) out = 'out/input.png'
if (!exists("scen")) scen = 'scenarios/input.xml'
W = 1200; H = 560; fs = 11
load ARG0[1:strlen(ARG0) - strlen('input.gp')] . 'terminal.gp'
sub = exists("seed") ? scen . ', seed ' . seed : scen
set multiplot layout 1,2 title "ResNet-50 on 8 H100, ImageNet from the node's NVMe, decoded on 64 cores (simulated)" . "\n" . sub
set datafile separator comma
set xlabel 'loader workers per GPU (0: loading in the training loop)'
set grid
set key bottom right title 'prefetch (batches per worker)'
# prefetch 1, 2, 4: solid, dashed, dotted; a filled dot, then hollow squares and circles, larger
pts(p) = p eq '1' ? 7 : p eq '2' ? 4 : 6
psz(p) = p eq '1' ? 0.9 : p eq '2' ? 1.6 : 2.3
dash(p) = p eq '1' ? 1 : p eq '2' ? 2 : 3
f(p) = dir.'/input-p'.p.'.csv'
w = 'data.loader-workers'
set title 'throughput (where lines coincide, the depths give the same value)'
set ylabel 'samples/s'
set yrange [0:*]
plot for [p in "1 2 4"] f(p) using w:"samples/s" with linespoints lw 2 dt dash(p) pt pts(p) \
    ps psz(p) title 'prefetch '.p
set title 'wait for a batch (input_ms)'
set ylabel 'wait for a batch (ms)'
set key top right
plot for [p in "1 2 4"] f(p) using w:"input_ms" with linespoints lw 2 dt dash(p) pt pts(p) \
    ps psz(p) title 'prefetch '.p
unset multiplot
