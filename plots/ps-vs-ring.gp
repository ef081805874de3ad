# ps-vs-ring.gp - throughput and scaling efficiency against GPU count, one line per strategy,
# drawn from three one-axis `dmlsim sweep --csv` tables over training.gpus, read by column name
# (gpus, samples/s, eff: sim/cli/sweep_export.h). It computes nothing; every number comes from the tables. The
# value at the largest GPU count is written at the end of each line, so the gap between the
# strategies can be read without the grid. `k` is the shard count of the `psk` sweep, `scen` and
# `seed` the scenario and its seed, shown under the title.
#   gnuplot -e "ps1='out/ps1.csv'; psk='out/psk.csv'; ring='out/ring.csv'; k='8'; \
#               scen='scenarios/ps-vs-ring.xml'; seed='1'; out='out/ps-vs-ring.png'" plots/ps-vs-ring.gp
# `out` ending in .svg or .pdf picks that format (plots/terminal.gp).
if (!exists("ps1")) ps1 = 'out/ps1.csv'
if (!exists("psk")) psk = 'out/psk.csv'
if (!exists("ring")) ring = 'out/ring.csv'
if (!exists("k")) k = '8'
if (!exists("out")) out = 'out/ps-vs-ring.png'
if (!exists("name")) name = 'ResNet-50'
if (!exists("scen")) scen = ring
W = 1200; H = 600; fs = 11
load ARG0[1:strlen(ARG0) - strlen('ps-vs-ring.gp')] . 'terminal.gp'
sub = exists("seed") ? scen . ', seed ' . seed : scen
set datafile separator comma
stats ring using "gpus" nooutput
pmax = STATS_max
set multiplot layout 1,2 title name . ': parameter server vs NCCL all-reduce (simulated)' . "\n" . sub
set logscale x 2
set xrange [0.8:pmax * 2.2]
set xtics 1, 2, pmax
set xlabel 'GPUs'
set grid
set key top left
set logscale y 2
set format y '%.0f'
set ylabel 'throughput (samples/s)'
set title 'throughput'
plot ring using "gpus":"samples/s" with linespoints lw 2 pt 7 lc 1 title 'NCCL all-reduce', \
     psk using "gpus":"samples/s" with linespoints lw 2 pt 5 lc 2 title 'PS, '.k.' shards', \
     ps1 using "gpus":"samples/s" with linespoints lw 2 pt 9 lc 3 title 'PS, 1 shard', \
     for [f in ring.' '.psk.' '.ps1] f using "gpus":(column("gpus") == pmax ? column("samples/s") : NaN):(sprintf('%.0f', column("samples/s"))) \
        with labels left offset 0.8,0 notitle
unset logscale y
set format y '%g'
set yrange [0:105]
set ylabel 'scaling efficiency vs 1 GPU (%)'
set title 'scaling efficiency'
set key bottom left
plot ring using "gpus":(column("eff") * 100) with linespoints lw 2 pt 7 lc 1 title 'NCCL all-reduce', \
     psk using "gpus":(column("eff") * 100) with linespoints lw 2 pt 5 lc 2 title 'PS, '.k.' shards', \
     ps1 using "gpus":(column("eff") * 100) with linespoints lw 2 pt 9 lc 3 title 'PS, 1 shard', \
     for [f in ring.' '.psk.' '.ps1] f using "gpus":(column("gpus") == pmax ? column("eff") * 100 : NaN):(sprintf('%.1f%%', column("eff") * 100)) \
        with labels left offset 0.8,0 notitle
unset multiplot
