#!/bin/bash
# golden.sh - the complete outputs of four scenarios, compared byte for byte with tests/golden/:
# the main job (stdout, CSV, JSON), a parameter-server run, a fault experiment and a collective
# benchmark (stdout only: it has no CSV or JSON). A change of output must be reviewed, not
# accidental: after an intended change, regenerate them and read the diff before committing:
#   tests/golden.sh build/dmlsim --update      (prints the diff against the stored outputs)
# usage: golden.sh PATH/TO/dmlsim [--update]   (run from the repository root)
set -u
dmlsim=${1:?usage: golden.sh PATH/TO/dmlsim [--update]}
update=${2:-}
dir=tests/golden
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# name  scenario  outputs (out: stdout; csv, json: --csv, --json)
cases="main:scenarios/resnet50-ring.xml:out,csv,json
ps:scenarios/staleness.xml:out,csv,json
fault:scenarios/faults.xml:out,csv,json
bench:scenarios/allreduce.xml:out"
fail=0
for c in $cases; do
    IFS=: read -r name sc outs <<<"$c"
    args=()
    [[ $outs == *csv* ]] && args+=(--csv "$tmp/$name.csv")
    [[ $outs == *json* ]] && args+=(--json "$tmp/$name.json")
    "$dmlsim" run "$sc" "${args[@]}" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    [ $rc -eq 0 ] || { echo "golden: $name: $sc exited $rc: $(cat "$tmp/$name.err")"; fail=1; }
    for ext in ${outs//,/ }; do
        f=$name.$ext
        if [ "$update" = --update ]; then
            mkdir -p "$dir"
            diff -u "$dir/$f" "$tmp/$f" 2>/dev/null | head -40
            cp "$tmp/$f" "$dir/$f"
        elif ! cmp -s "$dir/$f" "$tmp/$f"; then
            echo "golden: $f differs from $dir/$f (intended? tests/golden.sh $dmlsim --update):"
            diff -u "$dir/$f" "$tmp/$f" | head -20
            fail=1
        fi
    done
done
[ "$update" = --update ] && echo "golden: outputs written to $dir; review with git diff $dir"
[ $fail -eq 0 ] && [ "$update" != --update ] && echo "golden: every output is byte-identical to $dir"
exit $fail
