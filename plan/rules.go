package plan

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"spikescope/analysis"
	"spikescope/model"
)

// controlRanks is how many control ranks a dump config asks for: the
// automatic choice of C needs a normal sample below the tree's P75, and a
// second one keeps a choice when the first spikes too.
const controlRanks = 2

// dumpPath is the dump_path of a device's config (msprobe makes
// step<N>/rank<R>/ under it): one folder per device, so that two reruns
// on one file system do not mix.
func dumpPath(device string) string { return "./dump_" + device }

// tensorPath is the dump_path of a device's tensor dump: beside the
// statistics dumps, never into them.
func tensorPath(device string) string { return "./tensor_" + device }

// rankWord is "rank" or "ranks" for n ranks.
func rankWord(n int) string {
	if n == 1 {
		return "rank"
	}
	return "ranks"
}

func listWords(list []string) string {
	if len(list) == 0 {
		return ""
	}
	return ", list " + quoteList(list)
}

// Build is the plan for in.
func Build(in Input) Plan {
	var p Plan
	monitorGaps(&in, &p)
	if in.P1 == nil || in.P2 == nil {
		return finish(&in, p)
	}
	root := in.P2.RootCauseCoordinate
	if root == nil {
		if len(in.P1.Anomalies) > 0 {
			p.Unknown = append(p.Unknown, Text{
				"no root-cause coordinate was selected, so there is no step to dump: pin one (--pin opt=N,rank=R,param=NAME) and run plan again",
				"未选出根因坐标，无从确定 dump 的 step：用 --pin opt=N,rank=R,param=NAME 指定坐标后重新运行 plan"})
		}
		return finish(&in, p)
	}
	rankGaps(&in, &p, root.Rank)
	if baselineMonitorFirst(&in) {
		p.Unknown = append(p.Unknown, Text{
			"the dumps: a spike the baseline device shares comes with the batch (data), and then there is no device divergence to trace; once the baseline monitor data says the spike is the anomalous device's own, run plan again with it (--baseline) for the dumps",
			"dump：若标杆设备同样出现该尖刺，则尖刺随 batch 而来（数据），无设备分叉可追踪；待标杆设备的监控数据表明尖刺为异常设备自身所有后，带上它（--baseline）重新运行 plan 以得到 dump 配置"})
		return finish(&in, p)
	}
	dumpPlan(&in, &p, root)
	return finish(&in, p)
}

// rankGaps adds the monitor config when a rank filter of the monitor (its
// module_ranks, or a data-parallel filter) left out ranks Phase 2 needs:
// the root rank on the baseline device (nothing to compare it with), or
// every other rank of the anomalous device (the cross-step rule counts
// the ranks that grow at the next step).
func rankGaps(in *Input, p *Plan, rank int) {
	if in.MonitorFormat != model.FormatTrendDB && in.MonitorFormat != model.FormatCSV {
		return
	}
	var why []Text
	device, zhDevice := "the baseline device", "标杆设备"
	if b := in.P1Baseline; b != nil && len(b.Summary.Ranks) > 0 && !containsInt(b.Summary.Ranks, rank) {
		why = append(why, Text{
			fmt.Sprintf("the baseline device's monitor data has no rank %d (ranks %s): a rank filter dropped the replica the root rank is compared with; the config monitors every rank", rank, intList(b.Summary.Ranks)),
			fmt.Sprintf("标杆设备的监控数据没有 rank %d（只有 rank %s）：rank 过滤去掉了与根因 rank 对比的副本；该配置监控所有 rank", rank, intList(b.Summary.Ranks))})
	}
	if len(in.P1.Summary.Ranks) == 1 {
		device, zhDevice = "both devices", "两侧设备"
		why = append(why, Text{
			fmt.Sprintf("the monitor data holds rank %d only: the cross-step rule needs the other ranks' gradients at the next step; the config monitors every rank", in.P1.Summary.Ranks[0]),
			fmt.Sprintf("监控数据只有 rank %d：跨 step 规则需要其他 rank 在下一步的梯度；该配置监控所有 rank", in.P1.Summary.Ranks[0])})
	}
	if len(why) == 0 {
		return
	}
	if !hasFile(p, MonitorFile) {
		p.Configs = append(p.Configs, Config{Name: MonitorFile, Device: device, Value: monitorConfig()})
	}
	for _, w := range why {
		p.Actions = append(p.Actions, Text{
			"monitor: train on " + device + " with " + MonitorFile + " — " + w.En,
			"监控：在" + zhDevice + "用 " + MonitorFile + " 训练 —— " + w.Zh})
	}
}

func hasFile(p *Plan, name string) bool {
	for _, c := range p.Configs {
		if c.Name == name {
			return true
		}
	}
	return false
}

func containsInt(v []int, x int) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}

// finish marks a plan without files and open questions as "nothing to
// collect" — unless the analysis named missing data that no config
// collects: then that is what is still open.
func finish(in *Input, p Plan) Plan {
	if len(p.Configs) == 0 && len(p.Unknown) == 0 {
		for _, m := range in.Missing {
			p.Unknown = append(p.Unknown, Text{m.What + ": " + m.Next, orEn(m.ZhWhat, m.What) + "：" + orEn(m.ZhNext, m.Next)})
		}
	}
	p.Nothing = len(p.Configs) == 0 && len(p.Unknown) == 0
	if len(p.Configs) > 0 {
		after(in, &p)
	}
	return p
}

// monitorGaps adds the monitor config when the monitor data cannot answer
// Phase 1–2: none at all, no micro steps (unless one micro batch per
// step, W = 1, fixes the micro step already), no norm, or no baseline
// device (unless B's dump is there: the trace compares A with B).
func monitorGaps(in *Input, p *Plan) {
	var why []Text
	devices := "both devices"
	zhDevices := "两侧设备"
	monitor := in.MonitorFormat == model.FormatTrendDB || in.MonitorFormat == model.FormatCSV
	switch {
	case in.P1 == nil && in.ATree == nil:
		why = append(why, Text{"there is no gradient monitor data of the run: Phase 1 needs it to find the candidate spikes",
			"没有该训练的梯度监控数据：Phase 1 需要它来找候选尖刺"})
	case monitor && !in.P1.Sharding.HasMicroStep && !oneMicroBatch(in):
		why = append(why, Text{"the monitor data has one row per optimizer step, no micro steps: the micro batch of the spike cannot be found (monitor_mbs_grad: true records each micro batch). If the training takes one micro batch per optimizer step (W = 1: global batch = data-parallel size × micro batch), the step is the micro batch: skip this rerun and run plan again with --window 1",
			"监控数据每个 optimizer step 只有一行，没有 micro step：无法定位尖刺所在的 micro batch（monitor_mbs_grad: true 按 micro batch 记录）。若每个 optimizer step 只有一个 micro batch（W = 1：global batch = 数据并行数 × micro batch），step 即 micro batch：无需重跑，用 --window 1 重新运行 plan"})
	}
	if monitor && in.NoNorm {
		why = append(why, Text{"the monitor data has no gradient norm (ops without \"norm\"): the spike rules compare norms",
			"监控数据没有梯度范数（ops 不含 \"norm\"）：尖刺判定比较的是范数"})
	}
	if len(why) == 0 && monitor && in.P1 != nil && in.P1Baseline == nil && in.B == nil {
		devices, zhDevices = "the baseline device", "标杆设备"
		at, zhAt := "", ""
		if in.P2 != nil && in.P2.RootCauseCoordinate != nil {
			at = " at " + coordWords(in.P2.RootCauseCoordinate)
			zhAt = "（" + coordWords(in.P2.RootCauseCoordinate) + "）"
		}
		why = append(why, Text{"there is no monitor data of the baseline device, so whether the spike" + at + " is the anomalous device's own (device) or comes with the batch both devices train on (data) is undetermined: the baseline device's gradients at the same coordinate decide it (the same data order and initial weights; pass its output with --baseline)",
			"没有标杆设备的监控数据，因此尖刺" + zhAt + "是异常设备自身的（设备）还是随两设备共同训练的 batch 而来（数据）无法判定：标杆设备在同一坐标的梯度可以判定（相同数据顺序与随机种子；用 --baseline 传入其输出）"})
	}
	if len(why) == 0 {
		return
	}
	p.Configs = append(p.Configs, Config{Name: MonitorFile, Device: devices, Value: monitorConfig()})
	for _, w := range why {
		p.Actions = append(p.Actions, Text{
			"monitor: train on " + devices + " with " + MonitorFile + " (msprobe monitor, weight gradients per micro batch) — " + w.En,
			"监控：在" + zhDevices + "用 " + MonitorFile + " 训练（msprobe monitor，按 micro batch 记录权重梯度）—— " + w.Zh})
	}
}

// baselineMonitorFirst reports whether the baseline device's monitor run
// comes before any dump: the monitor data is of the anomalous device only
// and there is no dump yet, so whether the spike is the device's own
// (dumps to trace it) or the batch's (nothing to trace) is open, and the
// baseline monitor run is the collection that decides it.
func baselineMonitorFirst(in *Input) bool {
	monitor := in.MonitorFormat == model.FormatTrendDB || in.MonitorFormat == model.FormatCSV
	return monitor && in.P1 != nil && in.P1Baseline == nil && in.A == nil && in.B == nil
}

// oneMicroBatch reports whether the run takes one micro batch per
// optimizer step (--window 1, or micro steps with a window of 1): the
// optimizer step fixes the micro step.
func oneMicroBatch(in *Input) bool {
	return in.Window == 1 || in.P1 != nil && in.P1.Sharding.HasMicroStep && in.P1.Sharding.AccumulationWindow == 1
}

// need is what one device's rerun must dump.
type need struct {
	ranks []int
	why   []Text
}

func (n *need) add(rank int, en, zh string) {
	for _, r := range n.ranks {
		if r == rank {
			n.why = append(n.why, Text{en, zh})
			return
		}
	}
	n.ranks = append(n.ranks, rank)
	n.why = append(n.why, Text{en, zh})
}

// dumpPlan adds the dump configs of the root-cause coordinate: from what
// the trace already has. An operator the drill-down named is dumped as
// tensors on A and B (for msprobe compare); a drill-down or a divergent
// layer in level-L0 dumps (modules only) asks for level mix narrowed to
// that layer (the API calls inside it); missing groups (A, B, C, D) are
// dumped at the level of the dumps there are.
func dumpPlan(in *Input, p *Plan, root *model.Coordinate) {
	opt := 0
	switch {
	case root.OptimizerStep != nil:
		opt = *root.OptimizerStep
	case root.Step != nil:
		opt = *root.Step
	}
	rank := root.Rank
	if in.A != nil {
		rank = in.A.Rank
	}
	step, known := dumpStep(in, opt)
	if !known {
		p.Unknown = append(p.Unknown, Text{
			fmt.Sprintf("the training step of optimizer step %d: the trend.db counts steps from its first record (msprobe data2db re-bases them to 0). Find the step the monitor started at — the monitor config's start_step, or the first step in the training log with monitor output — and run plan again with --step-offset N; the dump configs are not written until then", opt),
			fmt.Sprintf("optimizer step %d 对应的训练 step：trend.db 从首条记录起计 step（msprobe data2db 重置为 0）。请找到监控开始的 step（监控配置的 start_step，或训练日志中首个有监控输出的 step），用 --step-offset N 重新运行 plan；在此之前不写 dump 配置", opt)})
		return
	}
	if tensorPlan(in, p) {
		return
	}
	layers, layerWords := divergentLayers(in)
	mixNeeded := in.A != nil && in.B != nil && !hasOperators(in.A) && len(layers) > 0
	level := "L0"
	switch {
	case mixNeeded:
		level = "mix"
	case in.A != nil && in.A.Level != "":
		level = in.A.Level // the new dumps must compare with A's
	}
	controls := controlsFor(in, opt, rank)
	var an, bn need
	at := fmt.Sprintf("step %d rank %d", step, rank)
	var list []string
	if mixNeeded {
		// one rerun at level mix: A and C on both devices, narrowed to the
		// first divergent layers so the dump stays small
		list = layerWords
		why, zh := mixWords(in, layers, layerWords)
		an.add(rank, why, zh)
		bn.add(rank, fmt.Sprintf("rank %d on the baseline device is A's baseline (B), at level mix with the same list", rank),
			fmt.Sprintf("标杆设备的 rank %d 是 A 的标杆（B），同样以 mix 级和相同的 list 采集", rank))
	}
	if in.A == nil {
		an.add(rank, "rank "+strconv.Itoa(rank)+" is the root-cause coordinate (A: "+coordWords(root)+")",
			"rank "+strconv.Itoa(rank)+" 是根因坐标（A："+coordWords(root)+"）")
	}
	if in.B == nil {
		bn.add(rank, "rank "+strconv.Itoa(rank)+" on the baseline device is A's baseline (B): the same "+at+"; A against B tells the anomalous device's own divergence from one it shares with the baseline",
			"标杆设备的 rank "+strconv.Itoa(rank)+" 是 A 的标杆（B）：同一 "+at+"；A 与 B 对比可区分异常设备自身的分叉与两设备共有的分叉")
	}
	if in.C == nil || in.D == nil {
		for _, c := range controls {
			why := fmt.Sprintf("rank %d is the control group (C on the anomalous device, D on the baseline): no Phase 1 candidate at optimizer step %d, the nearest such rank to %d", c, opt, rank)
			zh := fmt.Sprintf("rank %d 为对照组（异常侧 C、标杆侧 D）：optimizer step %d 不在 Phase 1 候选中，且离 rank %d 最近", c, opt, rank)
			if st := stageOf(in.P1, rank); st >= 0 {
				why += fmt.Sprintf(", on A's pipeline stage %d (the same layers)", st)
				zh += fmt.Sprintf("，与 A 同在 pipeline stage %d（相同的层）", st)
			}
			if in.C == nil {
				an.add(c, why, zh)
			}
			bn.add(c, why, zh)
		}
		if len(controls) == 0 {
			p.Unknown = append(p.Unknown, Text{
				fmt.Sprintf("a control rank: every other rank is a Phase 1 candidate at optimizer step %d; dump a normal step of rank %d as C instead", opt, rank),
				fmt.Sprintf("对照 rank：optimizer step %d 的其他 rank 都是 Phase 1 候选；请改为采集 rank %d 的一个正常 step 作为 C", opt, rank)})
		}
	}
	if mixNeeded {
		for _, c := range controlOrC(in, controls) {
			if !containsInt(an.ranks, c) {
				an.add(c, "rank "+strconv.Itoa(c)+" is the control group (C) at level mix too", "rank "+strconv.Itoa(c)+" 同样以 mix 级作为对照组（C）")
			}
			if !containsInt(bn.ranks, c) {
				bn.add(c, "rank "+strconv.Itoa(c)+" is the control group (D) at level mix too", "rank "+strconv.Itoa(c)+" 同样以 mix 级作为对照组（D）")
			}
		}
	}
	addDump(in, p, "anomalous", AnomalousConfig, frameworkOf(in.A, in.C, in.ATree), TaskStatistics, step, level, list, an)
	addDump(in, p, "baseline", BaselineConfig, frameworkOf(in.B, in.D, in.BTree), TaskStatistics, step, level, list, bn)
	if in.A == nil && (hasFile(p, AnomalousConfig) || hasFile(p, BaselineConfig)) {
		p.Unknown = append(p.Unknown, Text{
			fmt.Sprintf("whether step %d is the same step for msprobe: the dump counts steps with debugger.step() from the start of the process, so on a run resumed from a checkpoint subtract the step it resumed at", step),
			fmt.Sprintf("step %d 对 msprobe 是否为同一 step：dump 以 debugger.step() 从进程启动起计数，若训练从 checkpoint 续训，请减去续训起始的 step", step)})
	}
	if len(p.Configs) > 0 && level == "L0" {
		p.Unknown = append(p.Unknown, Text{
			"the first divergent layer and the operator inside it: level L0 records modules only, so these dumps find the first divergent layer and a drill-down that ends at a module; once spikescope has traced them, run plan again for a level-mix dump narrowed to that layer, which records the API calls inside the module",
			"首个分歧层及其内部算子：L0 级只记录模块，这些 dump 能找到首个分歧层，下钻止于模块；spikescope 分析这些 dump 后，再运行 plan 得到限定到该层的 mix 级 dump，它记录模块内部的 API 调用"})
	}
}

// mixWords say why level mix narrowed to the layers: what the trace of
// the level-L0 dumps found (the drill-down's module, or the layer) and
// what level mix adds.
func mixWords(in *Input, layers []int, words []string) (string, string) {
	lv := levelName(in.A.Level)
	layer, zhLayer := layerList(in, layers), layerListZh(in, layers)
	if d := in.P3.DivergenceSummary.Drilldown; d != nil && d.Operator != "" {
		where, zhWhere := d.Operator, d.Operator
		if d.Layer != nil {
			where += fmt.Sprintf(" (%s, layer %s)", dirWord(d.Direction), layerText(in, *d.Layer))
			zhWhere += fmt.Sprintf("（%s，%s）", dirWordZh(d.Direction), layerListZh(in, []int{*d.Layer}))
		}
		return fmt.Sprintf("the drill-down ended at module %s. The dumps are at level %s, which records modules only, so a drill-down on them ends at a module; level mix records the API calls made inside each module (Functional.linear, Torch.matmul, …) and finds the first divergent one. list %s keeps the records of %s and the API calls inside %s",
				where, lv, quoteList(words), layer, itThem(len(layers))),
			fmt.Sprintf("下钻止于模块 %s。现有 dump 为 %s 级，只记录模块，因此下钻只能到模块为止；mix 级还记录每个模块内部的 API 调用（Functional.linear、Torch.matmul 等），可找到首个分叉的 API。list %s 保留%s的记录及其内部的 API 调用",
				zhWhere, lv, quoteList(words), zhLayer)
	}
	return fmt.Sprintf("the first divergent layer is %s; the dumps are at level %s, which records modules only; level mix narrowed with list %s to that layer records the API calls made inside its modules and finds the first divergent operator",
			layer, lv, quoteList(words)),
		fmt.Sprintf("首个分歧层为%s；现有 dump 为 %s 级，只记录模块；mix 级并用 list %s 限定到该层，记录其模块内部的 API 调用，找到首个分叉算子",
			zhLayer, lv, quoteList(words))
}

// tensorPlan adds the tensor dump of the operator the drill-down named,
// on A's and B's coordinates, when the dumps recorded operators (a
// drill-down on them ends at the operator, not at a module around it);
// it reports whether it did. Dumps that are tensor dumps already need
// nothing more.
func tensorPlan(in *Input, p *Plan) bool {
	op, keyB, d := namedOperator(in)
	if op == nil || !(op.Kind == model.KindAPI || hasOperators(in.A)) {
		return false
	}
	if in.C == nil || in.D == nil {
		// without the control group the divergence is A against B alone:
		// C and D first (dumpPlan), the tensors once they confirm it
		p.Unknown = append(p.Unknown, Text{
			"the tensors of " + op.Key + ", the operator the trace named without a control group: once C and D confirm that it diverges beyond the devices' usual difference, run plan again for a tensor dump of it on A and B",
			op.Key + " 的张量（无对照组时追踪定位的算子）：待 C、D 确认其分叉超出两设备的常规差异后，重新运行 plan 得到它在 A、B 上的张量 dump"})
		return false
	}
	if strings.EqualFold(in.A.Task, TaskTensor) && strings.EqualFold(in.B.Task, TaskTensor) {
		return true // the tensors are there: msprobe compare runs on these dumps
	}
	level := in.A.Level
	if level == "" {
		level = "mix"
	}
	where := ""
	if d.Layer != nil {
		where = fmt.Sprintf(" (%s, layer %s)", dirWord(d.Direction), layerText(in, *d.Layer))
	}
	why := fmt.Sprintf("the drill-down already named the first divergent operator, %s%s: the statistics say that it diverges, its tensors say where. This dumps that operator's input and output tensors (forward and backward) on A and B for msprobe compare — not another statistics pass", op.Key, where)
	zhWhere := ""
	if d.Layer != nil {
		zhWhere = fmt.Sprintf("（%s，%s）", dirWordZh(d.Direction), layerListZh(in, []int{*d.Layer}))
	}
	zh := fmt.Sprintf("下钻已定位首个分叉算子 %s%s：统计量说明它分叉，张量说明分叉在哪里。此配置在 A 与 B 上采集该算子的输入输出张量（前向与反向），供 msprobe compare 比对——无需再做一轮统计量采集", op.Key, zhWhere)
	an := need{ranks: []int{in.A.Rank}, why: []Text{{why, zh}}}
	bn := need{ranks: []int{in.B.Rank}, why: []Text{{"the same operator on the baseline device (B)" + bName(op.Key, keyB), "标杆设备上的同一算子（B）" + bName(op.Key, keyB)}}}
	addDump(in, p, "anomalous", AnomalousConfig, frameworkOf(in.A, in.C, in.ATree), TaskTensor, in.A.Step, level, []string{callEntry(op.Key)}, an)
	addDump(in, p, "baseline", BaselineConfig, frameworkOf(in.B, in.D, in.BTree), TaskTensor, in.B.Step, level, []string{callEntry(keyB)}, bn)
	return true
}

func bName(a, b string) string {
	if a == b {
		return ""
	}
	return ", named " + b + " there"
}

// namedOperator is the record the drill-down named in A, its name in B,
// and the drill-down; nil when there is none or A or B is missing.
func namedOperator(in *Input) (*model.Op, string, *model.Drilldown) {
	if in.P3 == nil || in.A == nil || in.B == nil {
		return nil, "", nil
	}
	d := in.P3.DivergenceSummary.Drilldown
	if d == nil || d.Operator == "" {
		return nil, "", nil
	}
	for i := range in.A.Ops {
		if in.A.Ops[i].Key != d.Operator {
			continue
		}
		keyB := d.Operator
		for _, o := range d.Ops {
			if o.Key == d.Operator && o.KeyB != "" {
				keyB = o.KeyB
			}
		}
		return &in.A.Ops[i], keyB, d
	}
	return nil, "", nil
}

// callEntry is the list entry of one call of a record: its name up to the
// call number, ending in "." — "Functional.linear.5." keeps
// Functional.linear.5.forward and .backward (msprobe keeps the names that
// contain an entry) but not Functional.linear.50; a module's
// "Module.m.Linear.forward.0" becomes "Module.m.Linear." (every call: the
// module's number counts its calls).
func callEntry(key string) string {
	parts := strings.Split(key, ".")
	n := len(parts)
	switch {
	case n >= 2 && (parts[n-1] == "forward" || parts[n-1] == "backward"):
		return strings.Join(parts[:n-1], ".") + "."
	case n >= 3 && (parts[n-2] == "forward" || parts[n-2] == "backward"):
		return strings.Join(parts[:n-2], ".") + "."
	}
	return key
}

func dirWord(d string) string {
	if isFwd := strings.EqualFold(d, "fwd") || strings.EqualFold(d, "forward"); isFwd {
		return "forward"
	}
	return "backward"
}

// layerText is layer l of A's dump in words: with pipeline stages, the
// stage's own number and the global one.
func layerText(in *Input, l int) string {
	if in.P3 != nil {
		if ds := in.P3.DumpStage; ds != nil && ds.LayerOffset != nil && *ds.LayerOffset > 0 {
			st := "A's pipeline stage"
			if ds.Stage != nil {
				st = fmt.Sprintf("pipeline stage %d", *ds.Stage)
			}
			return fmt.Sprintf("%d of %s, global layer %d", l, st, *ds.LayerOffset+l)
		}
	}
	return strconv.Itoa(l)
}

// layerListZh is layerList in Chinese.
func layerListZh(in *Input, layers []int) string {
	s := make([]string, len(layers))
	for i, l := range layers {
		s[i] = strconv.Itoa(l)
		if in.P3 != nil {
			if ds := in.P3.DumpStage; ds != nil && ds.LayerOffset != nil && *ds.LayerOffset > 0 {
				st := "A 的 pipeline stage"
				if ds.Stage != nil {
					st = fmt.Sprintf("pipeline stage %d", *ds.Stage)
				}
				s[i] = fmt.Sprintf("%s 的第 %d 层（全局第 %d 层）", st, l, *ds.LayerOffset+l)
				continue
			}
		}
		s[i] = "第 " + s[i] + " 层"
	}
	return strings.Join(s, "、")
}

func dirWordZh(d string) string {
	if dirWord(d) == "forward" {
		return "前向"
	}
	return "反向"
}

func itThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

func layerList(in *Input, layers []int) string {
	s := make([]string, len(layers))
	for i, l := range layers {
		s[i] = layerText(in, l)
	}
	if len(s) == 1 {
		return "layer " + s[0]
	}
	return "layers " + strings.Join(s, " and ")
}

func quoteList(v []string) string {
	q := make([]string, len(v))
	for i, s := range v {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// addDump adds one device's dump config and its action.
func addDump(in *Input, p *Plan, device, name, framework, task string, step int, level string, list []string, n need) {
	if len(n.ranks) == 0 {
		return
	}
	sort.Ints(n.ranks)
	path := dumpPath(device)
	if task == TaskTensor {
		path = tensorPath(device)
	}
	c := dumpConfig(framework, task, path, []int{step}, n.ranks, level, list)
	p.Configs = append(p.Configs, Config{Name: name, Device: device, Value: c})
	zhDevice := map[string]string{"anomalous": "异常设备", "baseline": "标杆设备"}[device]
	fw := "PyTorch"
	if framework == MindSpore {
		fw = "MindSpore"
	}
	ranks := intList(n.ranks)
	p.Actions = append(p.Actions, Text{
		fmt.Sprintf("dump: rerun the %s device (%s) with %s — task %s, step %d, %s %s, level %s%s", device, fw, name, task, step, rankWord(len(n.ranks)), ranks, level, listWords(list)),
		fmt.Sprintf("dump：在%s（%s）用 %s 重跑 —— task %s，step %d，rank %s，level %s%s", zhDevice, fw, name, task, step, ranks, level, strings.Replace(listWords(list), ", list", "，list", 1))})
	for _, w := range n.why {
		p.Actions = append(p.Actions, Text{"  " + w.En, "  " + w.Zh})
	}
	p.Estimate = append(p.Estimate, estimate(in, device, zhDevice, c))
	if framework == MindSpore {
		// msprobe: MindSpore's rank IDs run from 0 to the devices per node
		// minus 1, and the list applies to every node at once
		p.Unknown = append(p.Unknown, Text{
			fmt.Sprintf("the ranks of %s in MindSpore's numbering: MindSpore's rank list counts the devices of one node and applies to every node, so with N devices per node write rank R as R mod N (ranks %s here are global)", name, ranks),
			fmt.Sprintf("%s 中 rank 的 MindSpore 编号：MindSpore 的 rank 列表按单节点的设备计数并作用于所有节点，每节点 N 个设备时 rank R 应写作 R mod N（此处 rank %s 为全局编号）", name, ranks)})
	}
}

// dumpStep is the dump (training) step of optimizer step opt; known is
// false when a re-based trend.db leaves it open.
func dumpStep(in *Input, opt int) (step int, known bool) {
	switch {
	case in.A != nil:
		return in.A.Step, true
	case in.StepOffset != nil:
		return opt + *in.StepOffset, true
	case in.DumpStepOffset != nil:
		return opt + *in.DumpStepOffset, true
	case in.MonitorFormat == model.FormatTrendDB:
		return 0, false
	}
	return opt, true
}

// controlsFor are the control ranks of (opt, rank): C's rank when C was
// found, else analysis.SuggestControlRank (the rule of the automatic
// choice) over the ranks of rank's pipeline stage.
func controlsFor(in *Input, opt, rank int) []int {
	if in.C != nil {
		return []int{in.C.Rank}
	}
	p1 := *in.P1
	if st, _, others := analysis.StageControlRanks(in.P1, rank); st >= 0 {
		p1.Summary.Ranks = append([]int{rank}, others...)
	}
	var out []int
	for len(out) < controlRanks {
		c := analysis.SuggestControlRank(&p1, opt, rank)
		if c < 0 {
			break
		}
		out = append(out, c)
		rest := p1.Summary.Ranks[:0:0]
		for _, r := range p1.Summary.Ranks {
			if r != c {
				rest = append(rest, r)
			}
		}
		p1.Summary.Ranks = rest
	}
	return out
}

// controlOrC is C's rank when C exists, else the proposed controls.
func controlOrC(in *Input, controls []int) []int {
	if in.C != nil {
		return []int{in.C.Rank}
	}
	return controls
}

func stageOf(p1 *model.Phase1Result, rank int) int {
	return p1.Sharding.Stages.StageOf(rank)
}

// divergentLayers are the first divergent layers of the trace (forward and
// backward) and the list entries that name them in msprobe's module names.
func divergentLayers(in *Input) ([]int, []string) {
	if in.P3 == nil {
		return nil, nil
	}
	ds := in.P3.DivergenceSummary
	var layers []int
	for _, l := range []*int{ds.EarliestFwdDivergence, ds.EarliestBwdDivergence} {
		if l != nil && (len(layers) == 0 || layers[0] != *l) {
			layers = append(layers, *l)
		}
	}
	prefix := in.P3.LayerPrefix
	if prefix == "" {
		prefix = "layers."
	}
	var words []string
	for _, l := range layers {
		words = append(words, layerWord(in.A, prefix, l))
	}
	return layers, words
}

// layerWord is the list entry of layer l: the module path of that layer
// in A (msprobe's list matches names that contain it), ending in "." so
// that layer 1 does not match layer 10.
func layerWord(a *model.Dump, prefix string, l int) string {
	word := prefix + strconv.Itoa(l) + "."
	if a == nil {
		return word
	}
	best := ""
	for i := range a.Ops {
		op := &a.Ops[i]
		if op.Kind != model.KindModule || op.Layer != l {
			continue
		}
		if j := strings.Index(op.ModulePath+".", word); j >= 0 {
			if w := (op.ModulePath + ".")[:j+len(word)]; best == "" || len(w) < len(best) {
				best = w
			}
		}
	}
	if best != "" {
		return best
	}
	return word
}

// hasOperators reports whether a dump holds API (operator) records.
func hasOperators(d *model.Dump) bool {
	for i := range d.Ops {
		if d.Ops[i].Kind == model.KindAPI {
			return true
		}
	}
	return false
}

// frameworkOf is the framework of the first dump that says, PyTorch by
// default.
func frameworkOf(a, c *model.Dump, t *model.DumpTree) string {
	ds := []*model.Dump{a, c}
	if t != nil {
		ds = append(ds, t.Dumps...)
	}
	for _, d := range ds {
		if d != nil && strings.EqualFold(d.Framework, MindSpore) {
			return MindSpore
		}
		if d != nil && d.Framework != "" {
			return PyTorch
		}
	}
	return PyTorch
}

func levelName(l string) string {
	if l == "" {
		return "L0"
	}
	return l
}

// coordWords is a root coordinate as the input numbers it.
func coordWords(c *model.Coordinate) string {
	var parts []string
	if c.OptimizerStep != nil {
		parts = append(parts, "optimizer step "+strconv.Itoa(*c.OptimizerStep))
	} else if c.Step != nil {
		parts = append(parts, "step "+strconv.Itoa(*c.Step))
	}
	if c.MicroStep != nil {
		parts = append(parts, "micro step "+strconv.Itoa(*c.MicroStep))
	}
	parts = append(parts, "rank "+strconv.Itoa(c.Rank))
	if c.TargetName != "" {
		parts = append(parts, c.TargetName)
	}
	return strings.Join(parts, ", ")
}

func intList(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

func orEn(zh, en string) string {
	if zh != "" {
		return zh
	}
	return en
}
