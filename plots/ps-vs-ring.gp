# ps-vs-ring.gp - throughput and scaling efficiency against GPU count, one line per strategy,
# drawn from three one-axis `dmlsim sweep` tables over training.gpus (columns: gpus, gpus, batch,
# step_ms, samples/s, eff, ...). It computes nothing; every number comes from the tables.
#   gnuplot -e "ps1='out/ps1.txt'; psk='out/psk.txt'; ring='out/ring.txt'; k='8'; \
#               out='out/ps-vs-ring.png'" plots/ps-vs-ring.gp
if (!exists("ps1")) ps1 = 'out/ps1.txt'
if (!exists("psk")) psk = 'out/psk.txt'
if (!exists("ring")) ring = 'out/ring.txt'
if (!exists("k")) k = '8'
if (!exists("out")) out = 'out/ps-vs-ring.png'
if (!exists("name")) name = 'ResNet-50'
set terminal pngcairo size 1200,560 noenhanced font ',11'
set output out
set multiplot layout 1,2 title name . ': parameter server vs NCCL all-reduce (simulated)'
set logscale x 2
set xlabel 'GPUs'
set grid
set key top left
set logscale y 2
set format y '%.0f'
set ylabel 'throughput (samples/s)'
set title 'throughput'
plot ring using 2:5 with linespoints lw 2 pt 7 title 'NCCL all-reduce', \
     psk using 2:5 with linespoints lw 2 pt 5 title 'PS, '.k.' shards', \
     ps1 using 2:5 with linespoints lw 2 pt 9 title 'PS, 1 shard'
unset logscale y
set format y '%g'
set yrange [0:105]
set ylabel 'scaling efficiency vs 1 GPU (%)'
set title 'scaling efficiency'
set key bottom left
plot ring using 2:($6 * 100) with linespoints lw 2 pt 7 title 'NCCL all-reduce', \
     psk using 2:($6 * 100) with linespoints lw 2 pt 5 title 'PS, '.k.' shards', \
     ps1 using 2:($6 * 100) with linespoints lw 2 pt 9 title 'PS, 1 shard'
unset multiplot
