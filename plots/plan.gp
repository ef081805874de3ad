# plan.gp - the layouts `dmlsim plan` simulated, best first: each one's simulated step (bars),
# its first-order estimate (points) and, with --under, its step under the faults; `dat` is the
# plan's plan.csv (header rank,label,step_ms,est_ms,under_ms,mfu_pct), read by column name; this
# computes nothing.
#   gnuplot -e "dat='plan-x/plan.csv'; out='plan-x/plan.png'; under=0" plots/plan.gp
if (!exists("dat")) dat = 'plan.csv'
if (!exists("out")) out = 'plan.png'
if (!exists("under")) under = 0
W = 1100; H = 560; fs = 11
load ARG0[1:strlen(ARG0) - strlen('plan.gp')] . 'terminal.gp'
set title "dmlsim plan: the best layouts by the estimate, simulated (tp x pp x dp, interleaving, cp, microbatch, ZeRO, recomputation)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.8
set xtics rotate by -30 left
set ylabel 'a step (ms)'
set y2label 'MFU (%)'
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set grid y
set key outside bottom center horizontal
set datafile separator comma
if (under) {
plot dat using "step_ms":xtic(stringcolumn("label")) title 'simulated step' lc rgb '#1f77b4', \
     '' using "under_ms" title 'simulated step under the faults' lc rgb '#ff7f0e', \
     '' using 0:"est_ms" with points pt 7 ps 1.5 lc rgb '#2ca02c' title 'first-order estimate', \
     '' using 0:"mfu_pct" axes x1y2 with linespoints lw 2 pt 5 lc rgb '#d62728' title 'MFU (right axis)'
} else {
plot dat using "step_ms":xtic(stringcolumn("label")) title 'simulated step' lc rgb '#1f77b4', \
     '' using 0:"est_ms" with points pt 7 ps 1.5 lc rgb '#2ca02c' title 'first-order estimate', \
     '' using 0:"mfu_pct" axes x1y2 with linespoints lw 2 pt 5 lc rgb '#d62728' title 'MFU (right axis)'
}
