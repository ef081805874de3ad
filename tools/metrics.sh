#!/bin/bash
# metrics.sh - writes the documents that list the metrics from the metric tables (issue 30): the
# end of schemas/run.schema.json (from its $defs metricName line: `dmlsim metrics schema`) and
# docs/outputs.md's table between <!-- metrics:begin --> and <!-- metrics:end --> (`dmlsim metrics
# markdown`). tests/metrics.sh checks that neither drifts. Review the diff before committing.
# usage: tools/metrics.sh PATH/TO/dmlsim   (run from the repository root)
set -euo pipefail
dmlsim=${1:?usage: tools/metrics.sh PATH/TO/dmlsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

schema=schemas/run.schema.json
grep -q '^    "metricName": {$' "$schema" || { echo "metrics: $schema has no \$defs metricName line" >&2; exit 1; }
sed '/^    "metricName": {$/,$d' "$schema" >"$tmp/schema"
"$dmlsim" metrics schema >>"$tmp/schema"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/schema"
cp "$tmp/schema" "$schema"
echo "metrics: wrote the end of $schema"

if grep -q '^<!-- metrics:begin -->$' docs/outputs.md && grep -q '^<!-- metrics:end -->$' docs/outputs.md; then
    "$dmlsim" metrics markdown >"$tmp/md"
    awk -v md="$tmp/md" '/^<!-- metrics:end -->$/ { skip = 0 }
        !skip { print }
        /^<!-- metrics:begin -->$/ { while ((getline l < md) > 0) print l; skip = 1 }' docs/outputs.md >"$tmp/readme"
    cp "$tmp/readme" docs/outputs.md
    echo "metrics: wrote docs/outputs.md's table"
else
    echo "metrics: docs/outputs.md has no <!-- metrics:begin --> / <!-- metrics:end --> lines: its table is not written"
fi
