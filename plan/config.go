package plan

// The msprobe configuration files a plan writes. Every key is one that
// msprobe documents (keys_test.go holds them against msprobe's docs).

// DumpConfig is msprobe's dump config.json for task "statistics"
// (docs/en/dump/config_json_introduct.md, "General Configuration" and
// "task = statistics"). AsyncDump is left out of the MindSpore form, as in
// msprobe's MindSpore dynamic-graph example (config_json_examples.md).
type DumpConfig struct {
	Task       string           `json:"task"`
	DumpPath   string           `json:"dump_path"`
	Rank       []int            `json:"rank"`
	Step       []int            `json:"step"`
	Level      string           `json:"level"`
	AsyncDump  *bool            `json:"async_dump,omitempty"`
	ExtraInfo  bool             `json:"extra_info"`
	Statistics StatisticsConfig `json:"statistics"`
}

// StatisticsConfig is the "statistics" object of a dump config.
type StatisticsConfig struct {
	Scope       []string `json:"scope"`
	List        []string `json:"list"`
	DataMode    []string `json:"data_mode"`
	SummaryMode string   `json:"summary_mode"`
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

// dumpConfig is a statistics dump of steps and ranks at level, narrowed
// to list (nil: everything), in the form of framework.
func dumpConfig(framework, path string, steps, ranks []int, level string, list []string) DumpConfig {
	c := DumpConfig{
		Task: "statistics", DumpPath: path, Rank: ranks, Step: steps, Level: level,
		ExtraInfo: true, // construct.json: the layer tree the trace reads
		Statistics: StatisticsConfig{
			Scope: []string{}, List: list, DataMode: []string{"all"}, SummaryMode: "statistics",
		},
	}
	if c.Statistics.List == nil {
		c.Statistics.List = []string{}
	}
	if framework != MindSpore {
		f := false
		c.AsyncDump = &f
	}
	return c
}
