# recsys.gp - throughput against GPU count of the three recommender layouts, from the rows of the
# one `dmlsim sweep --csv` table of tools/recsys.sh, a file a layout in `dir` (ps.csv,
# persia.csv, torchrec.csv: the CSV's header and that layout's rows), read by column name (gpus,
# samples/s: sim/cli/sweep_export.h). It computes nothing but the unit (millions); every number comes
# from the table, and the value at the largest GPU count is written at each line's end.
#   gnuplot -e "dir='out/recsys'; out='out/recsys/recsys.png'" plots/recsys.gp
if (!exists("dir")) dir = 'out/recsys'
if (!exists("out")) out = dir . '/recsys.png'
W = 900; H = 600; fs = 11
load ARG0[1:strlen(ARG0) - strlen('recsys.gp')] . 'terminal.gp'
set datafile separator comma
f(n) = dir . '/' . n . '.csv'
stats f('torchrec') using "gpus" nooutput
pmax = STATS_max
set title "DLRM-DCNv2 on H100, 6,912 samples a GPU: three layouts (simulated)\nscenarios/recsys-layouts.xml, Zipf 1.05 IDs, 8 parameter-server machines"
set logscale x 2
set xrange [6:pmax * 1.6]
set xtics (8, 16, 32, 64, 128)
set xlabel 'GPUs'
set yrange [0:*]
set ylabel 'throughput (million samples/s)'
set grid
set key top left
plot f('torchrec') using "gpus":(column("samples/s") / 1e6) with linespoints lw 2 pt 7 lc 1 \
        title 'tables sharded, all-to-all (DLRM / TorchRec)', \
     f('persia') using "gpus":(column("samples/s") / 1e6) with linespoints lw 2 pt 5 lc 2 \
        title 'tables on the PS, dense all-reduced (Persia)', \
     f('ps') using "gpus":(column("samples/s") / 1e6) with linespoints lw 2 pt 9 lc 3 title 'sparse parameter server', \
     for [n in 'torchrec persia ps'] f(n) using (column("gpus") == pmax ? column("gpus") : NaN):(column("samples/s") / 1e6):(sprintf('%.2fM', column("samples/s") / 1e6)) \
        with labels left offset 0.8,0 notitle
