# terminal.gp - the output terminal every plot script loads: the format follows the name of the
# output file `out` (.png, .svg or .pdf), or `fmt` when given; W x H is the size in pixels
# (a PDF page is W/100 x H/100 inches, so a plot keeps its proportions and text size), fs the
# font size. PNG uses pngcairo where this gnuplot has it and the libgd png terminal otherwise
# (Debian 12's gnuplot-nox has pngcairo, png, svg and pdfcairo: `gnuplot -e "set terminal"`).
# Loaded by a plot script after it has set `out` (and W, H, fs), as
#   load ARG0[1:strlen(ARG0) - strlen('NAME.gp')] . 'terminal.gp'
if (!exists("out")) out = 'out/plot.png'
if (!exists("W")) W = 1000
if (!exists("H")) H = 600
if (!exists("fs")) fs = 11
if (!exists("fmt")) fmt = out[strlen(out) - 2:] eq 'svg' ? 'svg' : \
                          out[strlen(out) - 2:] eq 'pdf' ? 'pdf' : 'png'
if (fmt eq 'svg') {
    set terminal svg size W,H noenhanced font sprintf('sans,%g', fs) background '#ffffff'
} else {
    if (fmt eq 'pdf') {
        set terminal pdfcairo size W / 100.0, H / 100.0 noenhanced font sprintf(',%g', fs * 0.75)
    } else {
        if (strstrt(GPVAL_TERMINALS, ' pngcairo ') > 0) {
            set terminal pngcairo size W,H noenhanced font sprintf(',%g', fs)
        } else {
            set terminal png size W,H noenhanced font sprintf(',%g', fs)
        }
    }
}
set output out
