package plan

import (
	"fmt"
	"strings"

	"spikescope/model"
)

// Dump size estimate. A statistics record of one tensor in dump.json
// (dtype, shape, Max/Min/Mean/Norm, requires_grad) takes about 330 bytes,
// and construct.json and stack.json add about 30%: statBytes per record
// over a rank's folder (measured on testdata/demo's dumps: 383 KB for 896
// records);
// an L0 module has about tensorsPerModule records over its forward,
// backward and parameters_grad entries; level mix adds the module's
// operators, about mixFactor times the records of the module alone.
const (
	statBytes        = 430
	tensorsPerModule = 6
	mixFactor        = 5
)

// estimate is the expected dump size of config c on device.
func estimate(in *Input, device, zhDevice string, c DumpConfig) Text {
	perRank, basis, zhBasis := rankBytes(in, c)
	total := perRank * int64(len(c.Rank)) * int64(len(c.Step))
	return Text{
		fmt.Sprintf("%s device: about %s (%s per rank × %d ranks × %d step; %s)", device, size(total), size(perRank), len(c.Rank), len(c.Step), basis),
		fmt.Sprintf("%s：约 %s（每个 rank %s × %d 个 rank × %d 个 step；%s）", zhDevice, size(total), size(perRank), len(c.Rank), len(c.Step), zhBasis)}
}

// rankBytes is the expected dump.json size of one rank at one step.
func rankBytes(in *Input, c DumpConfig) (int64, string, string) {
	ref := in.A
	if ref == nil {
		ref = in.B
	}
	if ref != nil {
		tensors, layers := int64(0), map[int]bool{}
		for i := range ref.Ops {
			op := &ref.Ops[i]
			n := int64(len(op.Inputs) + len(op.Outputs) + len(op.Params))
			if len(c.Statistics.List) > 0 && !matchesList(op, c.Statistics.List) {
				continue
			}
			tensors += n
			if op.Layer >= 0 {
				layers[op.Layer] = true
			}
		}
		basis := fmt.Sprintf("from the %d records of the existing dump", tensors)
		zh := fmt.Sprintf("按现有 dump 的 %d 条记录估算", tensors)
		if c.Level == "mix" && !hasOperators(ref) {
			tensors *= mixFactor
			basis += fmt.Sprintf(", × %d for the operators of level mix", mixFactor)
			zh += fmt.Sprintf("，mix 级算子按 × %d 计", mixFactor)
		}
		return tensors * statBytes, basis, zh
	}
	params, window := 0, 1
	if in.P1 != nil {
		params = in.P1.Summary.TotalTargets
		if w := in.P1.Sharding.AccumulationWindow; w > 1 {
			window = w
		}
	}
	tensors := int64(params) * tensorsPerModule * int64(window)
	basis := fmt.Sprintf("from %d parameters × %d micro batches, about %d records", params, window, tensors)
	zh := fmt.Sprintf("按 %d 个参数 × %d 个 micro batch 估算，约 %d 条记录", params, window, tensors)
	if c.Level == "mix" {
		tensors *= mixFactor
	}
	return tensors * statBytes, basis, zh
}

// matchesList reports whether msprobe's list keeps op: a module whose
// name contains an entry (its operators are kept with it).
func matchesList(op *model.Op, list []string) bool {
	for _, w := range list {
		if strings.Contains(op.ModulePath+".", w) {
			return true
		}
	}
	return false
}

// size prints bytes as "12 KB", "3.4 MB".
func size(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%d KB", b>>10)
	}
	return fmt.Sprintf("%d B", b)
}
