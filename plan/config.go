package plan

// The msprobe configuration files a plan writes. Every key is one that
// msprobe documents (keys_test.go holds them against msprobe's docs) and
// every value one that msprobe's own config checks accept
// (msprobe_rules_test.go ports them).

// DumpConfig is msprobe's dump config.json for task "statistics" or
// "tensor" (docs/en/dump/config_json_introduct.md, "General
// Configuration", "task = statistics" and "task = tensor"). msprobe reads
// the task's own object (json_config.get(task)): Statistics for task
// statistics, Tensor for task tensor, the other one absent. AsyncDump is
// left out of the MindSpore form, as in msprobe's MindSpore dynamic-graph
// example (config_json_examples.md).
type DumpConfig struct {
	Task       string      `json:"task"`
	DumpPath   string      `json:"dump_path"`
	Rank       []int       `json:"rank"`
	Step       []int       `json:"step"`
	Level      string      `json:"level"`
	AsyncDump  *bool       `json:"async_dump,omitempty"`
	ExtraInfo  bool        `json:"extra_info"`
	Statistics *TaskConfig `json:"statistics,omitempty"`
	Tensor     *TaskConfig `json:"tensor,omitempty"`
}

// TaskConfig is the "statistics" or "tensor" object of a dump config.
type TaskConfig struct {
	Scope       []string `json:"scope"`
	List        []string `json:"list"`
	DataMode    []string `json:"data_mode"`
	SummaryMode string   `json:"summary_mode"`
}

// StatisticsConfig is the former name of TaskConfig.
type StatisticsConfig = TaskConfig

// Filter is the task object of c: what it dumps (scope, list, data_mode).
func (c DumpConfig) Filter() *TaskConfig {
	if c.Task == TaskTensor {
		return c.Tensor
	}
	return c.Statistics
}

// MonitorConfig is msprobe's monitor (TrainerMon) config for weight
// gradients per micro batch (docs/en/monitor_instruct.md, "Detailed
// Configuration").
type MonitorConfig struct {
	Targets        map[string]struct{} `json:"targets"`
	WgDistribution bool                `json:"wg_distribution"`
	MonitorMbsGrad bool                `json:"monitor_mbs_grad"`
	Format         string              `json:"format"`
	Ops            []string            `json:"ops"`
	Ndigits        int                 `json:"ndigits"`
}

// monitorConfig is the config that records what Phase 1–2 read: weight
// gradients of every parameter, per micro batch, with their norm.
func monitorConfig() MonitorConfig {
	return MonitorConfig{
		Targets:        map[string]struct{}{},
		WgDistribution: true,
		MonitorMbsGrad: true,
		Format:         "csv",
		Ops:            []string{"min", "max", "mean", "norm"},
		Ndigits:        12,
	}
}

// Framework forms of the dump config.
const (
	PyTorch   = "pytorch"
	MindSpore = "mindspore"
)

// Tasks of a dump config.
const (
	TaskStatistics = "statistics"
	TaskTensor     = "tensor"
)

// dumpConfig is a dump of task at steps and ranks at level, narrowed to
// list (nil: everything), in the form of framework.
func dumpConfig(framework, task, path string, steps, ranks []int, level string, list []string) DumpConfig {
	f := &TaskConfig{Scope: []string{}, List: list, DataMode: []string{"all"}, SummaryMode: "statistics"}
	if f.List == nil {
		f.List = []string{}
	}
	c := DumpConfig{
		Task: task, DumpPath: path, Rank: ranks, Step: steps, Level: level,
		ExtraInfo: true, // construct.json: the layer tree the trace reads
	}
	if task == TaskTensor {
		c.Tensor = f
	} else {
		c.Statistics = f
	}
	if framework != MindSpore {
		f := false
		c.AsyncDump = &f
	}
	return c
}
