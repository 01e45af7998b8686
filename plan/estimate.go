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
		fmt.Sprintf("%s device: about %s (%s per rank × %d %s × %d step; %s)", device, size(total), size(perRank), len(c.Rank), rankWord(len(c.Rank)), len(c.Step), basis),
		fmt.Sprintf("%s：约 %s（每个 rank %s × %d 个 rank × %d 个 step；%s）", zhDevice, size(total), size(perRank), len(c.Rank), len(c.Step), zhBasis)}
}

// rankBytes is the expected dump.json size of one rank at one step.
func rankBytes(in *Input, c DumpConfig) (int64, string, string) {
	ref := in.A
	if ref == nil {
		ref = in.B
	}
	if ref != nil {
		tensors, data, layers := int64(0), int64(0), map[int]bool{}
		for i := range ref.Ops {
			op := &ref.Ops[i]
			n := int64(len(op.Inputs) + len(op.Outputs) + len(op.Params))
			if len(c.Filter().List) > 0 && !matchesList(op, c.Filter().List) {
				continue
			}
			tensors += n
			if c.Task == TaskTensor {
				for _, ts := range [][]model.TensorStat{op.Inputs, op.Outputs, op.Params} {
					for i := range ts {
						if ts[i].Elements > 0 {
							data += ts[i].Elements * dtypeBytes(ts[i].Dtype)
						}
					}
				}
			}
			if op.Layer >= 0 {
				layers[op.Layer] = true
			}
		}
		basis := fmt.Sprintf("from the %d records of the existing dump", tensors)
		zh := fmt.Sprintf("按现有 dump 的 %d 条记录估算", tensors)
		if c.Task == TaskTensor {
			basis += fmt.Sprintf(", and %s of tensors (the shapes and dtypes recorded there)", size(data))
			zh += fmt.Sprintf("，另加 %s 张量数据（按其中记录的 shape 与 dtype）", size(data))
			return tensors*statBytes + data, basis, zh
		}
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

// matchesList reports whether msprobe's list keeps op: a record whose
// name contains an entry, or (level mix) one called inside a module whose
// name contains one.
func matchesList(op *model.Op, list []string) bool {
	for _, w := range list {
		if strings.Contains(op.Key, w) || strings.Contains(op.ModulePath+".", w) || op.Parent != "" && strings.Contains(op.Parent, w) {
			return true
		}
	}
	return false
}

// dtypeBytes is the size of one element of dtype (4 when unknown).
func dtypeBytes(dtype string) int64 {
	d := strings.ToLower(dtype)
	switch {
	case strings.Contains(d, "float16"), strings.Contains(d, "bfloat16"), strings.Contains(d, "int16"), strings.Contains(d, "half"):
		return 2
	case strings.Contains(d, "float64"), strings.Contains(d, "int64"), strings.Contains(d, "double"), strings.Contains(d, "long"):
		return 8
	case strings.Contains(d, "bool"), strings.Contains(d, "int8"), strings.Contains(d, "uint8"):
		return 1
	}
	return 4
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
