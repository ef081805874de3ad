# faults.gp - throughput over simulated time through faults and recoveries, drawn from a run's
# CSV (dmlsim run FILE --csv out.csv: a header row kind,t_s,step,time_s,compute_s,exposed_s,
# samples_per_s,workers,what, read by column name; rows in time order).
#
# Three panels on one time axis:
#  - above, each fault and each recovery that re-forms the job as a text label (the row's `what`,
#    verbatim; rows of the same kind at the same time are one label, "+N more"; the per-rank
#    "rank N: ... reporting" rows are not labelled), nudged apart where they would overlap, with
#    a leader down to its time;
#  - the time around the faults (up to the last labelled event plus 15%): the throughput of each
#    step (thin), the throughput over the last `win` steps (bold: their samples over their time,
#    so a gap in training counts as time without samples), the workers (right axis), checkpoints
#    as ticks, and two shadings: the job's outage, from a fault to the next membership (the
#    recovery that resumes training; from the last fault row before it), and a component out of
#    service, from its fault to its end (crash to restart, link-down to link-up, degrade to
#    degrade-end, slowed to back to speed; the same host or link, read from `what`; no end: to
#    the end of the run);
#  - below, the whole run, with the zoomed span marked (left out when the zoom is the whole run).
# `win` is the checkpoint period when the run has two checkpoint rows or more (the gap between
# their steps: each window holds one checkpoint step, so the bold line is flat in steady state),
# else 1; -e "win=N" sets it. Nothing else is computed: every point is a row of the CSV or a
# ratio of its columns.
#   gnuplot -e "in='out/faults.csv'; out='out/faults.png'; name='...'; scen='scenarios/faults.xml'; \
#               seed='5'" plots/faults.gp
# `out` ending in .svg or .pdf picks that format (plots/terminal.gp).
if (!exists("in")) in = 'out/faults.csv'
if (!exists("out")) out = 'out/faults.png'
if (!exists("name")) name = 'dmlsim'
if (!exists("scen")) scen = in
W = 1100; H = 1000; fs = 10
load ARG0[1:strlen(ARG0) - strlen('faults.gp')] . 'terminal.gp'
sub = exists("seed") ? scen . ', seed ' . seed : scen

# --- the rows' text -----------------------------------------------------------------------------
# gnuplot 5.4 splits a quoted CSV field at its commas ("membership 1: 15 worker(s), resume at
# step 10"), so `what` is read apart with '"' as the separator: the text is field 2 of every row
# but a step's (which has none). Row r of every pass below is the same line of the file (the
# header: with '"' as the separator it is skipped, with ',' it names the columns).
set datafile separator '"'
nr = 0
stats in using (nr = nr + 1, 1) skip 1 nooutput
array TX[nr > 0 ? nr : 1]               # row r's `what`, '' where it has none
r = 0
stats in using (r = r + 1, TX[r] = (strstrt(strcol(1), 'step,') == 1 ? '' : strcol(2)), 1) \
    skip 1 nooutput
set datafile separator ','

# --- what the rows are -------------------------------------------------------------------------
ends_with(s, e) = strlen(s) >= strlen(e) && s[strlen(s) - strlen(e) + 1:] eq e
starts_with(s, b) = strstrt(s, b) == 1
# A fault row that puts a component out of service, or one that ends that: the subject (host or
# link) it names, '' for neither.
out_subject(w) = starts_with(w, 'crash of ') ? word(w, 3) : \
                 starts_with(w, 'link-down ') || starts_with(w, 'degrade ') ? word(w, 2) : \
                 ends_with(w, ' slowed') ? word(w, 1) : ''
back_subject(w) = starts_with(w, 'restart of ') ? word(w, 3) : \
                  starts_with(w, 'link-up ') || starts_with(w, 'degrade-end ') ? word(w, 2) : \
                  ends_with(w, ' back to speed') ? word(w, 1) : ''
is_membership(w) = starts_with(w, 'membership ')
# Recovery rows worth a label: not the per-rank reports.
is_label(k, w) = k eq 'fault' || (k eq 'recovery' && !starts_with(w, 'rank '))
# The label of n rows of the same kind at one time: the first word, xN, the cause in brackets.
many(w, n) = word(w, 1) . sprintf(' x%d', n) . \
             (word(w, words(w))[1:1] eq '(' ? ' ' . word(w, words(w)) : '')

# --- pass 1: counts, ranges, the checkpoint period -----------------------------------------------
nst = 0; nev = 0; nout = 0; nck = 0; ck1 = 0; ck2 = 0; tend = 0; tlast = 0; thrmax = 0; wmax = 0
count(k, w, t, s) = (tend = t > tend ? t : tend, \
    k eq 'step' ? (nst = nst + 1, thrmax = column("samples_per_s") > thrmax ? column("samples_per_s") : thrmax, \
                   wmax = column("workers") > wmax ? column("workers") : wmax) : 0, \
    is_label(k, w) ? (nev = nev + 1, tlast = t) : 0, \
    k eq 'fault' && out_subject(w) ne '' ? nout = nout + 1 : 0, \
    k eq 'checkpoint' ? (nck = nck + 1, ck1 = nck == 1 ? s : ck1, ck2 = nck == 2 ? s : ck2) : 0, 1)
r = 0
stats in using (r = r + 1, count(strcol("kind"), TX[r], column("t_s"), column("step"))) nooutput
if (!exists("win")) win = nck >= 2 && ck2 > ck1 ? int(ck2 - ck1) : 1
if (win < 1) win = 1

# --- pass 2: the steps, the events, the intervals --------------------------------------------------
one(n) = n > 0 ? n : 1
array ST[one(nst)]                     # step row i: its time (s)
array SR[one(nst)]                     # its samples/s (over its own time_s)
array SW[one(nst)]                     # its workers
array SC[one(nst)]                     # samples to step row i
array STC[one(nst)]                    # step time to step row i (s)
array CK[one(nck)]                     # checkpoint row: its time (s)
array ET[one(nev)]                     # labelled event j: its time (s)
array EF[one(nev)]                     # 1: a fault, 0: a recovery
array EX[one(nev)]                     # where its label goes (s): ET nudged right of the last one
array EL[one(nev)]                     # its text
array EN[one(nev)]                     # rows of the same kind at the same time it stands for
array OS[one(nout)]                    # component out of service k: from (s)
array OE[one(nout)]                    # to (s); the end of the run when nothing ends it
array OW[one(nout)]                    # the host or link
array SS[one(nev)]                     # outage m: the last fault row before a membership (s)
array SE[one(nev)]                     # the membership (s)
# every element defined, NaN where unused (merged rows leave the arrays' ends unused)
do for [k = 1:|OS|] { OS[k] = NaN; OE[k] = tend; OW[k] = '' }
do for [k = 1:|ET|] { ET[k] = NaN; EF[k] = 0; EX[k] = NaN; EL[k] = ''; EN[k] = 0; SS[k] = NaN; SE[k] = NaN }
# zoom: up to the last labelled event plus 15%, unless that is (nearly) the whole run
z1 = nev > 0 && tlast * 1.15 < tend * 0.9 ? tlast * 1.15 : tend
L = 0.08; R = 0.91
dx = z1 * 14.0 / ((R - L) * W)         # 14 px of the zoomed axis: a rotated label's height
i = 0; c = 0; j = 0; o = 0; m = 0; lastf = -1; done = 0
# the latest open interval of subject s ends at t
close(s, t) = sum [q = 1:o] (OW[o + 1 - q] eq s && OE[o + 1 - q] == tend && !done ? \
                             (OE[o + 1 - q] = t, done = 1) : 0)
fill(k, w, t) = ( \
    k eq 'step' ? (i = i + 1, ST[i] = t, SR[i] = column("samples_per_s"), SW[i] = column("workers"), \
                   SC[i] = (i > 1 ? SC[i - 1] : 0) + column("samples_per_s") * column("time_s"), \
                   STC[i] = (i > 1 ? STC[i - 1] : 0) + column("time_s")) : 0, \
    k eq 'checkpoint' ? (c = c + 1, CK[c] = t) : 0, \
    is_label(k, w) ? ( \
        j > 0 && ET[j] == t && EF[j] == (k eq 'fault') && \
            word(EL[j], 1) eq word(w, 1) ? EN[j] = EN[j] + 1 : \
        (j = j + 1, ET[j] = t, EF[j] = (k eq 'fault'), EL[j] = w, EN[j] = 1, \
         EX[j] = j > 1 && EX[j - 1] + dx > t ? EX[j - 1] + dx : t)) : 0, \
    k eq 'fault' ? lastf = t : 0, \
    k eq 'recovery' && is_membership(w) && lastf >= 0 ? (m = m + 1, SS[m] = lastf, SE[m] = t, \
                                                         lastf = -1) : 0, \
    k eq 'fault' && out_subject(w) ne '' && !(o > 0 && OS[o] == t) ? \
        (o = o + 1, OS[o] = t, OW[o] = out_subject(w)) : 0, \
    k eq 'fault' && back_subject(w) ne '' ? (done = 0, close(back_subject(w), t)) : 0, 1)
r = 0
stats in using (r = r + 1, fill(strcol("kind"), TX[r], column("t_s"))) nooutput
do for [q = 1:j] { if (EN[q] > 1) { EL[q] = many(EL[q], EN[q]) } }
# the throughput over the last `win` step rows: their samples over their time
roll(q) = q > win ? (SC[q] - SC[q - win]) / (STC[q] - STC[q - win]) : SC[q] / STC[q]
ecol(q) = EF[q] ? 0xb2182b : 0x1a7837  # a fault's colour, a recovery's, for `rgb variable`
ytop = thrmax * 1.3

set multiplot title name . ': throughput over simulated time through faults and recoveries' . \
    ' (simulated)' . "\n" . sub
set lmargin at screen L
set rmargin at screen R

# --- the labels -------------------------------------------------------------------------------
set tmargin at screen 0.93
set bmargin at screen 0.60
set xrange [0:z1]
set yrange [0:1]
unset xtics; unset ytics; unset y2tics; unset border; unset grid; unset key
plot ET using (ET[$1]):(0):(EX[$1] - ET[$1]):(0.04):(ecol($1)) with vectors nohead lw 1 \
        lc rgb variable, \
     ET using (EX[$1]):(0.05):(EL[$1]):(ecol($1)) with labels rotate by 90 left font ',9' \
        textcolor rgb variable

# --- around the faults --------------------------------------------------------------------------
has_overview = z1 < tend
set tmargin at screen 0.60
set bmargin at screen (has_overview ? 0.33 : 0.10)
set border
set grid
set xtics
set xlabel 'simulated time (s)'
set ytics nomirror
set y2tics 0, 2
set ylabel 'samples/s'
set y2label 'workers'
set yrange [0:ytop]
set y2range [0:wmax * 1.1]
set key at screen 0.5, (has_overview ? 0.258 : 0.035) center center horizontal maxcols 3 \
    samplen 2.5 width 2
set style fill transparent solid 0.3 noborder
plot OS using ($1 <= o ? (OS[$1] + OE[$1]) / 2 : NaN):(0):(OS[$1]):(OE[$1]):(0):(ytop) \
        with boxxyerror fc rgb '#fdae6b' title 'component down or slowed (its fault to its end)', \
     SS using ($1 <= m ? (SS[$1] + SE[$1]) / 2 : NaN):(0):(SS[$1]):(SE[$1]):(0):(ytop) \
        with boxxyerror fc rgb '#e34a33' title 'outage (fault to the new membership)', \
     ET using (ET[$1]):(0):(0):(ytop):(ecol($1)) with vectors nohead lw 0.5 dt 3 \
        lc rgb variable notitle, \
     CK using (CK[$1]):(0):(0):(thrmax * 0.05) with vectors nohead lw 1 lc rgb '#737373' \
        title 'checkpoint counts', \
     SW using (ST[$1]):(SW[$1]) axes x1y2 with fsteps lw 1.5 lc rgb '#2c7fb8' \
        title 'workers (right axis)', \
     SR using (ST[$1]):(SR[$1]) with fsteps lw 2.5 lc rgb '#3f007d' \
        title 'samples/s of each step, over its time'

# --- the whole run ------------------------------------------------------------------------------
if (has_overview) {
    set tmargin at screen 0.22
    set bmargin at screen 0.06
    set xrange [0:tend]
    set ylabel 'samples/s'
    unset y2tics; unset y2label
    set ytics 10000
    unset key
    set object 1 rectangle from 0, graph 0 to z1, graph 1 behind fc rgb '#f0f0f0' \
        fs solid 1.0 noborder
    set label 1 sprintf('whole run, 0 to %.1f s (shaded: the %.1f s above); samples/s over the' . \
        ' last %d steps%s', tend, z1, win, win > 1 ? ' (the checkpoint period)' : '') \
        at graph 0.99, graph 0.12 right
    plot OS using ($1 <= o ? (OS[$1] + OE[$1]) / 2 : NaN):(0):(OS[$1]):(OE[$1]):(0):(ytop) \
            with boxxyerror fc rgb '#fdae6b', \
         SS using ($1 <= m ? (SS[$1] + SE[$1]) / 2 : NaN):(0):(SS[$1]):(SE[$1]):(0):(ytop) \
            with boxxyerror fc rgb '#e34a33', \
         ST using (ST[$1]):(roll($1)) with lines lw 2 lc rgb '#3f007d'
}
unset multiplot
