package plan

import (
	"fmt"
	"strings"

	"spikescope/model"
)

// The parts of PLAN.md that say how to use the configs: the msprobe
// versions they are written for, the lines of the training script, and
// the commands to run afterwards. Every API and flag named here is
// msprobe's own (github.com/Ascend/msprobe at 8ff00da3, 26.0.0, and its
// predecessor Ascend/mstt, debug/accuracy_tools/msprobe, up to 8.3.3);
// msprobe_rules_test.go names the files they were read from.

// planKinds is what a plan's configs are: which msprobe features the user
// needs.
type planKinds struct {
	monitor, stats, tensor, mix, mindspore bool
	levels                                 []string
	tensorConfigs                          []DumpConfig
}

func kindsOf(p Plan) planKinds {
	var k planKinds
	for _, c := range p.Configs {
		switch v := c.Value.(type) {
		case MonitorConfig:
			k.monitor = true
		case DumpConfig:
			if v.AsyncDump == nil {
				k.mindspore = true
			}
			if v.Task == TaskTensor {
				k.tensor = true
				k.tensorConfigs = append(k.tensorConfigs, v)
			} else {
				k.stats = true
			}
			if v.Level == "mix" && len(v.Filter().List) > 0 && v.Task != TaskTensor {
				k.mix = true
			}
			if !containsString(k.levels, v.Level) {
				k.levels = append(k.levels, v.Level)
			}
		}
	}
	return k
}

func containsString(v []string, s string) bool {
	for _, x := range v {
		if x == s {
			return true
		}
	}
	return false
}

// usage is the "msprobe version", "In the training script" and
// "Afterwards" sections of PLAN.md.
func usage(p Plan, t func(Text) string) string {
	k := kindsOf(p)
	if !k.monitor && !k.stats && !k.tensor {
		return ""
	}
	var b strings.Builder
	b.WriteString("## " + t(Text{"msprobe version", "msprobe 版本"}) + "\n\n")
	for _, v := range versionLines(k) {
		b.WriteString("- " + t(v) + "\n")
	}
	b.WriteString("\n## " + t(Text{"In the training script", "训练脚本中"}) + "\n\n")
	if k.stats || k.tensor {
		b.WriteString(t(Text{
			"Dump (" + dumpNames(p) + "): one rerun per device, each with its own config. `model=` in `start` is required at levels L0 and mix (msprobe raises \"missing the parameter 'model'\" without it); pass the `torch.nn.Module` (Megatron: the list of model chunks). `stop` goes after the step's last backward, `step` at the end of every training step: msprobe numbers the steps by its calls, from 0 at the start of the process.",
			"Dump（" + dumpNames(p) + "）：每台设备各用自己的配置重跑一次。L0 与 mix 级必须在 `start` 中传 `model=`（否则 msprobe 报 \"missing the parameter 'model'\"），传入 `torch.nn.Module`（Megatron 为模型 chunk 列表）。`stop` 放在该 step 最后一次反向之后，`step` 放在每个训练 step 结束处：msprobe 按其调用次数从进程启动起以 0 开始给 step 编号。"}) + "\n\n")
		b.WriteString("```python\n" + t(dumpCode(k)) + "```\n\n")
	}
	if k.monitor {
		b.WriteString(t(Text{
			"Monitor (`" + MonitorFile + "`): once, right after the model and the optimizer are built; it writes CSVs under `$MONITOR_OUTPUT_DIR` (default `./monitor_output`), one folder per rank.",
			"监控（`" + MonitorFile + "`）：在模型与优化器创建之后调用一次；CSV 写到 `$MONITOR_OUTPUT_DIR`（默认 `./monitor_output`）下，每个 rank 一个目录。"}) + "\n\n")
		b.WriteString("```python\n" + t(monitorCode(k)) + "```\n\n")
	}
	if len(p.After) > 0 {
		b.WriteString("## " + t(Text{"Afterwards", "之后"}) + "\n\n")
		for _, a := range p.After {
			s := t(a)
			if strings.HasPrefix(s, "```") || strings.HasPrefix(s, "  ") {
				b.WriteString(s + "\n")
				continue
			}
			b.WriteString("- " + s + "\n")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func dumpNames(p Plan) string {
	var n []string
	for _, c := range p.Configs {
		if _, ok := c.Value.(DumpConfig); ok {
			n = append(n, "`"+c.Name+"`")
		}
	}
	return strings.Join(n, ", ")
}

// versionLines name the msprobe versions each kind of config is for.
func versionLines(k planKinds) []Text {
	var out []Text
	if k.stats && !k.mix {
		out = append(out, Text{
			"Dump configs at level " + strings.Join(k.levels, ", ") + ": msprobe 1.1.0 or later (`debugger.start(model=…)` came with 1.1.0); written and checked for 26.0.0.",
			"level " + strings.Join(k.levels, "、") + " 的 dump 配置：msprobe 1.1.0 及以后（`debugger.start(model=…)` 自 1.1.0 起）；按 26.0.0 编写并校验。"})
	}
	if k.mix {
		out = append(out, Text{
			"Dump configs at level mix with a layer in `list`: msprobe 1.2.0 or later. From 1.2.0 a `list` entry that names a module at level mix keeps that module's records and every API call made inside it (`Functional.linear.5.forward`, `Torch.matmul.3.backward`, …). 1.1.1 drops the calls made directly in the layer once its first submodule has ended; 1.1.0 and earlier match `list` entries only as parts of record names, and API names carry no module path, so they would keep the layer's modules and drop every API call — the operators this dump is for. Checked with msprobe 26.0.0.",
			"level mix 且 `list` 为某一层的 dump 配置：msprobe 1.2.0 及以后。自 1.2.0 起，mix 级下 `list` 中命名某模块的条目会保留该模块的记录及其内部的全部 API 调用（`Functional.linear.5.forward`、`Torch.matmul.3.backward` 等）。1.1.1 在该层第一个子模块结束后会丢掉直接在该层中的调用；1.1.0 及更早只把 `list` 条目当作记录名的子串匹配，而 API 记录名不含模块路径，因此只保留该层的模块、丢掉全部 API 调用——正是这次 dump 要找的算子。已用 msprobe 26.0.0 校验。"})
	}
	if k.tensor {
		out = append(out, Text{
			"Tensor dump configs (task tensor, one operator in `list`): msprobe 1.1.0 or later — a `list` entry keeps the records whose name contains it, at every level. The tensors are written as .pt files under `dump_tensor_data/` beside `dump.json`.",
			"张量 dump 配置（task tensor，`list` 中一个算子）：msprobe 1.1.0 及以后——各 level 下 `list` 条目都保留名字包含它的记录。张量以 .pt 文件写在 `dump.json` 旁的 `dump_tensor_data/` 下。"})
	}
	if k.monitor {
		out = append(out, Text{
			"`" + MonitorFile + "`: msprobe 8.1.0 or later — `monitor_mbs_grad` (weight gradients per micro batch) came with 8.1.0; earlier versions ignore it and write one row per optimizer step.",
			"`" + MonitorFile + "`：msprobe 8.1.0 及以后——`monitor_mbs_grad`（按 micro batch 记录权重梯度）自 8.1.0 起；更早的版本忽略该键，每个 optimizer step 只写一行。"})
	}
	if k.tensor {
		out = append(out, Text{
			"`msprobe compare -tp … -gp …` below is msprobe 26.0 (github.com/Ascend/msprobe); up to 8.3 (Ascend/mstt) `compare` reads a compare.json instead, shown below it.",
			"下面的 `msprobe compare -tp … -gp …` 属于 msprobe 26.0（github.com/Ascend/msprobe）；8.3 及以前（Ascend/mstt）的 `compare` 改读 compare.json，见其下方。"})
	}
	if k.monitor {
		out = append(out, Text{
			"`msprobe data2db` below is msprobe 26.0 only; spikescope reads the monitor CSVs of every version without it.",
			"下面的 `msprobe data2db` 仅 msprobe 26.0 提供；spikescope 可直接读取各版本的监控 CSV，无需它。"})
	}
	if k.stats || k.tensor {
		out = append(out, Text{
			"Up to 8.3 `PrecisionDebugger(config_path=…, model=model)` worked too; 26.0's `PrecisionDebugger` has no `model` parameter: pass the model to `start`, as below.",
			"8.3 及以前也接受 `PrecisionDebugger(config_path=…, model=model)`；26.0 的 `PrecisionDebugger` 没有 `model` 参数：请像下面这样把模型传给 `start`。"})
	}
	return out
}

// dumpCode is the training-script lines of a dump rerun.
func dumpCode(k planKinds) Text {
	imp := "from msprobe.pytorch import PrecisionDebugger"
	if k.mindspore {
		imp += "        # MindSpore: from msprobe.mindspore import PrecisionDebugger"
	}
	en := imp + `

# once, before training; on the baseline device its own config (config_baseline.json)
debugger = PrecisionDebugger(config_path="./config_anomalous.json")

for batch in train_loader:                 # one iteration = one optimizer step
    debugger.start(model=model)            # before the step's first forward
    for micro_batch in micro_batches(batch):   # every micro batch of the step
        loss = model(micro_batch)
        loss.backward()
    debugger.stop()                        # after the step's last backward
    optimizer.step()
    optimizer.zero_grad()
    debugger.step()                        # at the end of every training step
`
	zh := imp + `

# 训练开始前调用一次；标杆设备用它自己的配置（config_baseline.json）
debugger = PrecisionDebugger(config_path="./config_anomalous.json")

for batch in train_loader:                 # 每次迭代 = 一个 optimizer step
    debugger.start(model=model)            # 该 step 第一次前向之前
    for micro_batch in micro_batches(batch):   # 该 step 的每个 micro batch
        loss = model(micro_batch)
        loss.backward()
    debugger.stop()                        # 该 step 最后一次反向之后
    optimizer.step()
    optimizer.zero_grad()
    debugger.step()                        # 每个训练 step 结束处
`
	return Text{en, zh}
}

// monitorCode is the training-script lines of a monitor run.
func monitorCode(k planKinds) Text {
	code := func(c1, c2, c3 string) string {
		return `from msprobe.pytorch import TrainerMon     # MindSpore: from msprobe.mindspore import TrainerMon

` + c1 + `
monitor = TrainerMon(
    config_file_path="./` + MonitorFile + `",
    params_have_main_grad=True,            # ` + c2 + `
)
monitor.set_monitor(
    model,
    grad_acc_steps=global_batch_size // data_parallel_size // micro_batch_size,   # ` + c3 + `
    optimizer=optimizer,
)
`
	}
	return Text{
		code("# right after the model and the optimizer are built", "True for Megatron (main_grad), False otherwise", "micro batches per optimizer step"),
		code("# 在模型与优化器创建之后", "Megatron 为 True（main_grad），其他为 False", "每个 optimizer step 的 micro batch 数"),
	}
}

// after fills p.After: the commands to run once the reruns are done.
func after(in *Input, p *Plan) {
	k := kindsOf(*p)
	mon := "<monitor data>"
	base := " --baseline <baseline device's monitor data>"
	if in.MonitorFormat != model.FormatTrendDB && in.MonitorFormat != model.FormatCSV {
		mon, base = "", "" // the analysis ran on dumps alone
	}
	for _, c := range p.Configs {
		if c.Name != MonitorFile {
			continue
		}
		base = " --baseline <baseline device>/monitor_output"
		if c.Device != "the baseline device" {
			mon = "<anomalous device>/monitor_output"
		}
	}
	if k.monitor {
		p.After = append(p.After, Text{
			"Monitor: spikescope reads the CSVs as they are: `spikescope " + mon + base + "`. A trend.db instead: `msprobe data2db --data ./monitor_output --db ./db --format monitor` (26.0); it numbers steps from 0, so give spikescope `--step-offset N` (N = the first step monitored).",
			"监控：spikescope 直接读取 CSV：`spikescope " + mon + base + "`。如需 trend.db：`msprobe data2db --data ./monitor_output --db ./db --format monitor`（26.0）；它从 0 开始给 step 编号，因此需给 spikescope 传 `--step-offset N`（N 为首个被监控的 step）。"})
	}
	if k.stats {
		dumps := " --dump-a " + dumpPath("anomalous") + " --dump-b " + dumpPath("baseline")
		zhNote := ""
		note := ""
		if in.A != nil && in.B != nil && !k.mix {
			// the new dumps hold the control ranks only
			dumps = " --dump-a <A's dump> --dump-b <B's dump> --dump-c " + dumpPath("anomalous") + " --dump-d " + dumpPath("baseline")
		} else if in.A != nil && !hasFile(p, AnomalousConfig) {
			dumps = " --dump-a <A's dump> --dump-b " + dumpPath("baseline")
		}
		if k.mix {
			note = " On torch 1.x (older than msprobe supports, though it runs) modules have no backward pre-hook: msprobe opens the list at the end of a listed module's backward and does not close it, so the level-mix dump also holds every backward record after the listed layer's; on torch 2 the list is exact. spikescope reads the layers it asked for."
			zhNote = " 在 torch 1.x 上（低于 msprobe 支持的版本，但可运行）模块没有反向 pre-hook：msprobe 在所列模块反向结束时才开启 list 且不再关闭，因此 mix 级 dump 还会含有所列层之后的全部反向记录；torch 2 上 list 是精确的。spikescope 只读取所请求的层。"
		}
		p.After = append(p.After, Text{
			"Dumps: copy both devices' dump folders to one machine (msprobe writes `step<N>/rank<R>/dump.json` under each `dump_path`), then `" + strings.TrimSpace("spikescope "+mon) + base + dumps + "`, and `spikescope plan` with the same inputs for what is still missing." + note,
			"Dump：把两台设备的 dump 目录拷到同一台机器（msprobe 在每个 `dump_path` 下写 `step<N>/rank<R>/dump.json`），然后运行 `" + strings.TrimSpace("spikescope "+mon) + base + dumps + "`，并以相同输入运行 `spikescope plan` 查看仍缺什么。" + zhNote})
	}
	if k.tensor && len(k.tensorConfigs) == 2 {
		a, b := k.tensorConfigs[0], k.tensorConfigs[1]
		ap := fmt.Sprintf("%s/step%d/rank%d/dump.json", a.DumpPath, a.Step[0], a.Rank[0])
		bp := fmt.Sprintf("%s/step%d/rank%d/dump.json", b.DumpPath, b.Step[0], b.Rank[0])
		fw := "pytorch"
		if k.mindspore {
			fw = "mindspore"
		}
		p.After = append(p.After,
			Text{"Compare the operator's tensors, anomalous (target) against baseline (golden), with msprobe 26.0: `msprobe compare -tp " + ap + " -gp " + bp + " -o ./compare_out` (a run without torch.distributed writes `rank/` instead of `rank<R>/`). The result table (`compare_out/compare_result_<time>.csv`; `--xlsx` for a spreadsheet) gives per tensor the cosine similarity, max absolute and relative error and the statistics of both sides: inputs that agree and an output that does not put the fault inside this call.",
				"用 msprobe 26.0 比对该算子的张量，异常侧（target）对标杆侧（golden）：`msprobe compare -tp " + ap + " -gp " + bp + " -o ./compare_out`（未启用 torch.distributed 的运行写的是 `rank/` 而非 `rank<R>/`）。结果表（`compare_out/compare_result_<时间>.csv`；加 `--xlsx` 得到表格文件）逐张量给出余弦相似度、最大绝对与相对误差及两侧统计量：输入一致而输出不一致，说明问题在这次调用内部。"},
			Text{"Up to msprobe 8.3, the same with a compare.json: `msprobe -f " + fw + " compare -i ./compare.json -o ./compare_out`, where compare.json is:",
				"msprobe 8.3 及以前，用 compare.json 做同样的比对：`msprobe -f " + fw + " compare -i ./compare.json -o ./compare_out`，compare.json 为："},
			Text{"```json\n{\n    \"npu_path\": \"" + ap + "\",\n    \"bench_path\": \"" + bp + "\",\n    \"is_print_compare_log\": true\n}\n```", ""})
	}
}
