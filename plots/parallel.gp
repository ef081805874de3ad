# parallel.gp - MFU against the split tp x pp x dp of 16 GPUs (tools/parallel.sh): `dat` is a
# CSV with the header split,mfu_pct,tensor_ms,bubble_ms,data_ms,step_ms, a row per run, read by
# column name; this computes nothing.
#   gnuplot -e "dat='out/parallel.csv'; out='out/parallel.png'" plots/parallel.gp
if (!exists("dat")) dat = 'out/parallel.csv'
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
set datafile separator comma
plot dat using (column("step_ms") - column("tensor_ms") - column("bubble_ms") - column("data_ms")):xtic(stringcolumn("split")) \
        title 'compute and update' lc rgb '#1f77b4', \
     '' using "tensor_ms" title 'tensor-parallel collectives' lc rgb '#ff7f0e', \
     '' using "bubble_ms" title 'pipeline bubble and waits' lc rgb '#2ca02c', \
     '' using "data_ms" title 'data-parallel collectives' lc rgb '#9467bd', \
     '' using 0:"mfu_pct" axes x1y2 with linespoints lw 2 pt 7 lc rgb '#d62728' title 'MFU (right axis)'
