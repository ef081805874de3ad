# parallel.gp - MFU against the split tp x pp x dp of 16 GPUs (tools/parallel.sh): `dat` holds
# "SPLIT mfu% tensor_ms bubble_ms data_ms step_ms" per run; this computes nothing.
#   gnuplot -e "dat='out/parallel.dat'; out='out/parallel.png'" plots/parallel.gp
if (!exists("dat")) dat = 'out/parallel.dat'
if (!exists("out")) out = 'out/parallel.png'
W = 1100; H = 560; fs = 11
load ARG0[1:strlen(ARG0) - strlen('parallel.gp')] . 'terminal.gp'
sub = exists("scen") ? "\n" . scen . (exists("seed") ? ", seed " . seed : "") : ""
set title "Llama 3 8B on 16 H100 (2 nodes), global batch 32 x 8192 tokens, ZeRO-1, full recomputation" . sub
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.7
set xlabel 'tensor x pipeline x data parallelism'
set ylabel 'a step (ms): where it goes'
set y2label 'model FLOPs utilisation (%)'
set ytics nomirror
set y2tics
set y2range [0:*]
set grid y
set key outside bottom center horizontal
plot dat using ($6 - $3 - $4 - $5):xtic(1) title 'compute and update' lc rgb '#1f77b4', \
     '' using 3 title 'tensor-parallel collectives' lc rgb '#ff7f0e', \
     '' using 4 title 'pipeline bubble and waits' lc rgb '#2ca02c', \
     '' using 5 title 'data-parallel collectives' lc rgb '#9467bd', \
     '' using 0:2 axes x1y2 with linespoints lw 2 pt 7 lc rgb '#d62728' title 'MFU (right axis)'
