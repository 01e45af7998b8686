# Real msprobe TrainerMon run of the device-pair tiny GPT (4 layers, H=64, Markov language), N gloo ranks,
# starting from warm.pt, with gradient accumulation (W micro-batches per step) and an optional planted bad
# micro-batch on one rank. Writes grad_unreduced (per micro step, monitor_mbs_grad) and grad_reduced CSVs.
import os, sys, json, argparse, types
import torch, torch.nn.functional as F, torch.distributed as dist
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=25)
p.add_argument("--grad-acc", type=int, default=1)        # W: micro-batches per optimizer step
p.add_argument("--seed", type=int, default=0)            # data seed (each rank its own shard)
p.add_argument("--warm", required=True)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--bad-step", type=int, default=-1)
p.add_argument("--bad-rank", type=int, default=0)
p.add_argument("--bad-micro", type=int, default=0)       # 0-based micro-batch index within the step
p.add_argument("--bad-kind", default="loss", choices=["loss", "batch"])  # loss x factor, or a constant-token batch
p.add_argument("--factor", type=float, default=100.0)
p.add_argument("--cfgdir", default=os.getcwd())
p.add_argument("--ops", default="min,max,mean,norm")  # monitor ops
p.add_argument("--full", action="store_true")            # also exp_avg / param CSVs
args = p.parse_args()
rank = int(os.environ.get("RANK", "0")); world = int(os.environ.get("WORLD_SIZE", "1"))
torch.set_num_threads(1)
dist.init_process_group("gloo", rank=rank, world_size=world)
from tinygpt import GPTModel, batch, bad_batch, V
model = GPTModel(); model.load_state_dict(torch.load(args.warm))
opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
# RUNTIME SHIMS (not msprobe patches): Debian torch 1.13 lacks a working torch.distributed.fsdp on Python
# 3.11 and tensorboard; module_hook only uses them for an isinstance check / the tb writer (format=csv).
try:
    import torch.distributed.fsdp  # noqa
except Exception:
    _fsdp = types.ModuleType("torch.distributed.fsdp")
    class FullyShardedDataParallel(torch.nn.Module):
        pass
    _fsdp.FullyShardedDataParallel = FullyShardedDataParallel
    sys.modules["torch.distributed.fsdp"] = _fsdp
try:
    from torch.utils.tensorboard import SummaryWriter  # noqa
except Exception:
    _tb = types.ModuleType("torch.utils.tensorboard")
    class SummaryWriter:
        def __init__(self, *a, **k):
            raise RuntimeError("tensorboard unavailable (shim)")
    _tb.SummaryWriter = SummaryWriter
    sys.modules["torch.utils.tensorboard"] = _tb
from msprobe.pytorch.monitor.module_hook import TrainerMon
cfg = {"targets": {}, "wg_distribution": True, "monitor_mbs_grad": True,
       "mv_distribution": args.full, "param_distribution": args.full,
       "format": "csv", "ops": args.ops.split(","), "ndigits": 12,
       "step_count_per_record": 10}
os.makedirs(args.cfgdir, exist_ok=True)
cfg_path = os.path.join(args.cfgdir, f"monitor_config_r{rank}.json")
json.dump(cfg, open(cfg_path, "w"), indent=2); os.chmod(cfg_path, 0o640)
mon = TrainerMon(config_file_path=cfg_path, params_have_main_grad=False)
mon.set_monitor(model, grad_acc_steps=args.grad_acc, optimizer=opt)
g = torch.Generator().manual_seed(1000 * args.seed + 100 + rank)
W = args.grad_acc
for step in range(args.steps):
    tot = 0.0
    for m in range(W):
        ids = batch(g)
        bad = (step == args.bad_step and rank == args.bad_rank and m == args.bad_micro)
        if bad and args.bad_kind == "batch":
            ids = bad_batch()
        loss = F.cross_entropy(model(ids[:, :-1]).reshape(-1, V), ids[:, 1:].reshape(-1)) / W
        if bad and args.bad_kind == "loss":
            loss = loss * args.factor
        if bad:
            print(f"PLANTED {args.bad_kind} step {step} rank {rank} micro {m} factor {args.factor}", flush=True)
        loss.backward(); tot += loss.item()
    for prm in model.parameters():
        dist.all_reduce(prm.grad); prm.grad /= world
    opt.step(); opt.zero_grad()
    print(f"rank{rank} step{step} loss={tot:.5f}", flush=True)
dist.destroy_process_group()
