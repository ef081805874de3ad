# plot.sh - sourced by tools/main.sh, tools/parallel.sh and tools/tta.sh: draw one plot with
# its scenario and seed under the title, in the format DMLSIM_PLOT_FORMAT (png, the default,
# svg or pdf; plots/terminal.gp picks gnuplot's terminal from the file's extension).
#   plot NAME SCENARIO "GNUPLOT-ASSIGNMENTS" [GP]: draws out/NAME.FORMAT with plots/GP.gp
#   (default plots/NAME.gp); the seed is read from dmlsim's own header of SCENARIO
#   (dmlsim run --fault-plan stops before simulating).
# Needs $dm (the dmlsim binary) and the current folder at the repository root.
fmt=${DMLSIM_PLOT_FORMAT:-png}
case "$fmt" in
png | svg | pdf) ;;
*) echo "plot.sh: format '$fmt': expected png, svg or pdf" >&2; exit 1 ;;
esac
plot() {
    local seed
    seed=$("$dm" run "$2" --fault-plan | sed -n 's/^# scenario .*, seed \([0-9]*\))$/\1/p')
    [ -n "$seed" ] || { echo "plot.sh: no seed in the header of $2" >&2; exit 1; }
    gnuplot -e "$3; scen='$2'; seed='$seed'; out='out/$1.$fmt'" "plots/${4:-$1}.gp"
}
