# simcost.gp - what a simulated LLM training step costs the simulator, against the GPU count,
# from tools/bench-llm.sh's table (columns: 1 row name, 2 GPUs, 3 CPU s, 4 peak RSS MiB, 5 step ms):
# the GPT-3 175B rows (tp 8, pp 8, dp N/64) and the Llama 3 405B rows (tp 8, pp 14, dp N/112), on
# log-log axes, each point labelled with its CPU seconds; the dashed line is linear growth from
# the smallest GPT-3 row (a slope of 1).
#   gnuplot -e "in='out/bench-llm.txt'; out='out/simcost.png'" plots/simcost.gp
if (!exists("in")) in = 'out/bench-llm.txt'
if (!exists("out")) out = 'out/simcost.png'
W = 900; H = 560; fs = 11
load ARG0[1:strlen(ARG0) - strlen('simcost.gp')] . 'terminal.gp'
set title "Simulator cost of one LLM training step (CPU s, one core; tools/bench-llm.sh)"
set logscale xy
set xlabel 'GPUs'
set ylabel 'CPU seconds per step'
set grid
set key top left
gpt(n) = n[1:5] eq 'gpt3-' && n ne 'gpt3-64' && n ne 'gpt3-64-ring'
l405(n) = n[1:9] eq 'llama405-' && strstrt(n, 'steps') == 0
stats in using (gpt(strcol(1)) ? $2 : 1/0):(gpt(strcol(1)) ? $3 : 1/0) nooutput
x0 = STATS_min_x; y0 = STATS_min_y
plot in using (gpt(strcol(1)) ? $2 : 1/0):3 with linespoints lw 2 pt 7 title 'GPT-3 175B, 16 microbatches', \
     '' using (gpt(strcol(1)) ? $2 : 1/0):3:(sprintf('%.1f', $3)) with labels offset 0,1 notitle, \
     '' using (l405(strcol(1)) ? $2 : 1/0):3 with linespoints lw 2 pt 5 title 'Llama 3 405B, 16 microbatches', \
     '' using (l405(strcol(1)) ? $2 : 1/0):3:(sprintf('%.1f', $3)) with labels offset 0,-1 notitle, \
     y0 * x / x0 with lines dt 2 lc rgb '#888888' title 'linear in GPUs'
