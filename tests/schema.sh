#!/usr/bin/env bash
# schema.sh - every shipped scenario's JSON (`dmlsim run FILE.xml --json`) is valid against the
# schema in the repository (issue 17): schemas/run.schema.json for training runs,
# schemas/bench.schema.json for <benchmark> scenarios (JSON Schema draft 2020-12, checked with
# python3-jsonschema's Draft202012Validator; the schemas themselves with check_schema).
#   - scenarios/*.xml and scenarios/ci/*.xml, the slow ones shortened with --set (the JSON keeps
#     its shape); a run may exit 3 (a failed <expect>) or 4 (the job failed): its JSON is written;
#   - a few variants reach the writer's other branches (a collective that does not reduce, a
#     flow-level ring, rows that timed out);
#   - the JSON is read strictly: a duplicate key, NaN or Infinity (or C's nan, inf) is invalid;
#   - the check can fail: broken copies of valid outputs (a missing required key, a wrong type,
#     an unknown key, a value outside its enumeration, a negative time, inf, a duplicate key)
#     must each be reported invalid.
# usage: tests/schema.sh PATH/TO/dmlsim   (run from the repository root)
set -u
dmlsim=${1:?usage: schema.sh PATH/TO/dmlsim}
. "$(dirname "$0")/lib.sh"

py=
for p in python3 /usr/bin/python3; do
    "$p" -c 'from jsonschema import Draft202012Validator' 2>/dev/null && { py=$p; break; }
done
if [ -z "$py" ]; then
    ko "no python3 with jsonschema >= 4 (Debian: python3-jsonschema; tools/setup.sh --test installs it)"
    finish schema
    exit
fi

# The validator. Arguments: KIND:FILE (KIND run or bench); prints "ok FILE" or "FAIL FILE: why"
# for each, the first errors of a file (by path), each on its own line.
cat >"$tmp/validate.py" <<'EOF'
import json, sys
from jsonschema import Draft202012Validator

schemas = {}
for kind in ("run", "bench"):
    path = "schemas/%s.schema.json" % kind
    with open(path) as f:
        s = json.load(f)
    Draft202012Validator.check_schema(s)  # raises SchemaError: the test fails loudly
    schemas[kind] = Draft202012Validator(s)

class Invalid(Exception):
    pass

def no_duplicates(pairs):
    seen = set()
    for k, _ in pairs:
        if k in seen:
            raise Invalid('duplicate key "%s" in the object that starts with "%s"' % (k, pairs[0][0]))
        seen.add(k)
    return dict(pairs)

def no_constant(name):
    raise Invalid("%s is not JSON" % name)

def load(path):
    text = open(path).read()
    try:
        return json.loads(text, object_pairs_hook=no_duplicates, parse_constant=no_constant)
    except json.JSONDecodeError as e:
        line = text.splitlines()[e.lineno - 1] if e.lineno <= len(text.splitlines()) else ""
        raise Invalid("not JSON: %s: ...%s..." % (e, line[max(0, e.colno - 40):e.colno + 20].strip()))

def short(s, n=220):
    return s if len(s) <= n else s[:n] + "..."

for arg in sys.argv[1:]:
    kind, path = arg.split(":", 1)
    try:
        doc = load(path)
    except Invalid as e:
        print("FAIL %s: %s" % (path, e))
        continue
    errors = list(schemas[kind].iter_errors(doc))
    # a failing subschema leaves its properties "unevaluated": report the cause, not the echo
    causes = [e for e in errors if not e.message.startswith("Unevaluated properties")]
    errors = sorted(causes or errors, key=lambda e: [str(p) for p in e.absolute_path])
    if not errors:
        print("ok %s" % path)
        continue
    why = ["/" + "/".join(str(p) for p in e.absolute_path) + ": " + short(e.message) for e in errors[:3]]
    more = " (and %d more)" % (len(errors) - 3) if len(errors) > 3 else ""
    print("FAIL %s (%s schema): %s%s" % (path, kind, "; ".join(why), more))
EOF

# Scenarios that take more than a few seconds, shortened: name and --set options.
shorten() {
    case $1 in
    faults) echo "--set training.steps=100" ;;
    llama3-8b-hybrid) echo "--set training.steps=1 --set parallel.microbatches=4" ;;
    megatron-7.5b) echo "--set cluster.nodes=2 --set parallel.dp=4" ;;
    numerics-faults) echo "--set training.steps=400" ;;
    numerics-lr | tta) echo "--set training.steps=50" ;;
    numerics-shuffle | numerics-split) echo "--set training.steps=100" ;;
    numerics) echo "--set training.steps=200" ;;
    scaling) echo "--set training.steps=1" ;;
    input-store) echo "--set training.steps=5" ;;
    esac
}

# name|scenario|options: every shipped scenario, then the variants.
cases=()
for f in scenarios/*.xml scenarios/ci/*.xml; do
    n=$(basename "$f" .xml)
    [[ $f == scenarios/ci/* ]] && n=ci-$n
    cases+=("$n|$f|$(shorten "$(basename "$f" .xml)")")
done
cases+=("allgather-ring-flow|scenarios/allreduce.xml|--set benchmark.kind=allgather --set benchmark.algo=ring --set benchmark.level=flow --set benchmark.end=1MiB"
    "allreduce-timeout|scenarios/allreduce.xml|--set benchmark.end=1MiB --set benchmark.timeout=1us"
    "p2p-timeout|scenarios/p2p.xml|--set benchmark.end=1MiB --set benchmark.timeout=10ns")

# Run them, as many at once as there are cores; each leaves its exit status in NAME.rc.
run_case() {
    # shellcheck disable=SC2086 # $3, the options: words by design
    "$dmlsim" run "$2" $3 --json "$tmp/$1.json" >"$tmp/$1.out" 2>"$tmp/$1.err"
    echo $? >"$tmp/$1.rc"
}
jobs_max=$(nproc 2>/dev/null || echo 2)
for c in "${cases[@]}"; do
    IFS='|' read -r n f opts <<<"$c"
    while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
    run_case "$n" "$f" "$opts" &
done
wait
args=()
declare -A what # NAME -> "scenario options", for the messages
for c in "${cases[@]}"; do
    IFS='|' read -r n f opts <<<"$c"
    what[$n]="$f${opts:+ $opts}"
    kind=run
    grep -q '<benchmark' "$f" && kind=bench
    rc=$(cat "$tmp/$n.rc" 2>/dev/null)
    case $rc in
    0 | 3 | 4)
        if [ -s "$tmp/$n.json" ]; then
            args+=("$kind:$tmp/$n.json")
        else
            ko "${what[$n]}: exited $rc without writing its JSON"
        fi
        ;;
    *) ko "${what[$n]}: exited ${rc:-?}: $(head -3 "$tmp/$n.err")" ;;
    esac
done

# Every output against its schema.
"$py" "$tmp/validate.py" "${args[@]}" >"$tmp/results" 2>&1 || ko "validator: $(tail -5 "$tmp/results")"
while read -r verdict rest; do
    case $verdict in
    ok) ok ;;
    FAIL)
        n=${rest#"$tmp"/}
        n=${n%%.json*}
        ko "schema: ${what[$n]}: ${rest#"$tmp"/}"
        ;;
    esac
done <"$tmp/results"
[ "$(grep -c '^ok \|^FAIL ' "$tmp/results")" -eq ${#args[@]} ] || ko "schema: not every output was checked"

# The check can fail: broken copies of valid outputs, each to be reported invalid.
main=$tmp/resnet50-ring.json bench=$tmp/allreduce.json
"$py" - "$main" "$bench" "$tmp" <<'EOF' || ko "could not write the broken copies"
import json, sys
main, bench, out = sys.argv[1:]
def broken(src, name, change):
    doc = json.load(open(src))
    change(doc)
    json.dump(doc, open("%s/broken-%s.json" % (out, name), "w"))
broken(main, "missing-summary-key", lambda d: d["summary"].pop("throughput"))
broken(main, "missing-top-key", lambda d: d.pop("steps"))
broken(main, "wrong-type", lambda d: d["steps"][0].update(workers="16"))
broken(main, "unknown-key", lambda d: d["summary"].update(new_metric=1))
broken(main, "unknown-top-key", lambda d: d.update(new_key=1))
broken(main, "bad-enum", lambda d: d.update(strategy="ring"))
broken(main, "negative-time", lambda d: d["summary"].update(time_s=-1))
broken(main, "foreign-config", lambda d: d.update(shards=2))
broken(bench, "bench-missing-status", lambda d: d["rows"][0].pop("status"))
broken(bench, "bench-wrong-type", lambda d: d.update(ranks="16"))
text = open(main).read()
open(out + "/broken-inf.json", "w").write(text.replace('"time_s": ', '"time_s": inf, "x": ', 1))
open(out + "/broken-nan.json", "w").write(text.replace('"mfu": 0', '"mfu": NaN', 1))
open(out + "/broken-duplicate.json", "w").write(text.replace('"model":', '"model": "x",\n  "model":', 1))
EOF
broken=()
for f in "$tmp"/broken-*.json; do
    kind=run
    [[ $f == */broken-bench-* ]] && kind=bench
    broken+=("$kind:$f")
done
"$py" "$tmp/validate.py" "${broken[@]}" >"$tmp/broken" 2>&1 || ko "validator: $(tail -5 "$tmp/broken")"
[ "$(grep -c . "$tmp/broken")" -eq ${#broken[@]} ] && [ ${#broken[@]} -eq 13 ] && ok ||
    ko "broken copies: expected 13 verdicts, got $(grep -c . "$tmp/broken")"
# ... for the reason its breakage gives
reason() {
    case $1 in
    missing-summary-key) echo "'throughput' is a required property" ;;
    missing-top-key) echo "'steps' is a required property" ;;
    wrong-type) echo "/steps/0/workers: '16' is not of type 'integer'" ;;
    unknown-key) echo "('new_metric' was unexpected)" ;;
    unknown-top-key) echo "('new_key' was unexpected)" ;;
    bad-enum) echo "/strategy: 'ring' is not one of" ;;
    negative-time) echo "/summary/time_s: -1 is less than the minimum of 0" ;;
    foreign-config) echo "('shards' was unexpected)" ;;
    bench-missing-status) echo "/rows/0: 'status' is a required property" ;;
    bench-wrong-type) echo "/ranks: '16' is not of type 'integer'" ;;
    inf) echo "not JSON" ;;
    nan) echo "NaN is not JSON" ;;
    duplicate) echo 'duplicate key "model"' ;;
    esac
}
while read -r verdict rest; do
    name=${rest#"$tmp"/broken-}
    name=${name%%.json*}
    why=$(reason "$name")
    if [ "$verdict" = ok ]; then
        ko "schema: a broken JSON was accepted: broken-$name.json"
    elif [ -z "$why" ] || [[ $rest != *"$why"* ]]; then
        ko "schema: broken-$name.json: expected \"$why\", got: ${rest#"$tmp"/}"
    else
        ok
    fi
done <"$tmp/broken"

finish schema
