#!/bin/bash
# metrics.sh - the documents that list the metrics are generated from the metric tables (metric.h,
# sim/strategy/*_metrics.c) and must not drift from them (issue 30):
#   - schemas/run.schema.json ends with `dmlsim metrics schema` (its $defs metricName,
#     metricFamily and metricValues), byte for byte;
#   - docs/outputs.md's table, between the lines <!-- metrics:begin --> and <!-- metrics:end -->, is
#     `dmlsim metrics markdown`, byte for byte. A README without the markers is reported, not
#     failed (the table is checked once they are there).
# tools/metrics.sh rewrites both after a change of a table.
# usage: tests/metrics.sh PATH/TO/dmlsim   (run from the repository root)
set -u
dmlsim=${1:?usage: metrics.sh PATH/TO/dmlsim}
. "$(dirname "$0")/lib.sh"

schema=schemas/run.schema.json
"$dmlsim" metrics schema >"$tmp/schema" || ko "dmlsim metrics schema: exit $?"
sed -n '/^    "metricName": {$/,$p' "$schema" >"$tmp/tail"
if [ ! -s "$tmp/tail" ]; then
    ko "$schema has no \$defs metricName (tools/metrics.sh writes it)"
elif cmp -s "$tmp/schema" "$tmp/tail"; then
    ok
else
    ko "$schema differs from the metric tables (intended? tools/metrics.sh $dmlsim):"
    diff -u "$tmp/tail" "$tmp/schema" | head -20
fi
# the check can fail: a row the schema lacks, or a changed meaning, is drift
sed '/"steps_to_accuracy": {/d' "$tmp/tail" >"$tmp/broken"
cmp -s "$tmp/schema" "$tmp/broken" && ko "a schema without a row compares equal" || ok

"$dmlsim" metrics markdown >"$tmp/md" || ko "dmlsim metrics markdown: exit $?"
"$dmlsim" metrics >"$tmp/text" || ko "dmlsim metrics: exit $?"
[ "$(sed '1d;$d' "$tmp/md")" = "$(cat "$tmp/text")" ] && ok || ko "markdown is not the text listing in a fenced block"
"$dmlsim" metrics nonesuch >/dev/null 2>&1 && ko "dmlsim metrics nonesuch: exit 0" || ok
begin=$(grep -c '^<!-- metrics:begin -->$' docs/outputs.md)
end=$(grep -c '^<!-- metrics:end -->$' docs/outputs.md)
if [ "$begin" != 1 ] || [ "$end" != 1 ]; then
    ko "docs/outputs.md: expected one <!-- metrics:begin --> and one <!-- metrics:end --> line"
else
    sed -n '/^<!-- metrics:begin -->$/,/^<!-- metrics:end -->$/p' docs/outputs.md | sed '1d;$d' >"$tmp/readme"
    if cmp -s "$tmp/md" "$tmp/readme"; then
        ok
    else
        ko "docs/outputs.md's metric table differs from the metric tables (intended? tools/metrics.sh $dmlsim):"
        diff -u "$tmp/readme" "$tmp/md" | head -20
    fi
fi
finish metrics
