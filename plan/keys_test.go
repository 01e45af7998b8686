package plan

import (
	"encoding/json"
	"testing"
)

// The keys msprobe documents for its config files. Source: msprobe
// (github.com/Ascend/msprobe, commit 8ff00da3), docs/en/dump/config_json_introduct.md —
// "General Configuration" table and "task = statistics" parameters — and
// docs/en/monitor_instruct.md, "Detailed Configuration" field table.
var (
	documentedDumpKeys = set("task", "dump_path", "rank", "step", "level", "async_dump",
		"dump_enable", "extra_info", "precision", "risk_level", "statistics", "tensor")
	documentedStatisticsKeys = set("scope", "list", "tensor_list", "device", "data_mode", "summary_mode")
	// "task = tensor" parameters (bench_path and diff_nums are PyTorch MD5 options)
	documentedTensorKeys  = set("scope", "list", "data_mode", "file_format", "summary_mode", "bench_path", "diff_nums")
	documentedMonitorKeys = set("targets", "dynamic_on", "start_step", "collect_times", "step_interval",
		"print_struct", "module_ranks", "ur_distribution", "xy_distribution", "all_xy", "forward_only",
		"backward_only", "mv_distribution", "param_distribution", "wg_distribution", "monitor_mbs_grad",
		"cc_distribution", "alert", "mg_direction", "format", "ops", "eps", "ndigits",
		"step_count_per_record", "append_output", "squash_name")
	documentedLevels = set("L0", "L1", "L2", "mix", "debug")
	documentedOps    = set("norm", "min", "max", "zeros", "nans", "id", "mean", "shape", "dtype")
)

func set(v ...string) map[string]bool {
	m := map[string]bool{}
	for _, s := range v {
		m[s] = true
	}
	return m
}

// TestEveryWrittenConfigUsesOnlyDocumentedKeys builds the plans of every
// case, parses each config as JSON and holds its keys against msprobe's.
func TestEveryWrittenConfigUsesOnlyDocumentedKeys(t *testing.T) {
	mindspore := run()
	a := dump(5, 3, "L0")
	a.Framework = "mindspore"
	mindspore.ATree, mindspore.A = tree(a), a
	noMicro := run()
	noMicro.P1.Sharding.HasMicroStep = false
	cases := []Input{run(), mindspore, noMicro, {}}
	for _, c := range planCases() {
		cases = append(cases, c.in)
	}
	seen := 0
	for _, in := range cases {
		for _, c := range Build(in).Configs {
			data, err := ConfigJSON(c)
			if err != nil {
				t.Fatal(err)
			}
			var raw map[string]json.RawMessage
			if err := json.Unmarshal(data, &raw); err != nil {
				t.Fatalf("%s does not parse as JSON: %v\n%s", c.Name, err, data)
			}
			seen++
			if c.Name == MonitorFile {
				checkKeys(t, c.Name, raw, documentedMonitorKeys)
				var ops []string
				json.Unmarshal(raw["ops"], &ops)
				for _, op := range ops {
					if !documentedOps[op] {
						t.Errorf("%s: op %q is not in msprobe's OP_LIST", c.Name, op)
					}
				}
				continue
			}
			checkKeys(t, c.Name, raw, documentedDumpKeys)
			var task string
			json.Unmarshal(raw["task"], &task)
			documented := documentedStatisticsKeys
			if task == "tensor" {
				documented = documentedTensorKeys
			}
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(raw[task], &obj); err != nil || obj == nil {
				t.Fatalf("%s: no %q object for task %q: %v", c.Name, task, task, err)
			}
			checkKeys(t, c.Name+" "+task, obj, documented)
			var level string
			json.Unmarshal(raw["level"], &level)
			if !documentedLevels[level] {
				t.Errorf("%s: level %q is not one msprobe documents", c.Name, level)
			}
		}
	}
	if seen < 5 {
		t.Errorf("only %d configs checked", seen)
	}
}

func checkKeys(t *testing.T, name string, raw map[string]json.RawMessage, documented map[string]bool) {
	t.Helper()
	for k := range raw {
		if !documented[k] {
			t.Errorf("%s: key %q is not in msprobe's documentation", name, k)
		}
	}
}
