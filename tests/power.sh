#!/usr/bin/env bash
# power.sh - GPU activity and power through whole runs (run_power.h, power.h), against closed
# forms computed here from the run's own JSON rows:
#   - the seed notes' GPU (an A100 at GPU-Util 87%, 143 W of 400 W, launch-bound): ResNet-50 at
#     batch 2 issued eagerly waits for the CPU; on one GPU with no collective GPU-Util is exactly
#     1 - host_wait_fraction, and the power is low (under 40% of TDP) although GPU-Util is high;
#   - a data-parallel step whose all-reduce is exposed (overlap off, 25 Gb/s TCP): NCCL's kernels
#     occupy the GPU while they wait on the network, so each step's GPU-Util is
#     (compute x (1 - host wait) + (time - compute)) / time, not compute / time;
#   - energy = gpu_power_w x GPUs x run time.
#   tests/power.sh PATH/TO/dmlsim
set -u
dmlsim=${1:?usage: power.sh PATH/TO/dmlsim}
. "$(dirname "$0")/lib.sh"

# run NAME NODES NIC HOST OVERLAP BATCH: writes $tmp/NAME.json
run() {
    local nic=""
    [ "$2" -gt 1 ] && nic=" nic=\"$3\""
    cat >"$tmp/$1.xml" <<XML
<scenario name="$1">
  <cluster nodes="$2" gpus-per-node="1" gpu="a100"$nic/>
  <model preset="resnet50"/>
  <training strategy="allreduce" batch-per-gpu="$6" steps="2" dtype="bf16" amp="autocast"
            host="$4" overlap="$5"/>
</scenario>
XML
    "$dmlsim" run "$tmp/$1.xml" --json "$tmp/$1.json" >"$tmp/$1.txt"
}

# check NAME: python3 reads the JSON and exits 1 with a message when the closed form fails
check() {
    python3 - "$tmp/$1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); s = d["summary"]
hw, util, p, tdp = s["host_wait_fraction"], s["gpu_util"], s["gpu_power_w"], s["gpu_tdp_w"]
bad = []
for e in d["steps"]:
    c, t = e["compute_s"], e["time_s"]
    want = (c * (1 - hw) + max(0.0, t - c)) / t  # compute kernels + NCCL in flight
    if abs(e["gpu_util"] - want) > 1e-6:
        bad.append("step %d: gpu_util %.9f, expected %.9f" % (e["step"], e["gpu_util"], want))
energy = p * s["workers"] * s["time_s"]
if abs(s["gpu_energy_j"] - energy) > 1e-6 * energy:
    bad.append("gpu_energy_j %.6f, expected %.6f" % (s["gpu_energy_j"], energy))
if tdp != 400:
    bad.append("A100 SXM TDP %g, expected 400 W (datasheet)" % tdp)
if bad: print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
}

field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"][sys.argv[2]])' "$tmp/$1.json" "$2"; }

# The seed notes' GPU: launch-bound, one GPU
run eager 1 - eager yes 2 && check eager && ok || ko "launch-bound A100: closed forms"
u=$(field eager gpu_util); hw=$(field eager host_wait_fraction); f=$(field eager gpu_power_fraction)
awk -v u="$u" -v hw="$hw" -v f="$f" 'BEGIN { exit !(u >= 0.6 && (u - (1 - hw))^2 < 1e-12 && f < 0.4) }' &&
    ok || ko "launch-bound A100: GPU-Util $u must be 1 - host wait ($hw) and >= 60%, power $f of TDP < 40%"
grep -q '^#   gpu activity     GPU-Util [0-9.]*%, SM activity [0-9.]*%, power [0-9]* W of 400 W TDP ([0-9]*%)$' \
    "$tmp/eager.txt" && ok || ko "the text summary's gpu activity line"

# A data-parallel step with its all-reduce exposed: NCCL's kernels count for GPU-Util
run dp 2 tcp-25g graphs no 8 && check dp && ok || ko "exposed all-reduce: closed forms"
python3 - "$tmp/dp.json" <<'PY' && ok || ko "exposed all-reduce: GPU-Util must exceed compute / time by the collective"
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if all(e["gpu_util"] > e["compute_s"] / e["time_s"] + 0.5 for e in d["steps"]) else 1)
PY

# Per-GPU trace counters: each GPU's "gpu R util (%)" and "gpu R power W" from its step's start;
# the two GPUs are alike, so each step's values are the step row's (x 100 for the percentage)
"$dmlsim" run "$tmp/dp.xml" --trace "$tmp/dp.trace.json" >/dev/null &&
python3 - "$tmp/dp.json" "$tmp/dp.trace.json" <<'PY' && ok || ko "per-GPU trace counters must carry each step's GPU-Util and power"
import json, sys
steps = json.load(open(sys.argv[1]))["steps"]
tr = json.load(open(sys.argv[2]))
ev = tr["traceEvents"] if isinstance(tr, dict) else tr
bad = 0
for g in (0, 1):
    u = [e for e in ev if e.get("ph") == "C" and e["name"] == "gpu %d util (%%)" % g]
    p = [e for e in ev if e.get("ph") == "C" and e["name"] == "gpu %d power W" % g]
    if len(u) != len(steps) or len(p) != len(steps):
        bad += 1
        continue
    for e, s, q in zip(u, steps, p):
        t0 = (s["t_s"] - s["time_s"]) * 1e6  # trace time in us
        bad += abs(e["ts"] - t0) > 1e-3 or abs(e["args"]["value"] - 100 * s["gpu_util"]) > 1e-6
        bad += abs(q["args"]["value"] - s["power_w"]) > 1e-6
sys.exit(1 if bad else 0)
PY

finish power
