#!/bin/bash
# funclen.sh - no function in sim/ (subfolders included) longer than 80 lines (house style). A
# function body is a "{" at column 0 through the next "}" at column 0; its name is on the lines
# above.
# usage: funclen.sh [SIM_DIR] [MAX]
sim=${1:-sim}
max=${2:-80}
awk -v max="$max" '
    FNR == 1 { prev = ""; start = 0 }
    /^\{/ { start = FNR; name = prev }
    /^\}/ && start { n = FNR - start - 1; if (n > max) { print FILENAME ": " name ": " n " lines"; bad = 1 } start = 0 }
    /^[a-z]/ { prev = $0 }
    END { exit bad }
' $(find "$sim" -name '*.c' | sort) && echo "funclen: no function over $max lines in $sim"
