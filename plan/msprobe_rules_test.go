package plan

// msprobe's own config checks, ported to Go so that every config a plan
// can write is held against the rules msprobe applies when it reads it.
//
// Source: github.com/Ascend/msprobe at commit
// 8ff00da37660ef42e2ba945a2ec349b6f85314e1 (pyproject version 26.0.0):
//
//   - python/msprobe/core/dump/common_config.py — CommonConfig._check_config,
//     BaseConfig.check_config, _check_str_list_config, _check_data_mode,
//     _check_summary_mode, _check_request_id
//   - python/msprobe/core/common/utils.py — get_real_step_or_rank,
//     get_step_or_rank_from_string, is_int, check_slice_info
//   - python/msprobe/core/common/const.py — TASK_LIST, TORCH_TASK_LIST,
//     LEVEL_LIST, SUMMARY_MODE, DUMP_DATA_MODE_LIST, DUMP_PRECISION_LIST,
//     RISK_LEVEL_LIST, STEP_RANK_MAXIMUM_VALUE, DUMP_PREFIX,
//     MonitorConst.OP_LIST / MAX_NDIGITS
//   - python/msprobe/pytorch/dump/pt_config.py — parse_json_config,
//     parse_task_config, StatisticsConfig, TensorConfig
//   - python/msprobe/mindspore/dump/ms_config.py — parse_task_config,
//     StatisticsConfig._check_stat_params / _check_summary_mode
//   - python/msprobe/pytorch/dump/debugger/debugger_config.py —
//     DebuggerConfig.__init__ defaults, check, check_model,
//     _check_and_adjust_config_with_l2
//   - python/msprobe/core/dump/data_dump/scope.py — ScopeFactory,
//     BaseScope.rectify_args / check_api_list, RangeScope.rectify_args /
//     check_name_pattern, APIRangeScope, ModuleRangeScope, MixRangeScope
//   - python/msprobe/pytorch/dump/module_dump/module_processor.py — when
//     begin_module / end_module run (forward pre-hook / hook, backward
//     pre-hook / hook on torch >= 2)
//   - python/msprobe/core/monitor/utils.py — validate_config and the
//     validate_* it calls
//
// The older list semantics the versions in PLAN.md rest on are from
// msprobe's previous home, Ascend/mstt (debug/accuracy_tools/msprobe/
// core/data_dump/scope.py): up to 1.1.0 a list entry is matched as a
// substring of each record's name (check_api_list) at every level;
// commit e597db31e (2024-11-16, in 1.1.1) added MixRangeScope — a module
// whose name contains an entry keeps everything called inside it — and
// commit 5127b45aa (2024-12-11, in 1.2.0) fixed it for nested modules
// (start_name_set); before that end_module of any matching submodule
// closed the list.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

var (
	msTaskList      = []string{"tensor", "statistics", "acc_check", "structure", "diff_check", "exception_dump", "nan_check"}
	msTorchTaskList = []string{"tensor", "statistics", "acc_check", "structure", "diff_check", "nan_check"}
	msMSTaskList    = []string{"tensor", "statistics", "structure", "exception_dump"}
	msLevelList     = []string{"L0", "L1", "L2", "mix", "debug"}
	msSummaryModes  = []string{"statistics", "md5", "xor"}
	msDataModes     = []string{"all", "input", "output", "forward", "backward"}
	msPrecisions    = []string{"low", "high"}
	msRiskLevels    = []string{"CORE", "FOCUS", "ALL"}
	msDumpPrefix    = []string{"Distributed", "Functional", "Torch", "Tensor", "Mint", "MintFunctional", "Primitive", "Aten", "VF", "NPU", "Jit"}
	msMonitorOps    = []string{"norm", "min", "max", "zeros", "nans", "id", "mean", "shape", "dtype"}
)

const (
	msStepRankMax = 1000000
	msMaxNdigits  = 20
)

func in(v []string, s string) bool {
	for _, x := range v {
		if x == s {
			return true
		}
	}
	return false
}

// msDump is a dump config as msprobe's DebuggerConfig holds it after its
// checks.
type msDump struct {
	Task, Level, DumpPath string
	Rank, Step            []int
	Scope, List           []string
	DataMode              []string
	SummaryMode           string
	AsyncDump, ExtraInfo  bool
	// NeedsModel: check_model raises without a model at this level.
	NeedsModel bool
	// ScopeKind is the scope ScopeFactory builds: "" (none: everything by
	// risk level), "api", "module" or "mix".
	ScopeKind string
}

// isInt is msprobe's is_int on a decoded JSON value: an integer, not a
// bool (Python's json gives int for 5 and float for 5.0).
func isInt(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok || strings.ContainsAny(n.String(), ".eE") {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

func decode(data []byte) (map[string]any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// truthy is Python's truth value of a decoded JSON value.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case []any:
		return len(x) > 0
	case map[string]any:
		return len(x) > 0
	case json.Number:
		f, _ := x.Float64()
		return f != 0
	}
	return true
}

// realStepOrRank is get_real_step_or_rank.
func realStepOrRank(v any, obj string) ([]int, error) {
	if v == nil {
		return []int{}, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is invalid, it should be a list", obj)
	}
	if len(l) > msStepRankMax {
		return nil, fmt.Errorf("%s is invalid, its length cannot exceed %d", obj, msStepRankMax)
	}
	seen := map[int]bool{}
	for _, e := range l {
		if i, ok := isInt(e); ok {
			if i < 0 || i > msStepRankMax {
				return nil, fmt.Errorf("each element of %s must be between 0 and %d, currently it is %d", obj, msStepRankMax, i)
			}
			seen[int(i)] = true
			continue
		}
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s element %v must be an integer or string", obj, e)
		}
		parts := strings.Split(s, "-")
		if len(parts) > 2 {
			return nil, fmt.Errorf("the string parameter for %s only supports formats like \"3\" or \"3-5\"", obj)
		}
		lo, err1 := strconv.Atoi(parts[0])
		hi, err2 := lo, error(nil)
		if len(parts) == 2 {
			hi, err2 = strconv.Atoi(parts[1])
		}
		if err1 != nil || err2 != nil || lo < 0 || hi > msStepRankMax || lo > hi {
			return nil, fmt.Errorf("%s element %q is not a number or a range lo-hi within [0, %d]", obj, s, msStepRankMax)
		}
		for i := lo; i <= hi; i++ {
			seen[i] = true
		}
	}
	out := []int{}
	for i := range seen {
		out = append(out, i)
	}
	sort.Ints(out) // list(set(...)).sort()
	return out, nil
}

// strList is BaseConfig._check_str_list_config (nil: absent).
func strList(v any, name string) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is invalid, it should be a list[str]", name)
	}
	out := []string{}
	for _, e := range l {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%s is invalid, it should be a list[str]", name)
		}
		out = append(out, s)
	}
	return out, nil
}

// msCheckDump reads a dump config.json the way msprobe's PrecisionDebugger
// does for framework (parse_json_config, DebuggerConfig, ScopeFactory)
// and returns the first error msprobe would raise.
func msCheckDump(data []byte, framework string) (msDump, error) {
	var c msDump
	m, err := decode(data)
	if err != nil {
		return c, fmt.Errorf("load_json: %v", err)
	}
	// CommonConfig
	task, _ := m["task"].(string)
	if m["task"] != nil {
		if _, ok := m["task"].(string); !ok || truthy(m["task"]) && !in(msTaskList, task) {
			return c, fmt.Errorf("task is invalid, it should be one of %v", msTaskList)
		}
	}
	if v, ok := m["dump_path"]; ok && v != nil {
		if _, ok := v.(string); !ok {
			return c, fmt.Errorf("dump_path is invalid, it should be a string")
		}
	}
	c.DumpPath, _ = m["dump_path"].(string)
	if c.Rank, err = realStepOrRank(m["rank"], "rank"); err != nil {
		return c, err
	}
	if c.Step, err = realStepOrRank(m["step"], "step"); err != nil {
		return c, err
	}
	level, _ := m["level"].(string)
	if truthy(m["level"]) && !in(msLevelList, level) {
		return c, fmt.Errorf("level is invalid, it should be one of %v", msLevelList)
	}
	if v, ok := m["dump_enable"]; ok && v != nil {
		if _, ok := v.(bool); !ok {
			return c, fmt.Errorf("dump_enable is invalid, it should be a boolean")
		}
	}
	c.ExtraInfo = true
	if v, ok := m["extra_info"]; ok {
		b, ok := v.(bool)
		if !ok {
			return c, fmt.Errorf("extra_info is invalid, it should be a boolean")
		}
		c.ExtraInfo = b
	}
	if v, ok := m["async_dump"]; ok {
		b, ok := v.(bool)
		if !ok {
			return c, fmt.Errorf("async_dump is invalid, it should be a boolean")
		}
		c.AsyncDump = b
	}
	if v, ok := m["precision"]; ok {
		if s, _ := v.(string); !in(msPrecisions, s) {
			return c, fmt.Errorf("precision is invalid, it should be one of %v", msPrecisions)
		}
	}
	if v, ok := m["risk_level"]; ok && truthy(v) {
		if s, _ := v.(string); !in(msRiskLevels, s) {
			return c, fmt.Errorf("risk_level is invalid, it should be one of %v", msRiskLevels)
		}
	}
	// parse_task_config
	tasks := msTorchTaskList
	if framework == MindSpore {
		tasks = msMSTaskList
	}
	if !in(tasks, task) {
		return c, fmt.Errorf("task <%s> is invalid, it is not in the %v", task, tasks)
	}
	tm := map[string]any{}
	if v, ok := m[task]; ok && v != nil {
		t, ok := v.(map[string]any)
		if !ok {
			return c, fmt.Errorf("the %q object is not a dict", task)
		}
		tm = t
	}
	// BaseConfig.check_config
	if c.Scope, err = strList(tm["scope"], "scope"); err != nil {
		return c, err
	}
	if c.List, err = strList(tm["list"], "list"); err != nil {
		return c, err
	}
	if s := tm["slice"]; truthy(s) {
		if _, ok := s.([]any); !ok {
			return c, fmt.Errorf("slice is invalid, it should be a list")
		}
	}
	if v := tm["data_mode"]; v != nil {
		l, ok := v.([]any)
		if !ok {
			return c, fmt.Errorf("data_mode is invalid, it should be a list[str]")
		}
		modes, err := strList(v, "data_mode")
		if err != nil {
			return c, err
		}
		if in(modes, "all") && len(l) != 1 {
			return c, fmt.Errorf("'all' cannot be combined with other options in data_mode")
		}
		if len(l) >= len(msDataModes) {
			return c, fmt.Errorf("the number of elements in the data_mode cannot exceed %d", len(msDataModes)-1)
		}
		for _, mode := range modes {
			if !in(msDataModes, mode) {
				return c, fmt.Errorf("the element %q of data_mode is not in %v", mode, msDataModes)
			}
		}
		c.DataMode = modes
	}
	if v, ok := tm["request_id"]; ok && v != nil {
		if _, ok := v.(string); !ok {
			return c, fmt.Errorf("request_id is invalid, it should be str")
		}
	}
	summary, isStr := tm["summary_mode"].(string)
	switch {
	case framework == MindSpore && tm["summary_mode"] != nil && !isStr:
		if _, ok := tm["summary_mode"].([]any); !ok {
			return c, fmt.Errorf("summary_mode is invalid")
		}
	case truthy(tm["summary_mode"]) && (!isStr || !in(msSummaryModes, summary)):
		return c, fmt.Errorf("summary_mode is invalid, summary_mode is not in %v", msSummaryModes)
	}
	if task == "statistics" {
		if _, err := strList(tm["tensor_list"], "tensor_list"); err != nil {
			return c, err
		}
		if framework == MindSpore {
			if v, ok := tm["device"]; ok {
				if s, _ := v.(string); s != "device" && s != "host" {
					return c, fmt.Errorf("config param [device] is invalid")
				}
			}
		}
	}
	// DebuggerConfig: defaults, then check()
	c.Task = task
	c.Level = level
	if c.Level == "" {
		c.Level = "L1"
	}
	if len(c.DataMode) == 0 {
		c.DataMode = []string{"all"}
	}
	c.SummaryMode = summary
	if c.SummaryMode == "" {
		c.SummaryMode = "statistics"
	}
	if c.DumpPath == "" {
		return c, fmt.Errorf("the dump_path not found")
	}
	if c.AsyncDump && c.Task == "tensor" && len(c.List) == 0 && c.Level != "debug" {
		return c, fmt.Errorf("the parameters async_dump is true in tensor task, the parameters list cannot be empty")
	}
	if c.AsyncDump && c.SummaryMode == "md5" {
		return c, fmt.Errorf("the parameters async_dump is true, the parameters summary_mode cannot be md5")
	}
	if c.Task == "nan_check" && c.Level != "L1" {
		return c, fmt.Errorf("when the task is set to nan_check, the level must be L1")
	}
	if c.Level == "L2" {
		if len(c.Scope) > 0 {
			return c, fmt.Errorf("when level is set to L2, the scope cannot be configured")
		}
		if len(c.List) != 1 {
			return c, fmt.Errorf("when level is set to L2, the list must be configured as a list with one api name")
		}
		if c.Task != "tensor" {
			return c, fmt.Errorf("when level is set to L2, the task must be set to tensor")
		}
	}
	// check_model: levels L0 and mix raise without a model
	c.NeedsModel = c.Level == "L0" || c.Level == "mix"
	// ScopeFactory.build_scope
	c.ScopeKind, err = msScopeKind(c.Scope, c.List, c.Level)
	return c, err
}

// msScopeKind is ScopeFactory.build_scope: which scope it builds, or the
// ScopeException it raises (all three range scopes are constructed, so
// each one's rectify_args runs).
func msScopeKind(scope, list []string, level string) (string, error) {
	if len(scope) == 0 && len(list) == 0 {
		return "", nil
	}
	if len(scope) != 0 && len(scope) != 2 {
		return "", fmt.Errorf("scope参数指定区间断点，须传入长度为2的列表，实际长度为%d", len(scope))
	}
	opts := make([]string, len(msDumpPrefix))
	for i, p := range msDumpPrefix {
		opts[i] = regexp.QuoteMeta(p)
	}
	api := regexp.MustCompile(`^(` + strings.Join(opts, "|") + `)\..*\.\d+\.(forward|backward)$`)
	module := regexp.MustCompile(`^(Cell|Module)\..*\.(forward|backward)\.\d+$`)
	for _, name := range scope {
		switch {
		case level == "L1" && !api.MatchString(name),
			level == "L0" && !module.MatchString(name),
			level == "mix" && !api.MatchString(name) && !module.MatchString(name):
			return "", fmt.Errorf("scope参数格式错误: %s", name)
		}
	}
	if level == "mix" {
		return "mix", nil
	}
	if len(scope) == 0 {
		return "api", nil
	}
	isModule := func(s string) bool { t := strings.SplitN(s, ".", 2)[0]; return t == "Module" || t == "Cell" }
	apiValid := !isModule(scope[0]) && !isModule(scope[1])
	moduleValid := isModule(scope[0]) && isModule(scope[1])
	switch {
	case apiValid && moduleValid:
		return "", fmt.Errorf("scope=%v", scope)
	case apiValid:
		return "api", nil
	case moduleValid:
		return "module", nil
	}
	return "", fmt.Errorf("scope=%v", scope)
}

// msMonitor is a monitor config as TrainerMon holds it after
// validate_config.
type msMonitor struct {
	Ops            []string
	WgDistribution bool
	MonitorMbsGrad bool
	Format         string
	AllTargets     bool // targets {} becomes {"": {}}: every module
}

// msCheckMonitor is validate_config of msprobe's monitor.
func msCheckMonitor(data []byte) (msMonitor, error) {
	var c msMonitor
	m, err := decode(data)
	if err != nil {
		return c, err
	}
	// validate_ops: unknown ops are dropped with a warning, norm when none
	// is left; shape and dtype are added
	if v, ok := m["ops"]; ok {
		ops, err := strList(v, "ops")
		if err != nil {
			return c, fmt.Errorf("ops should be a list")
		}
		for _, op := range ops {
			if in(msMonitorOps, op) {
				c.Ops = append(c.Ops, op)
			}
		}
	}
	if len(c.Ops) == 0 {
		c.Ops = []string{msMonitorOps[0]}
	}
	if v, ok := m["ndigits"]; ok && truthy(v) {
		i, ok := isInt(v)
		if !ok || i <= 0 {
			return c, fmt.Errorf("ndigits(%v) is not a positive integer", v)
		}
		if i > msMaxNdigits {
			return c, fmt.Errorf("the maximum supported ndigits is %d", msMaxNdigits)
		}
	}
	if v, ok := m["eps"]; ok {
		if n, ok := v.(json.Number); !ok || !strings.ContainsAny(n.String(), ".eE") {
			return c, fmt.Errorf("eps should be a float")
		}
	}
	if v, ok := m["module_ranks"]; ok {
		l, ok := v.([]any)
		if !ok {
			return c, fmt.Errorf("module_ranks should be a list")
		}
		for _, r := range l {
			if _, ok := isInt(r); !ok {
				return c, fmt.Errorf("element in module_ranks should be a int")
			}
		}
	}
	targets := map[string]any{}
	if v, ok := m["targets"]; ok {
		t, ok := v.(map[string]any)
		if !ok {
			return c, fmt.Errorf("targets in config.json should be a dict")
		}
		for _, f := range t {
			if _, ok := f.(map[string]any); !ok {
				return c, fmt.Errorf("values of targets should be cared filed e.g. {\"input\": \"tensor\"} in config.json")
			}
		}
		targets = t
	}
	for _, k := range []string{"print_struct", "ur_distribution", "xy_distribution", "wg_distribution", "mg_distribution", "param_distribution", "squash_name", "dynamic_on", "recording_l2_features"} {
		if v, ok := m[k]; ok {
			if _, ok := v.(bool); !ok {
				return c, fmt.Errorf("%s should be a bool", k)
			}
		}
	}
	for _, k := range []string{"cc_distribution", "alert"} {
		if v, ok := m[k]; ok {
			if _, ok := v.(map[string]any); !ok {
				return c, fmt.Errorf("%s should be a dictionary", k)
			}
		}
	}
	if v, ok := m["step_count_per_record"]; ok {
		i, ok := isInt(v)
		if !ok || i < 1 || i > 1000000 {
			return c, fmt.Errorf("step_count_per_record must be an int in [1, 1e6]")
		}
	}
	if v, ok := m["append_output"]; ok {
		l, ok := v.([]any)
		if !ok || len(l) != 0 && len(l) != 2 {
			return c, fmt.Errorf("append_output should be empty or contain exactly 2 elements")
		}
	}
	// validate_monitor_mbs_grad: anything but a bool warns and is False
	c.MonitorMbsGrad, _ = m["monitor_mbs_grad"].(bool)
	c.WgDistribution, _ = m["wg_distribution"].(bool)
	c.Format, _ = m["format"].(string)
	if c.Format == "" {
		c.Format = "csv" // the default (docs: csv, tensorboard, api)
	}
	if !in([]string{"csv", "tensorboard", "api"}, c.Format) {
		return c, fmt.Errorf("format %q is not csv, tensorboard or api", c.Format)
	}
	c.AllTargets = len(targets) == 0
	return c, nil
}

// ---- what a dump keeps: msprobe's scope over a sequence of calls ----

// event is one hook call in execution order: a module's begin (forward
// pre-hook or backward pre-hook), a record's check (an API call or a
// module's data), a module's end (forward hook or full backward hook).
type event struct {
	kind string // "begin", "record", "end"
	name string
}

// scopeVersion is which msprobe's list semantics to run.
type scopeVersion int

const (
	scope26     scopeVersion = iota // 1.2.0 … 26.0.0: MixRangeScope with start_name_set
	scope111                        // 1.1.1: MixRangeScope, any matching end_module closes the list
	scopeBefore                     // ≤ 1.1.0: check_api_list (substring of the record name) at every level
)

// msKept are the records a dump with list at level keeps over events.
func msKept(events []event, level string, list []string, v scopeVersion) []string {
	contains := func(name string) bool {
		if len(list) == 0 {
			return true
		}
		for _, w := range list {
			if strings.Contains(name, w) {
				return true
			}
		}
		return false
	}
	var kept []string
	inList := false
	open := map[string]bool{}
	for _, e := range events {
		mix := level == "mix" && v != scopeBefore
		switch e.kind {
		case "begin":
			if mix {
				for _, w := range list {
					if strings.Contains(e.name, w) {
						inList = true
						open[e.name] = true
					}
				}
			}
		case "end":
			if !mix {
				continue
			}
			if v == scope111 {
				for _, w := range list {
					if strings.Contains(e.name, w) {
						inList = false
					}
				}
				continue
			}
			delete(open, e.name)
			if len(open) == 0 {
				inList = false
			}
		case "record":
			isModule := strings.HasPrefix(e.name, "Module.")
			if level == "L0" && !isModule || level == "L1" && isModule {
				continue // the level does not hook it
			}
			if mix && inList || contains(e.name) {
				kept = append(kept, e.name)
			}
		}
	}
	return kept
}

// megatronStep is the hook calls of one training step of a Megatron-style
// GPT with layers 0..n-1 under prefix ("module.module.decoder.layers."):
// each layer runs self_attention (linear_qkv, core_attention, linear_proj)
// and mlp (linear_fc1, linear_fc2) and a residual add made directly in the
// layer after each of them; the backward runs the layers in reverse.
// API calls are numbered per API over the step, as msprobe numbers them.
func megatronStep(prefix string, n int) []event {
	var ev []event
	count := map[string]int{}
	call := func(api, dir string, idx int) event {
		return event{"record", fmt.Sprintf("%s.%d.%s", api, idx, dir)}
	}
	type sub struct {
		path, class string
		apis        []string
	}
	subs := []sub{
		{"self_attention.linear_qkv", "ColumnParallelLinear", []string{"Functional.linear"}},
		{"self_attention.core_attention", "DotProductAttention", []string{"Torch.matmul", "Functional.softmax", "Torch.matmul"}},
		{"self_attention.linear_proj", "RowParallelLinear", []string{"Functional.linear"}},
		{"mlp.linear_fc1", "ColumnParallelLinear", []string{"Functional.linear", "Functional.gelu"}},
		{"mlp.linear_fc2", "RowParallelLinear", []string{"Functional.linear"}},
	}
	type fwdCall struct {
		api string
		idx int
	}
	calls := map[string][]fwdCall{} // module → its forward API calls, for the backward
	mod := func(l int, path, class, dir string) string {
		p := prefix + strconv.Itoa(l)
		if path != "" {
			p += "." + path
		}
		return "Module." + p + "." + class + "." + dir + ".0"
	}
	for l := 0; l < n; l++ {
		layer := mod(l, "", "TransformerLayer", "forward")
		ev = append(ev, event{"begin", layer})
		for i, s := range subs {
			m := mod(l, s.path, s.class, "forward")
			ev = append(ev, event{"begin", m})
			for _, api := range s.apis {
				ev = append(ev, call(api, "forward", count[api]))
				calls[m] = append(calls[m], fwdCall{api, count[api]})
				count[api]++
			}
			ev = append(ev, event{"record", m}, event{"end", m})
			if i == 2 || i == 4 { // residual adds, in the layer itself
				ev = append(ev, call("Tensor.__add__", "forward", count["Tensor.__add__"]))
				calls[layer] = append(calls[layer], fwdCall{"Tensor.__add__", count["Tensor.__add__"]})
				count["Tensor.__add__"]++
			}
		}
		ev = append(ev, event{"record", layer}, event{"end", layer})
	}
	for l := n - 1; l >= 0; l-- {
		layer := mod(l, "", "TransformerLayer", "backward")
		fl := mod(l, "", "TransformerLayer", "forward")
		ev = append(ev, event{"begin", layer})
		for i := len(subs) - 1; i >= 0; i-- {
			if i == 4 || i == 2 {
				c := calls[fl][map[int]int{4: 1, 2: 0}[i]]
				ev = append(ev, call(c.api, "backward", c.idx))
			}
			s := subs[i]
			m := mod(l, s.path, s.class, "backward")
			ev = append(ev, event{"begin", m})
			fc := calls[mod(l, s.path, s.class, "forward")]
			for j := len(fc) - 1; j >= 0; j-- {
				ev = append(ev, call(fc[j].api, "backward", fc[j].idx))
			}
			ev = append(ev, event{"record", m}, event{"end", m})
		}
		ev = append(ev, event{"record", layer}, event{"end", layer})
	}
	return ev
}
