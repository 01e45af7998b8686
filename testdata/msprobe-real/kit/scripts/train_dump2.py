# PrecisionDebugger (task=statistics) run of the tiny GPT as one gloo rank; "npu" or emulated "gpu" device.
import os, sys, json, argparse
import torch, torch.nn.functional as F, torch.distributed as dist
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import devsim
p = argparse.ArgumentParser()
p.add_argument("--level", default="L0"); p.add_argument("--out", required=True)
p.add_argument("--device", default="npu", choices=["npu", "gpu"])
p.add_argument("--noise", type=float, default=0.0)
p.add_argument("--ckpt", required=True)    # npu: writes the per-step weights there; gpu: replays them
p.add_argument("--warm", required=True); p.add_argument("--fault", default="")
p.add_argument("--steps", type=int, default=2); p.add_argument("--cfgdir", required=True)
p.add_argument("--cfg-extra", default="")  # JSON merged into the PrecisionDebugger config (task, level, step, rank, tensor/statistics section)
args = p.parse_args()
rank = int(os.environ["RANK"]); world = int(os.environ["WORLD_SIZE"])
torch.set_num_threads(1)
dist.init_process_group("gloo", rank=rank, world_size=world)
fault = json.loads(args.fault) if args.fault else None
devsim.install(args.device, args.noise, seed=4242, fault=fault)       # before msprobe wraps the APIs
from tinygpt import GPTModel, batch, V
model = GPTModel(); model.load_state_dict(torch.load(args.warm)); devsim.attach(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
# RUNTIME SHIM (not an msprobe patch): torch 1.13 has no Tensor.untyped_storage, which msprobe's tensor
# task calls (pytorch_processor._analyze_and_save_tensor); 1.13's equivalent is storage().untyped().
if not hasattr(torch.Tensor, "untyped_storage"):
    torch.Tensor.untyped_storage = lambda self: self.storage().untyped()
from msprobe.pytorch import PrecisionDebugger
cfg = {"task": "statistics", "dump_path": args.out, "rank": [], "step": [], "level": args.level,
       "extra_info": True, "async_dump": False,
       "statistics": {"scope": [], "list": [], "data_mode": ["all"], "summary_mode": "statistics"}}
if args.cfg_extra:
    extra = json.loads(args.cfg_extra)
    if extra.get("task", "statistics") != "statistics":
        cfg.pop("statistics")
    cfg.update(extra)
os.makedirs(args.cfgdir, exist_ok=True)
cfg_path = os.path.join(args.cfgdir, f"config_{args.level}_{args.device}_r{rank}.json")
json.dump(cfg, open(cfg_path, "w"), indent=2); os.chmod(cfg_path, 0o640)
debugger = PrecisionDebugger(config_path=cfg_path)
g = torch.Generator().manual_seed(100 + rank)           # own data shard per rank, identical on both devices
os.makedirs(args.ckpt, exist_ok=True)
for step in range(args.steps):
    ids = batch(g)
    ck = os.path.join(args.ckpt, f"step{step}.pt")
    if args.device == "npu":
        if rank == 0: torch.save(model.state_dict(), ck)
    dist.barrier()
    if args.device == "gpu":
        model.load_state_dict(torch.load(ck))            # replay the npu weights of this step
    devsim.set_step(step, rank)
    debugger.start(model)
    logits = model(ids[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, V), ids[:, 1:].reshape(-1))
    loss.backward()
    debugger.stop()
    for prm in model.parameters():
        dist.all_reduce(prm.grad); prm.grad /= world
    opt.step(); opt.zero_grad()
    debugger.step()
    print(f"{args.device} rank{rank} step{step} loss={loss.item():.6f}", flush=True)
if fault is not None:
    print("FAULT_FIRED rank%d %d" % (rank, fault.get("fired", 0)), flush=True)
dist.destroy_process_group()
