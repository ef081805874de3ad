#!/bin/bash
# import.sh - `dmlsim import megatron|hf` (issue 35, item 8). The arguments of Megatron-LM's
# example scripts (tests/data/megatron/*.args, their sources in their comments) and the Hugging
# Face configs of the shipped presets (tests/data/hf/*.json, SOURCES.md) are imported; each
# scenario is read by `dmlsim run --memory-only` (and one by `dmlsim plan`), and the parameters
# it prints equal (1) those of the preset's own scenario and (2) a closed form written here.
# Then bad inputs: one line on stderr each, exit 1. Deterministic: the same input, the same bytes.
# usage: import.sh DMLSIM   (run from the source tree's root)
dmlsim=${1:-build/dmlsim}
. "$(dirname "$0")/lib.sh"
meg=tests/data/megatron
hf=tests/data/hf

# Closed forms of the parameter count (no dmlsim code):
# Llama-style (SwiGLU, RMSNorm, no biases, untied head), E experts (0: dense) with a router:
#   V h (embedding) + V h (output head) + h (final norm)
#   + L [ h (h + 2 kv d) (QKV, d = h / a) + h^2 (output) + max(E,1) 3 h f (MLP) + E h (router)
#         + 2 h (two norms) ]
llama_params() { # L h a kv f V E
    local L=$1 h=$2 a=$3 kv=$4 f=$5 V=$6 E=$7 d=$(($2 / $3))
    local mlps=$((E > 0 ? E : 1))
    echo $((2 * V * h + h + L * (h * (h + 2 * kv * d) + h * h + mlps * 3 * h * f + E * h + 2 * h)))
}
# GPT-style (GELU MLP of 4h, biases, LayerNorm, learned positions, tied head): V h + s h
#   + L (12 h^2 + 13 h) (QKV 3h^2 + 3h, output h^2 + h, MLP 8h^2 + 5h, two LayerNorms 4h)
#   + 2 h (final LayerNorm)
gpt_params() { # L h V s
    local L=$1 h=$2 V=$3 s=$4
    echo $((V * h + s * h + L * (12 * h * h + 13 * h) + 2 * h))
}

# The parameters `dmlsim run --memory-only` prints for scenario $1 (empty if it failed to read).
params_of() {
    "$dmlsim" run --memory-only "$1" 2>"$tmp/mem.err" | sed -n 's/^# model  *[^:]*: \([0-9]*\) parameters$/\1/p'
}

# The parameters of preset $1's own scenario (its default sequence length).
preset_params() {
    cat >"$tmp/preset.xml" <<XML
<scenario name="preset" seed="1">
  <cluster nodes="8" gpus-per-node="8" gpu="h100" nic="ib-ndr" nics-per-node="8"/>
  <model preset="$1"/>
  <training strategy="hybrid" batch-per-gpu="1" dtype="bf16" optimizer="adam">
    <parallel tp="8" pp="1" dp="8" microbatches="1" recompute="full"/>
  </training>
</scenario>
XML
    params_of "$tmp/preset.xml"
}

# check NAME XML PRESET EXPECTED: the imported XML names PRESET, is read, and has EXPECTED
# parameters, as PRESET's own scenario has (PRESET "gpt": the closed form only).
check() {
    local name=$1 xml=$2 preset=$3 want=$4 got own
    grep -q "<model preset=\"$preset\"" "$xml" && ok || ko "$name: not preset $preset: $(grep '<model' "$xml")"
    got=$(params_of "$xml")
    [ -n "$got" ] && ok || ko "$name: dmlsim run --memory-only did not read it: $(head -1 "$tmp/mem.err")"
    [ "$got" = "$want" ] && ok || ko "$name: $got parameters, the closed form says $want"
    [ "$preset" = gpt ] && return
    own=$(preset_params "$preset")
    [ "$got" = "$own" ] && ok || ko "$name: $got parameters, preset $preset's scenario $own"
}

# import_meg NAME GPUS: imports tests/data/megatron/NAME.args (comments dropped) into $tmp/NAME.xml
import_meg() {
    local gpus=()
    [ -n "$2" ] && gpus=(--gpus "$2")
    "$dmlsim" import megatron "${gpus[@]}" -o "$tmp/$1.xml" -- $(grep -v '^#' "$meg/$1.args") \
        2>"$tmp/$1.err" && ok || ko "$1: import failed: $(cat "$tmp/$1.err")"
}

# --- Megatron-LM's examples --------------------------------------------------------------
import_meg gpt3-175b 128
check gpt3-175b "$tmp/gpt3-175b.xml" gpt3-175b "$(gpt_params 96 12288 50257 2048)"
grep -q 'tp="8" pp="16" dp="1" microbatches="1536"' "$tmp/gpt3-175b.xml" && ok ||
    ko "gpt3-175b: layout: $(grep '<parallel' "$tmp/gpt3-175b.xml")"
grep -q 'dtype="fp16"' "$tmp/gpt3-175b.xml" && ok || ko "gpt3-175b: not fp16"
# what does not change the simulation is listed, in one line
[ "$(wc -l <"$tmp/gpt3-175b.err")" -eq 1 ] && grep -q -- '--lr 6.0e-5' "$tmp/gpt3-175b.err" &&
    ! grep -q -- '--num-layers' "$tmp/gpt3-175b.err" && ok ||
    ko "gpt3-175b: ignored arguments: $(cat "$tmp/gpt3-175b.err")"

import_meg llama3-8b ""   # torchrun's --nproc_per_node 8 --nnodes 1 give the world
check llama3-8b "$tmp/llama3-8b.xml" llama3-8b "$(llama_params 32 4096 32 8 14336 128256 0)"
# 128 sequences = dp 8 x 16 microbatches of 1; the distributed optimizer is ZeRO-1; FP8; SP
# dropped at tp 1 as Megatron-LM drops it
grep -q 'tp="1" pp="1" dp="8" microbatches="16"' "$tmp/llama3-8b.xml" &&
    grep -q 'zero="1" recompute="none" overlap-grad-reduce="yes" overlap-param-gather="yes"/>' \
        "$tmp/llama3-8b.xml" && grep -q 'dtype="fp8"' "$tmp/llama3-8b.xml" && ok ||
    ko "llama3-8b: training: $(grep -A2 '<training' "$tmp/llama3-8b.xml")"

import_meg mixtral-8x7b 32
check mixtral-8x7b "$tmp/mixtral-8x7b.xml" mixtral-8x7b "$(llama_params 32 4096 32 8 14336 32000 8)"
grep -q 'tp="1" pp="4" dp="8" ep="8" microbatches="32"' "$tmp/mixtral-8x7b.xml" && ok ||
    ko "mixtral-8x7b: layout: $(grep '<parallel' "$tmp/mixtral-8x7b.xml")"

import_meg gpt-145b-sc21 1536
check gpt-145b-sc21 "$tmp/gpt-145b-sc21.xml" gpt "$(gpt_params 80 12288 50257 2048)"
# 2304 = 24 replicas x 48 microbatches of 2; 10 layers a stage in chunks of 5: 2 virtual stages
grep -q 'tp="8" pp="8" dp="24" microbatches="48" schedule="interleaved" virtual-stages="2"' \
    "$tmp/gpt-145b-sc21.xml" && grep -q 'recompute="full"' "$tmp/gpt-145b-sc21.xml" && ok ||
    ko "gpt-145b-sc21: layout: $(grep -A1 '<parallel' "$tmp/gpt-145b-sc21.xml")"

# --- Hugging Face configs -----------------------------------------------------------------
import_hf() { # FILE PRESET EXPECTED
    local name
    name=$(basename "$1" .json)
    "$dmlsim" import hf --gpus 64 -o "$tmp/hf-$name.xml" "$1" 2>"$tmp/hf-$name.err" && ok ||
        ko "hf $name: import failed: $(cat "$tmp/hf-$name.err")"
    check "hf $name" "$tmp/hf-$name.xml" "$2" "$3"
}
import_hf $hf/llama3-8b.json llama3-8b "$(llama_params 32 4096 32 8 14336 128256 0)"
import_hf $hf/llama3-70b.json llama3-70b "$(llama_params 80 8192 64 8 28672 128256 0)"
import_hf $hf/llama3.1-405b.json llama3-405b "$(llama_params 126 16384 128 8 53248 128256 0)"
import_hf $hf/mixtral-8x7b.json mixtral-8x7b "$(llama_params 32 4096 32 8 14336 32000 8)"
import_hf $hf/gpt2.json gpt "$(gpt_params 12 768 50257 1024)"
# Llama 3.1's pre-training context, not its extended one
grep -q 'seq="8192"' "$tmp/hf-llama3.1-405b.xml" && ok || ko "405b: seq: $(grep '<model' "$tmp/hf-llama3.1-405b.xml")"
# dmlsim plan takes an imported scenario
"$dmlsim" plan --estimate-only -o "$tmp/plan" "$tmp/hf-llama3-8b.xml" >"$tmp/plan.out" 2>&1 &&
    grep -q 'rank-1.xml' "$tmp/plan.out" && ok || ko "plan of an import: $(tail -2 "$tmp/plan.out")"
# deterministic
"$dmlsim" import hf --gpus 64 "$hf/mixtral-8x7b.json" 2>/dev/null | cmp -s - "$tmp/hf-mixtral-8x7b.xml" &&
    ok || ko "hf import: not the same bytes twice"

# --- bad inputs: exit 1 and one line on stderr, with what was expected -------------------
# bad WHAT EXPECTED-TEXT -- ARGS...: `dmlsim ARGS` fails so
bad() {
    local what=$1 want=$2
    shift 3
    "$dmlsim" "$@" >"$tmp/bad.out" 2>"$tmp/bad.err"
    local rc=$? lines
    lines=$(wc -l <"$tmp/bad.err")
    [ "$rc" -eq 1 ] && [ "$lines" -eq 1 ] && grep -qF -- "$want" "$tmp/bad.err" &&
        [ ! -s "$tmp/bad.out" ] && ok ||
        ko "$what: rc $rc, $lines line(s): $(cat "$tmp/bad.err")"
}
L8=$(grep -v '^#' $meg/llama3-8b.args)
MX=$(grep -v '^#' $meg/mixtral-8x7b.args)
G3=$(grep -v '^#' $meg/gpt3-175b.args)
base=(--num-layers 4 --hidden-size 256 --num-attention-heads 8 --seq-length 512 --vocab-size 1000)
bad "no world size" "expected --gpus N" -- import megatron -- "${base[@]}"
bad "world disagrees" "--gpus 16 but --nnodes x --nproc-per-node is 8" -- \
    import megatron --gpus 16 -- $L8
bad "ep over dp" "--expert-model-parallel-size 8: expected it to divide --num-experts (8) and the 2 data-parallel replicas" -- \
    import megatron --gpus 8 -- $MX
bad "world over tp x pp" "120 GPUs are not a multiple of tp 8 x pp 16 x cp 1" -- \
    import megatron --gpus 120 -- $G3
bad "bf16 and fp16" "both --bf16 and --fp16" -- import megatron --gpus 8 -- "${base[@]}" --bf16 --fp16
bad "groups without gqa" "--num-query-groups 2 without --group-query-attention" -- \
    import megatron --gpus 8 -- "${base[@]}" --num-query-groups 2
bad "global batch" "--global-batch-size 12 is not a multiple of micro-batch 1 x 8" -- \
    import megatron --gpus 8 -- "${base[@]}" --global-batch-size 12
bad "hidden over heads" "--hidden-size 250 is not a multiple of --num-attention-heads 8" -- \
    import megatron --gpus 8 -- --num-layers 4 --hidden-size 250 --num-attention-heads 8 \
    --seq-length 512 --vocab-size 1000
bad "layers over pp" "--num-layers 4 is not a multiple of --pipeline-model-parallel-size 3" -- \
    import megatron --gpus 3 -- "${base[@]}" --pipeline-model-parallel-size 3
bad "vocabulary unknown" "expected --vocab-size N" -- import megatron --gpus 8 -- \
    --num-layers 4 --hidden-size 256 --num-attention-heads 8 --seq-length 512 \
    --tokenizer-type HuggingFaceTokenizer
bad "not an integer" "--num-layers 'x': expected a positive integer" -- \
    import megatron --gpus 8 -- --num-layers x
bad "missing model" "no --num-layers" -- import megatron --gpus 8 -- --hidden-size 256
bad "swiglu shape of no preset" "is none of the SwiGLU presets (llama3-8b, llama3-70b, llama3-405b, mixtral-8x7b)" -- \
    import megatron -- $L8 --num-layers 16
bad "gqa without swiglu" "a GELU model with grouped-query attention" -- \
    import megatron --gpus 8 -- "${base[@]}" --group-query-attention --num-query-groups 2
bad "tied swiglu" "a SwiGLU model with its output head tied" -- \
    import megatron --gpus 8 -- "${base[@]}" --swiglu --disable-bias-linear --normalization RMSNorm
bad "overlap-param-gather alone" "--overlap-param-gather without --use-distributed-optimizer" -- \
    import megatron --gpus 8 -- "${base[@]}" --overlap-param-gather
bad "unknown source" "unknown source 'deepspeed'; expected megatron or hf" -- import deepspeed x
bad "hf two files" "import hf takes one config.json" -- import hf a.json b.json

# Hugging Face: strict JSON, FILE:LINE
j=$tmp/bad.json
printf '{\n  "model_type": "llama",\n  "hidden_size": 4096,\n}\n' >"$j"
bad "trailing comma" "$j:4: a trailing ','" -- import hf "$j"
printf '{\n  "a": 1,\n  "a": 2\n}\n' >"$j"
bad "duplicate key" "$j:3: member \"a\" given twice" -- import hf "$j"
printf '{\n  // a comment\n}\n' >"$j"
bad "comment" "$j:2: '/' in an object; expected a member name in double quotes" -- import hf "$j"
printf '{"x": NaN}\n' >"$j"
bad "NaN" "$j:1: not a value" -- import hf "$j"
printf '{"x": 1} 2\n' >"$j"
bad "after the top value" "$j:1: '2' after the top value" -- import hf "$j"
printf '[1, 2]\n' >"$j"
bad "not an object" "$j:1: the top value is not an object" -- import hf "$j"
printf '{"x": "abc\n' >"$j"
bad "unterminated string" "$j:1: a control character inside a string" -- import hf "$j"
sed 's/"hidden_size": 4096/"hidden_size": "4096"/' $hf/llama3-8b.json >"$j"
bad "string for a number" "$j:10: \"hidden_size\": expected a positive integer" -- import hf "$j"
grep -v '"num_hidden_layers"' $hf/llama3-8b.json >"$j"
bad "missing key" "$j:1: no \"num_hidden_layers\"" -- import hf "$j"
sed 's/"model_type": "llama"/"model_type": "falcon"/' $hf/llama3-8b.json >"$j"
bad "unknown model_type" "$j:14: \"model_type\": \"falcon\": expected llama, mistral, mixtral or gpt2" -- \
    import hf "$j"
sed 's/"tie_word_embeddings": false/"tie_word_embeddings": true/' $hf/llama3-8b.json >"$j"
bad "tied llama" "a SwiGLU model with its output head tied to the embedding" -- import hf "$j"
bad "missing file" "$tmp/none.json:0: cannot open" -- import hf "$tmp/none.json"

finish import
