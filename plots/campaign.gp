# campaign.gp - `dmlsim campaign --every LIST --spares LIST`: the effective training time ratio
# (mean over replications, with its 95% confidence interval) against the checkpoint interval,
# one line a spare-node count; `dat` is the campaign's campaign.csv (header
# spares,every_steps,interval_h,ettr,ci_lo,ci_hi; a row a point, a spare count's rows together),
# read by column name, `spares` the spare counts ("0 1 2"); this computes nothing.
#   gnuplot -e "dat='campaign-x/campaign.csv'; out='campaign-x/campaign.png'; spares='0 1'" plots/campaign.gp
if (!exists("dat")) dat = 'campaign.csv'
if (!exists("out")) out = 'campaign.png'
if (!exists("spares")) spares = '0'
W = 900; H = 560; fs = 11
load ARG0[1:strlen(ARG0) - strlen('campaign.gp')] . 'terminal.gp'
set title "dmlsim campaign: effective training time against the checkpoint interval"
set xlabel 'checkpoint interval (hours of steps)'
set ylabel 'ETTR (productive step time / wall time)'
set grid
set logscale x
set key bottom right
set datafile separator comma
on(s) = column("spares") == s ? 1 : NaN
plot for [s in spares] dat using (column("interval_h") * on(s + 0)):"ettr":"ci_lo":"ci_hi" \
     with yerrorlines lw 2 pt 7 title s . ' spare node(s)'
