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
	return p
}

// monitorGaps adds the monitor config when the monitor data cannot answer
// Phase 1–2: none at all, no micro steps, no norm, or no baseline device.
func monitorGaps(in *Input, p *Plan) {
	var why []Text
	devices := "both devices"
	zhDevices := "两侧设备"
	monitor := in.MonitorFormat == model.FormatTrendDB || in.MonitorFormat == model.FormatCSV
	switch {
	case in.P1 == nil && in.ATree == nil:
		why = append(why, Text{"there is no gradient monitor data of the run: Phase 1 needs it to find the candidate spikes",
			"没有该训练的梯度监控数据：Phase 1 需要它来找候选尖刺"})
	case monitor && !in.P1.Sharding.HasMicroStep:
		why = append(why, Text{"the monitor data has one row per optimizer step, no micro steps: the micro batch of the spike cannot be found (monitor_mbs_grad: true records each micro batch)",
			"监控数据每个 optimizer step 只有一行，没有 micro step：无法定位尖刺所在的 micro batch（monitor_mbs_grad: true 按 micro batch 记录）"})
	}
	if monitor && in.NoNorm {
		why = append(why, Text{"the monitor data has no gradient norm (ops without \"norm\"): the spike rules compare norms",
			"监控数据没有梯度范数（ops 不含 \"norm\"）：尖刺判定比较的是范数"})
	}
	if len(why) == 0 && monitor && in.P1 != nil && in.P1Baseline == nil {
		devices, zhDevices = "the baseline device", "标杆设备"
		why = append(why, Text{"there is no monitor data of the baseline device: Phase 2 cannot tell a device-specific spike from a shared one (pass it with --baseline)",
			"没有标杆设备的监控数据：Phase 2 无法区分设备特有与共有的尖刺（用 --baseline 传入）"})
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

// dumpPlan adds the dump configs of the root-cause coordinate.
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
	if in.A == nil {
		an.add(rank, "rank "+strconv.Itoa(rank)+" is the root-cause coordinate (A: "+coordWords(root)+")",
			"rank "+strconv.Itoa(rank)+" 是根因坐标（A："+coordWords(root)+"）")
	}
	if in.B == nil {
		bn.add(rank, "rank "+strconv.Itoa(rank)+" on the baseline device is A's baseline (B): the same "+at,
			"标杆设备的 rank "+strconv.Itoa(rank)+" 是 A 的标杆（B）：同一 "+at)
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
	var list []string
	if mixNeeded {
		// one rerun at level mix: A and C on both devices, narrowed to the
		// first divergent layers so the dump stays small
		list = layerWords
		why := "the dumps are at level " + levelName(in.A.Level) + " and hold no operators: level mix narrowed to the first divergent layer (" + strings.Join(layerWords, ", ") + ") finds the first divergent operator"
		zh := "现有 dump 为 " + levelName(in.A.Level) + " 级，没有算子：mix 级并限定到首个分歧层（" + strings.Join(layerWords, ", ") + "）以找到首个分歧算子"
		an.add(rank, why, zh)
		bn.add(rank, why, zh)
		for _, c := range controlOrC(in, controls) {
			an.add(c, "rank "+strconv.Itoa(c)+" is the control group at level mix too", "rank "+strconv.Itoa(c)+" 同样以 mix 级作为对照组")
			bn.add(c, "rank "+strconv.Itoa(c)+" is the control group at level mix too", "rank "+strconv.Itoa(c)+" 同样以 mix 级作为对照组")
		}
	}
	addDump(in, p, "anomalous", AnomalousConfig, frameworkOf(in.A, in.C, in.ATree), step, level, list, an)
	addDump(in, p, "baseline", BaselineConfig, frameworkOf(in.B, in.D, in.BTree), step, level, list, bn)
	if in.A == nil && (hasFile(p, AnomalousConfig) || hasFile(p, BaselineConfig)) {
		p.Unknown = append(p.Unknown, Text{
			fmt.Sprintf("whether step %d is the same step for msprobe: the dump counts steps with debugger.step() from the start of the process, so on a run resumed from a checkpoint subtract the step it resumed at", step),
			fmt.Sprintf("step %d 对 msprobe 是否为同一 step：dump 以 debugger.step() 从进程启动起计数，若训练从 checkpoint 续训，请减去续训起始的 step", step)})
	}
	if len(p.Configs) > 0 && level == "L0" {
		p.Unknown = append(p.Unknown, Text{
			"the first divergent layer: level L0 (modules) finds it; once spikescope has traced these dumps, run plan again for a level-mix dump narrowed to that layer (its operators)",
			"首个分歧层：L0（模块级）dump 可以找到它；spikescope 分析这些 dump 后，再运行 plan 得到限定到该层的 mix 级 dump（算子级）"})
	}
}

// addDump adds one device's dump config and its action.
func addDump(in *Input, p *Plan, device, name, framework string, step int, level string, list []string, n need) {
	if len(n.ranks) == 0 {
		return
	}
	sort.Ints(n.ranks)
	c := dumpConfig(framework, dumpPath(device), []int{step}, n.ranks, level, list)
	p.Configs = append(p.Configs, Config{Name: name, Device: device, Value: c})
	zhDevice := map[string]string{"anomalous": "异常设备", "baseline": "标杆设备"}[device]
	fw := "PyTorch"
	if framework == MindSpore {
		fw = "MindSpore"
	}
	ranks := intList(n.ranks)
	p.Actions = append(p.Actions, Text{
		fmt.Sprintf("dump: rerun the %s device (%s) with %s — step %d, ranks %s, level %s", device, fw, name, step, ranks, level),
		fmt.Sprintf("dump：在%s（%s）用 %s 重跑 —— step %d，rank %s，level %s", zhDevice, fw, name, step, ranks, level)})
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
	return p1.Sharding.Pipeline.StageOf(rank)
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
