#!/usr/bin/env python3
"""torch-bench.py - single-GPU training throughput of the workloads dmlsim compares with, as the
frameworks run them (PyTorch eager, synthetic data so that no loader bounds them), on the local GPU.

An independent measurement for dmlsim's compute model (README, Compute): ResNet-50 v1.5 as
NVIDIA DeepLearningExamples trains it (SGD with momentum, cuDNN autotuning, channels-last under
AMP), BERT-large phase-1 pre-training (sequence 128, masked LM and next-sentence heads, AdamW),
and a Llama 3 8B layer stack (Meta's published dimensions, 4 of its 32 layers, sequence 8192,
bf16, AdamW). Each row: the median of -n timed steps after -w warm-up steps, each step timed
with CUDA events around forward, backward and the optimizer. Prints one table; -o writes it.
Nothing of dmlsim is imported: this program measures, dmlsim compares.
Exit status 0 done, 77 no CUDA device or no PyTorch (skipped).
"""
import argparse
import gc
import statistics
import sys

try:
    import torch
except ImportError:
    print("torch-bench: no PyTorch here; skipped")
    sys.exit(77)


def timed_steps(step, warmup, iters):
    """Median seconds of one call of step() over iters calls after warmup calls."""
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        step()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return statistics.median(times)


def precision(dtype):
    """(autocast dtype or None, allow TF32) of a row's dtype name."""
    torch.backends.cuda.matmul.allow_tf32 = dtype == "tf32"
    torch.backends.cudnn.allow_tf32 = dtype == "tf32"
    return {"fp16": torch.float16, "bf16": torch.bfloat16}.get(dtype)


def resnet50(dtype, batch):
    import torchvision

    amp = precision(dtype)
    torch.backends.cudnn.benchmark = True
    fmt = torch.channels_last if amp else torch.contiguous_format
    model = torchvision.models.resnet50().cuda().to(memory_format=fmt)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.875, weight_decay=3.05e-5)
    scaler = torch.amp.GradScaler(enabled=amp == torch.float16)
    x = torch.randn(batch, 3, 224, 224, device="cuda").to(memory_format=fmt)
    y = torch.randint(0, 1000, (batch,), device="cuda")
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=amp or torch.float32, enabled=amp is not None):
            loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()

    return step


def bert_large(dtype, batch):
    from transformers import BertConfig, BertForPreTraining

    amp = precision(dtype)
    cfg = BertConfig(vocab_size=30522, hidden_size=1024, num_hidden_layers=24,
                     num_attention_heads=16, intermediate_size=4096)
    model = BertForPreTraining(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    scaler = torch.amp.GradScaler(enabled=amp == torch.float16)
    seq = 128
    ids = torch.randint(0, cfg.vocab_size, (batch, seq), device="cuda")
    labels = torch.full((batch, seq), -100, device="cuda")
    labels[:, ::7] = ids[:, ::7]  # about 15% of the tokens masked, as BERT's pre-training
    nsp = torch.randint(0, 2, (batch,), device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=amp or torch.float32, enabled=amp is not None):
            loss = model(input_ids=ids, labels=labels, next_sentence_label=nsp).loss
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()

    return step


def llama3_8b_layers(dtype, batch):
    from transformers import LlamaConfig, LlamaForCausalLM

    precision(dtype)
    # Llama 3 8B's dimensions (Meta's Llama 3 paper, table 3), 4 of its 32 layers
    cfg = LlamaConfig(vocab_size=128256, hidden_size=4096, intermediate_size=14336,
                      num_hidden_layers=4, num_attention_heads=32, num_key_value_heads=8,
                      max_position_embeddings=8192, attn_implementation="sdpa")
    model = LlamaForCausalLM(cfg).cuda().to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, cfg.vocab_size, (batch, 8192), device="cuda")

    def step():
        opt.zero_grad(set_to_none=True)
        model(input_ids=ids, labels=ids).loss.backward()
        opt.step()

    return step


ROWS = [  # (name, builder, dtype, batch: samples per step)
    ("ResNet-50_v1.5", resnet50, "fp32", 256),
    ("ResNet-50_v1.5", resnet50, "tf32", 256),
    ("ResNet-50_v1.5", resnet50, "fp16", 256),
    ("ResNet-50_v1.5", resnet50, "bf16", 256),
    ("BERT-large_phase1", bert_large, "fp32", 64),
    ("BERT-large_phase1", bert_large, "tf32", 64),
    ("BERT-large_phase1", bert_large, "fp16", 64),
    ("BERT-large_phase1", bert_large, "bf16", 64),
    ("Llama3-8B_4layers_s8192", llama3_8b_layers, "bf16", 1),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=10, help="timed steps")
    ap.add_argument("-w", type=int, default=5, help="warm-up steps")
    ap.add_argument("-o", help="also write the table here")
    a = ap.parse_args()
    if not torch.cuda.is_available():
        print("torch-bench: no CUDA device; skipped")
        return 77
    lines = ["# gpu %s, torch %s, cuda %s, cudnn %s" % (torch.cuda.get_device_name(0),
             torch.__version__, torch.version.cuda, torch.backends.cudnn.version()),
             "#model                    dtype  batch      step   samples/s",
             "#                                           (ms)            "]
    print("\n".join(lines), flush=True)
    for name, build, dtype, batch in ROWS:
        try:
            t = timed_steps(build(dtype, batch), a.w, a.n)
            line = "%-25s %5s %6d %9.2f %11.1f" % (name, dtype, batch, t * 1e3, batch / t)
        except Exception as e:  # one row's failure (memory, a missing package) ends only that row
            line = "#%-24s %5s %6d failed: %s" % (name, dtype, batch, str(e).split("\n")[0][:120])
        gc.collect()
        torch.cuda.empty_cache()
        lines.append(line)
        print(line, flush=True)
        if a.o:
            with open(a.o, "w") as f:
                f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
