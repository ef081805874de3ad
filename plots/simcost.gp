# simcost.gp - what a simulated LLM training step costs the simulator, against the GPU count,
# from tools/bench-llm.sh's table as a CSV with a header row (row,gpus,cpu_s,peak_rss_mib,step_ms,
# level), read by column name:
# the GPT-3 175B rows (tp 8, pp 8, dp N/64) and the Llama 3 405B rows (tp 8, pp 14, dp N/112), on
# log-log axes, each point labelled with its CPU seconds; the dashed line is linear growth from
# the smallest GPT-3 row (a slope of 1).
#   gnuplot -e "in='out/bench-llm.csv'; out='out/simcost.png'" plots/simcost.gp
if (!exists("in")) in = 'out/bench-llm.csv'
if (!exists("out")) out = 'out/simcost.png'
W = 900; H = 560; fs = 11
load ARG0[1:strlen(ARG0) - strlen('simcost.gp')] . 'terminal.gp'
set title "Simulator cost of one LLM training step (CPU s, one core; tools/bench-llm.sh)"
set logscale xy
set xlabel 'GPUs'
set ylabel 'CPU seconds per step'
set grid
set key top left
set datafile separator comma
gpt(n) = n[1:5] eq 'gpt3-' && n ne 'gpt3-64' && n ne 'gpt3-64-ring'
l405(n) = n[1:9] eq 'llama405-' && strstrt(n, 'steps') == 0
stats in using (gpt(strcol("row")) ? column("gpus") : 1/0):(gpt(strcol("row")) ? column("cpu_s") : 1/0) nooutput
x0 = STATS_min_x; y0 = STATS_min_y
plot in using (gpt(strcol("row")) ? column("gpus") : 1/0):"cpu_s" with linespoints lw 2 pt 7 title 'GPT-3 175B, 16 microbatches', \
     '' using (gpt(strcol("row")) ? column("gpus") : 1/0):"cpu_s":(sprintf('%.1f', column("cpu_s"))) with labels offset 0,1 notitle, \
     '' using (l405(strcol("row")) ? column("gpus") : 1/0):"cpu_s" with linespoints lw 2 pt 5 title 'Llama 3 405B, 16 microbatches', \
     '' using (l405(strcol("row")) ? column("gpus") : 1/0):"cpu_s":(sprintf('%.1f', column("cpu_s"))) with labels offset 0,-1 notitle, \
     y0 * x / x0 with lines dt 2 lc rgb '#888888' title 'linear in GPUs'
