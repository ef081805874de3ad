# campaign.gp - `dmlsim campaign --every LIST --spares LIST`: the effective training time ratio
# (mean over replications, with its 95% confidence interval) against the checkpoint interval,
# one line a spare-node count; `dat` is the campaign's campaign.dat, one block a spare count
# ("every_steps interval_h ettr ci_lo ci_hi", its first line the title "N spare node(s)"); this
# computes nothing.
#   gnuplot -e "dat='campaign-x/campaign.dat'; out='campaign-x/campaign.png'" plots/campaign.gp
if (!exists("dat")) dat = 'campaign.dat'
if (!exists("out")) out = 'campaign.png'
W = 900; H = 560; fs = 11
load ARG0[1:strlen(ARG0) - strlen('campaign.gp')] . 'terminal.gp'
set title "dmlsim campaign: effective training time against the checkpoint interval"
set xlabel 'checkpoint interval (hours of steps)'
set ylabel 'ETTR (productive step time / wall time)'
set grid
set logscale x
set key bottom right
stats dat using 1 nooutput
nb = STATS_blocks
plot for [i=0:nb-1] dat index i using 2:3:4:5 with yerrorlines lw 2 pt 7 \
     title columnheader(1)
