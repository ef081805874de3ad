# faults.gp - throughput over simulated time with fault and recovery markers, drawn from a run's
# CSV (dmlsim run FILE --csv out.csv: columns kind, t_s, step, time_s, compute_s, exposed_s,
# samples_per_s, workers, what). It computes nothing; every point is a row of the CSV.
#   gnuplot -e "in='out/faults.csv'; out='out/faults.png'" plots/faults.gp
if (!exists("in")) in = 'out/faults.csv'
if (!exists("out")) out = 'out/faults.png'
if (!exists("name")) name = 'dmlsim'
set terminal pngcairo size 1100,600 noenhanced font ',10'
set output out
set datafile separator ','
set key autotitle columnhead
set title name . ': throughput over simulated time, with faults and recoveries (simulated)'
set xlabel 'simulated time (s)'
set ylabel 'samples/s (committed steps)'
set y2label 'workers'
set ytics nomirror
set y2tics 1
set yrange [0:*]
set grid
set key outside bottom center horizontal
step(k, v) = strcol(1) eq 'step' ? v : NaN
mark(k) = strcol(1) eq k ? 1 : NaN
stats in using (strcol(1) eq 'step' ? $7 : NaN) nooutput
top = STATS_max * 1.05
stats in using (strcol(1) eq 'step' ? $8 : NaN) nooutput
set y2range [0:STATS_max * 1.3]
plot in using 2:(step(1, $7)) with linespoints lw 2 pt 7 ps 0.5 title 'throughput', \
     in using 2:(step(1, $8)) axes x1y2 with points pt 5 ps 0.4 lc rgb '#1f77b4' title 'workers', \
     in using 2:(mark('fault') * top) with impulses lw 2 lc rgb '#d62728' title 'fault', \
     in using 2:(mark('recovery') * top * 0.9) with impulses lw 1 lc rgb '#2ca02c' title 'recovery', \
     in using 2:(mark('checkpoint') * top * 0.3) with impulses lw 1 lc rgb '#7f7f7f' title 'checkpoint'
