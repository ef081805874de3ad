#!/usr/bin/env bash
# sweep.sh - a sweep keeps its points (issue 35): a failed point is a row with its status and
# message, the others keep theirs, and the sweep exits non-zero at the end; its --csv and --json
# hold the text table's values; -j 2 gives the bytes -j 1 gives.
#   - a CI scenario with <expect> (scenarios/ci/ring-ckpt-sync.xml: 8 steps, <expect
#     checkpoints=4>) swept over checkpoint.every to plan a checkpoint period: every k steps
#     gives floor(8 / k) checkpoints (a checkpoint at steps k, 2k, ... <= 8), so k = 2 passes,
#     k = 1 (8) and k = 4 (2) fail their <expect> with their values kept, and a value the
#     scenario refuses ("a,b": a comma inside a value, \, on the command line) is a row without
#     values; exit 1 (a refused point), 3 (only failed <expect>s), 0 (none);
#   - the CSV (RFC 4180, read by python3's csv module) and the JSON (strict: no NaN, no
#     duplicate key; schemas/sweep.schema.json, Draft 2020-12) against the text table, field by
#     field; broken copies of the JSON reported invalid;
#   - -j 1 and -j 2: the text, the CSV and the JSON byte for byte.
# usage: tests/sweep.sh PATH/TO/dmlsim   (run from the repository root)
set -u
dmlsim=${1:?usage: sweep.sh PATH/TO/dmlsim}
. "$(dirname "$0")/lib.sh"

sc=scenarios/ci/ring-ckpt-sync.xml
# (the refused point second: it ends before the first, so -j 2 sees them end out of order)
grid=(--set 'checkpoint.every=1 steps,a\,b,2 steps,4 steps')
for j in 1 2; do
    "$dmlsim" sweep "$sc" "${grid[@]}" -j $j -o "$tmp/t$j.txt" --csv "$tmp/t$j.csv" \
        --json "$tmp/t$j.json" >"$tmp/out$j" 2>"$tmp/err$j"
    echo $? >"$tmp/rc$j"
done
[ "$(cat "$tmp/rc1")" = 1 ] && [ "$(cat "$tmp/rc2")" = 1 ] && ok ||
    ko "a sweep with a refused point must exit 1 at the end: $(cat "$tmp/rc1") $(cat "$tmp/rc2")"
for f in t1.txt t1.csv t1.json; do
    cmp -s "$tmp/$f" "$tmp/${f/1/2}" && ok || ko "-j 1 and -j 2 give other $f: $(diff "$tmp/$f" "$tmp/${f/1/2}" | head -4)"
done
cmp -s "$tmp/t1.txt" "$tmp/out1" && ok || ko "-o differs from the standard output"
[ "$(grep -c 'dmlsim sweep: point [124] failed' "$tmp/err1")" -eq 3 ] && ok ||
    ko "each failed point must be named on stderr: $(cat "$tmp/err1")"

# The text table: 4 rows, each point's status; the ok and expect-failed rows keep their values,
# the refused one has "-" for each; the failed <expect> gives floor(8 / k) checkpoints.
awk '!/^#/' "$tmp/t1.txt" >"$tmp/rows"
[ "$(wc -l <"$tmp/rows")" -eq 4 ] && ok || ko "expected 4 rows: $(cat "$tmp/t1.txt")"
for k in 1 2 4; do
    row=$(grep -E "^ +$k steps " "$tmp/rows")
    n=$((8 / k))
    if [ $k = 2 ]; then
        [[ $row =~ [0-9]\ +ok$ ]] && ok || ko "every 2 steps: expected ok: $row"
    else
        [[ $row == *" expect-failed expect checkpoints in [4, 4]: $n FAILED ($sc:13) (+1 more failed)" ]] &&
            ok || ko "every $k steps: expected its failed <expect> with $n checkpoints: $row"
    fi
    # gpus 4, batch 64 (16 per GPU x 4): the values kept
    [[ $row =~ ^\ +$k\ steps\ +4\ +64\  ]] && ok || ko "every $k steps: its values are not kept: $row"
done
row=$(grep -E '^ +a,b ' "$tmp/rows")
[[ $row =~ ^\ +a,b(\ +-){11}\ +refused\ $sc:12:\ \<checkpoint\ every=\"a,b\"\>:\ expected ]] && ok ||
    ko "the refused point: expected 11 dashes, refused, and its FILE:LINE message: $row"

# The other exit statuses: only failed <expect>s 3, none 0.
"$dmlsim" sweep "$sc" --set 'checkpoint.every=1 steps,2 steps' -j 2 >/dev/null 2>&1
[ $? -eq 3 ] && ok || ko "only failed <expect>s: expected exit 3"
"$dmlsim" sweep "$sc" --set 'checkpoint.every=2 steps' --set training.gpus=4 >"$tmp/good" 2>&1
[ $? -eq 0 ] && ok || ko "every point ok: expected exit 0: $(cat "$tmp/good")"

# CSV and JSON against the text table, field by field, and the JSON against its schema.
py=
for p in python3 /usr/bin/python3; do
    "$p" -c 'from jsonschema import Draft202012Validator' 2>/dev/null && { py=$p; break; }
done
if [ -z "$py" ]; then
    ko "no python3 with jsonschema >= 4 (Debian: python3-jsonschema)"
    finish sweep
    exit
fi
cat >"$tmp/check.py" <<'PY'
import csv, json, sys
from jsonschema import Draft202012Validator
txt, csvf, jsonf, axes = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split()
schema = json.load(open("schemas/sweep.schema.json"))
Draft202012Validator.check_schema(schema)
def strict(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)): raise SystemExit("duplicate key in " + str(keys))
    return dict(pairs)
def no_constant(c): raise SystemExit(c + " is not JSON")
doc = json.load(open(jsonf), object_pairs_hook=strict, parse_constant=no_constant)
errors = list(Draft202012Validator(schema).iter_errors(doc))
if errors: raise SystemExit("schema: " + errors[0].message)
rows = list(csv.reader(open(csvf, newline="")))
head, body = rows[0], rows[1:]
lines = [l.rstrip("\n") for l in open(txt)]
cols = lines[1][1:].split()  # "# AXES... COLUMNS... status message"
multi = [a for a in axes if a in cols]
metrics = cols[len(multi):-2]
want = axes + metrics + ["status", "message"]
if head != want: raise SystemExit("CSV header %s; expected %s" % (head, want))
data = [l for l in lines if not l.startswith("#")]
if not (len(body) == len(data) == len(doc)): raise SystemExit("row counts differ")
for r, line, obj in zip(body, data, doc):
    if len(r) != len(head): raise SystemExit("CSV row of %d fields: %s" % (len(r), r))
    if list(obj.keys()) != head: raise SystemExit("JSON keys %s" % list(obj.keys()))
    # the text row: one blank, a 24-column field per axis of several values, then the summary
    rest = line[1 + 24 * len(multi):].split(None, len(metrics) + 1)
    vals, status, msg = rest[:len(metrics)], rest[len(metrics)], (rest[len(metrics) + 1:] or [""])[0]
    for i, a in enumerate(multi):
        if line[1 + 24 * i:25 + 24 * i].strip() != r[head.index(a)]: raise SystemExit("axis %s" % a)
    for a in axes:
        if obj[a] != r[head.index(a)]: raise SystemExit("JSON axis %s: %r" % (a, obj[a]))
    for m, v in zip(metrics, vals):
        c, j = r[head.index(m)], obj[m]
        if v == "-":
            if c != "" or j is not None: raise SystemExit("%s: %r %r for '-'" % (m, c, j))
        elif c != v or j is None or float(v) != j: raise SystemExit("%s: text %s, CSV %s, JSON %r" % (m, v, c, j))
    if (r[-2], r[-1]) != (status, msg) or (obj["status"], obj["message"]) != (status, msg):
        raise SystemExit("status/message: text %r %r, CSV %r, JSON %r" % (status, msg, r[-2:], [obj["status"], obj["message"]]))
print("ok")
PY
"$py" "$tmp/check.py" "$tmp/t1.txt" "$tmp/t1.csv" "$tmp/t1.json" checkpoint.every >"$tmp/chk" 2>&1 &&
    ok || ko "CSV/JSON against the text table: $(cat "$tmp/chk")"
"$py" "$tmp/check.py" "$tmp/good" /dev/null /dev/null "checkpoint.every training.gpus" >/dev/null 2>&1 &&
    ko "the check must fail on an empty CSV" || ok
# two axes, one of them fixed: it has a CSV column, not a text one
"$dmlsim" sweep "$sc" --set 'checkpoint.every=2 steps,4 steps' --set training.gpus=4 -o "$tmp/f.txt" \
    --csv "$tmp/f.csv" --json "$tmp/f.json" >/dev/null 2>&1
"$py" "$tmp/check.py" "$tmp/f.txt" "$tmp/f.csv" "$tmp/f.json" "checkpoint.every training.gpus" \
    >"$tmp/chk" 2>&1 && ok || ko "two axes, one fixed: $(cat "$tmp/chk")"
# the CSV quotes the value with a comma and the message with quotes (RFC 4180)
grep -qF '"a,b",,,,,,,,,,,,refused,"'"$sc"':12: <checkpoint every=""a,b"">: expected' "$tmp/t1.csv" && ok ||
    ko "CSV quoting: $(grep refused "$tmp/t1.csv")"

# Broken copies of the JSON: each reported invalid by the schema.
"$py" - "$tmp/t1.json" <<'PY' >"$tmp/broken" 2>&1 || ko "broken copies: $(cat "$tmp/broken")"
import copy, json, sys
from jsonschema import Draft202012Validator
v = Draft202012Validator(json.load(open("schemas/sweep.schema.json")))
doc = json.load(open(sys.argv[1]))
def broken(name, change):
    d = copy.deepcopy(doc); change(d)
    if v.is_valid(d): print("valid: " + name)
broken("no status", lambda d: d[0].pop("status"))
broken("bad status", lambda d: d[2].update(status="fine"))
broken("metric as text", lambda d: d[2].update(step_ms="9.9"))
broken("axis as number", lambda d: d[2].update({"checkpoint.every": 2}))
broken("ok with a message", lambda d: d[2].update(message="x"))
broken("failed without a message", lambda d: d[1].update(message=""))
broken("not an array", lambda d: d.__setitem__(slice(None), []) or d.append({"x": 1}))
PY
[ ! -s "$tmp/broken" ] && ok || ko "broken JSON accepted: $(cat "$tmp/broken")"
finish sweep
