package plan

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestEveryConfigPassesMsprobesChecks builds the plan of every case and
// reads each config it writes through the port of msprobe's own checks
// (msprobe_rules_test.go): msprobe must accept it, and hold the values
// PLAN.md names (task, level, step, rank, list), with the model passed to
// start() at levels L0 and mix.
func TestEveryConfigPassesMsprobesChecks(t *testing.T) {
	seen := map[string]int{}
	for _, pc := range planCases() {
		p := Build(pc.in)
		md := Markdown(p, false)
		for _, c := range p.Configs {
			data, err := ConfigJSON(c)
			if err != nil {
				t.Fatal(err)
			}
			switch v := c.Value.(type) {
			case MonitorConfig:
				seen["monitor"]++
				m, err := msCheckMonitor(data)
				if err != nil {
					t.Errorf("%s: %s: msprobe's monitor rejects it: %v\n%s", pc.name, c.Name, err, data)
					continue
				}
				if !m.WgDistribution || !m.MonitorMbsGrad || !in(m.Ops, "norm") || m.Format != "csv" || !m.AllTargets {
					t.Errorf("%s: %s as msprobe reads it: %+v; want weight gradients of every module per micro batch, norm, csv", pc.name, c.Name, m)
				}
				for _, want := range []string{"TrainerMon(", "set_monitor(", "grad_acc_steps=", "optimizer=optimizer", "8.1.0", "monitor_output"} {
					if !strings.Contains(md, want) {
						t.Errorf("%s: PLAN.md lacks %q for the monitor run", pc.name, want)
					}
				}
			case DumpConfig:
				fw := PyTorch
				if v.AsyncDump == nil {
					fw = MindSpore
				}
				seen[v.Task+" "+v.Level]++
				d, err := msCheckDump(data, fw)
				if err != nil {
					t.Errorf("%s: %s: msprobe rejects it: %v\n%s", pc.name, c.Name, err, data)
					continue
				}
				if d.Task != v.Task || d.Level != v.Level || !reflect.DeepEqual(d.Step, v.Step) || !reflect.DeepEqual(d.Rank, sortedCopy(v.Rank)) || d.DumpPath != v.DumpPath {
					t.Errorf("%s: %s as msprobe reads it: task %q level %q step %v rank %v path %q; written %q %q %v %v %q",
						pc.name, c.Name, d.Task, d.Level, d.Step, d.Rank, d.DumpPath, v.Task, v.Level, v.Step, v.Rank, v.DumpPath)
				}
				if len(v.Filter().List) > 0 && d.ScopeKind == "" || len(v.Filter().List) == 0 && d.ScopeKind != "" {
					t.Errorf("%s: %s: list %v but msprobe's scope %q", pc.name, c.Name, v.Filter().List, d.ScopeKind)
				}
				if d.NeedsModel && !strings.Contains(md, "debugger.start(model=model)") {
					t.Errorf("%s: level %s needs the model in start(), PLAN.md does not say so", pc.name, d.Level)
				}
				action := "with " + c.Name + " — task " + v.Task + ", step " + strconv.Itoa(v.Step[0]) + ", " + rankWord(len(v.Rank)) + " " + intList(v.Rank) + ", level " + v.Level
				if !strings.Contains(md, action) {
					t.Errorf("%s: PLAN.md does not say what %s dumps (%q):\n%s", pc.name, c.Name, action, md)
				}
				for _, w := range v.Filter().List {
					if !strings.Contains(md, strconv.Quote(w)) {
						t.Errorf("%s: PLAN.md does not name list entry %q", pc.name, w)
					}
				}
			default:
				t.Errorf("%s: %s holds %T", pc.name, c.Name, c.Value)
			}
		}
	}
	// every kind of config the plan writes was checked
	for _, k := range []string{"monitor", "statistics L0", "statistics mix", "tensor mix"} {
		if seen[k] == 0 {
			t.Errorf("no %s config among the cases: %v", k, seen)
		}
	}
}

func sortedCopy(v []int) []int {
	out := append([]int(nil), v...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

// The port itself: configs msprobe rejects are rejected.
func TestMsprobeRulesRejectWhatMsprobeRejects(t *testing.T) {
	bad := map[string]string{
		`{"task": "stats", "dump_path": "./d", "level": "L0"}`:                                                                                               "task is invalid",
		`{"task": "statistics", "dump_path": "./d", "level": "L3"}`:                                                                                          "level is invalid",
		`{"task": "statistics", "dump_path": "./d", "step": [1.0]}`:                                                                                          "must be an integer or string",
		`{"task": "statistics", "dump_path": "./d", "rank": ["5-3"]}`:                                                                                        "rank element",
		`{"task": "statistics", "dump_path": "./d", "rank": 3}`:                                                                                              "should be a list",
		`{"task": "statistics", "dump_path": "./d", "async_dump": "false"}`:                                                                                  "async_dump is invalid",
		`{"task": "statistics", "level": "L0"}`:                                                                                                              "dump_path not found",
		`{"task": "statistics", "dump_path": "./d", "statistics": {"data_mode": ["all", "input"]}}`:                                                          "cannot be combined",
		`{"task": "statistics", "dump_path": "./d", "statistics": {"summary_mode": "l2norm"}}`:                                                               "summary_mode is invalid",
		`{"task": "statistics", "dump_path": "./d", "statistics": {"list": "decoder.layers.1."}}`:                                                            "list is invalid",
		`{"task": "tensor", "dump_path": "./d", "async_dump": true, "tensor": {"list": []}}`:                                                                 "list cannot be empty",
		`{"task": "tensor", "dump_path": "./d", "level": "L2", "tensor": {"list": ["a", "b"]}}`:                                                              "one api name",
		`{"task": "statistics", "dump_path": "./d", "level": "L0", "statistics": {"scope": ["x"]}}`:                                                          "长度为2",
		`{"task": "statistics", "dump_path": "./d", "level": "L0", "statistics": {"scope": ["Functional.linear.0.forward", "Functional.linear.1.forward"]}}`: "scope参数格式错误",
	}
	for cfg, want := range bad {
		if _, err := msCheckDump([]byte(cfg), PyTorch); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", cfg, err, want)
		}
	}
	good := `{"task": "statistics", "dump_path": "./d", "rank": [1, "3-4"], "step": ["5"], "level": "mix", "statistics": {"list": ["decoder.layers.1."]}}`
	d, err := msCheckDump([]byte(good), PyTorch)
	if err != nil || !reflect.DeepEqual(d.Rank, []int{1, 3, 4}) || !reflect.DeepEqual(d.Step, []int{5}) || d.ScopeKind != "mix" || !d.NeedsModel {
		t.Errorf("%s: %+v %v", good, d, err)
	}
	for cfg, want := range map[string]string{
		`{"targets": []}`:               "targets",
		`{"targets": {"layers.0": []}}`: "values of targets",
		`{"wg_distribution": "true"}`:   "wg_distribution",
		`{"ndigits": 30}`:               "ndigits",
		`{"eps": 1}`:                    "eps",
		`{"format": "json"}`:            "format",
		`{"step_count_per_record": 0}`:  "step_count_per_record",
	} {
		if _, err := msCheckMonitor([]byte(cfg)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("monitor %s: error %v, want %q", cfg, err, want)
		}
	}
}

// What a level-mix dump narrowed to a layer keeps, by msprobe version:
// the reason PLAN.md asks for 1.2.0 or later.
func TestMixLayerListKeepsTheCallsInsideTheLayerFrom120(t *testing.T) {
	ev := megatronStep(gptPrefix, 4)
	list := []string{gptPrefix + "1."}
	inside := map[string]bool{} // API records called inside layer 1, forward and backward
	depth, layer1 := 0, false
	for _, e := range ev {
		switch e.kind {
		case "begin":
			if strings.Contains(e.name, gptPrefix+"1.TransformerLayer") {
				layer1 = true
			}
			depth++
		case "end":
			depth--
			if strings.Contains(e.name, gptPrefix+"1.TransformerLayer") {
				layer1 = false
			}
		case "record":
			if layer1 && !strings.HasPrefix(e.name, "Module.") {
				inside[e.name] = true
			}
		}
	}
	if len(inside) != 2*(8+2) {
		t.Fatalf("layer 1 makes %d API calls, want 20 (8 in its submodules and 2 residual adds, forward and backward)", len(inside))
	}
	apis := func(kept []string) (in, out int) {
		for _, k := range kept {
			switch {
			case strings.HasPrefix(k, "Module."):
			case inside[k]:
				in++
			default:
				out++
			}
		}
		return
	}
	in26, out26 := apis(msKept(ev, "mix", list, scope26))
	if in26 != len(inside) || out26 != 0 {
		t.Errorf("1.2.0…26.0: keeps %d of layer 1's %d API calls and %d outside it", in26, len(inside), out26)
	}
	for _, k := range msKept(ev, "mix", list, scope26) {
		if strings.HasPrefix(k, "Module.") && !strings.Contains(k, gptPrefix+"1.") {
			t.Errorf("1.2.0…26.0 keeps module %s outside layer 1", k)
		}
	}
	if in111, _ := apis(msKept(ev, "mix", list, scope111)); in111 >= len(inside) || in111 == 0 {
		t.Errorf("1.1.1: keeps %d of layer 1's %d API calls; want the residual adds lost", in111, len(inside))
	}
	before := msKept(ev, "mix", list, scopeBefore)
	if inOld, _ := apis(before); inOld != 0 || len(before) == 0 {
		t.Errorf("≤ 1.1.0: keeps %d API calls of layer 1 and %d records; want the modules only", inOld, len(before))
	}
	// a tensor dump of one call keeps that call, forward and backward
	kept := msKept(ev, "mix", []string{callEntry("Functional.linear.5.forward")}, scope26)
	if !reflect.DeepEqual(kept, []string{"Functional.linear.5.forward", "Functional.linear.5.backward"}) {
		t.Errorf("list [Functional.linear.5.] keeps %v", kept)
	}
}
