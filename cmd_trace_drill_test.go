package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/testdata/synth"
)

// End to end from dump files: four micro-batches in one dump.json, the
// operator fault in micro-batch 2, dumps written in msprobe's record order
// (a module after its children) or the reverse, with or without
// construct.json. trace names the planted swiglu of micro-batch 2 (not its
// mlp or layer), at the planted layer, forward, and says it compared call 2
// of 4.
func TestTrace_DrillDownOrdersAndMicroBatches(t *testing.T) {
	for _, pre := range []bool{false, true} {
		for _, noConstruct := range []bool{false, true} {
			name := fmt.Sprintf("pre=%v/noconstruct=%v", pre, noConstruct)
			cfg := synth.DefaultConfig()
			cfg.DumpMicroBatches, cfg.Fault.MicroStep = cfg.Window, 2
			cfg.PreOrder, cfg.NoConstruct = pre, noConstruct
			run := synth.Generate(cfg)
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
			if err := run.WriteDumps(a, synth.Anomalous); err != nil {
				t.Fatal(err)
			}
			if err := run.WriteDumps(b, synth.Baseline); err != nil {
				t.Fatal(err)
			}
			tr := run.Truth()
			folder := filepath.Join(a, fmt.Sprintf("step%d/rank%d", tr.FaultOptStep, tr.FaultRank))
			if _, err := os.Stat(filepath.Join(folder, "construct.json")); (err == nil) == noConstruct {
				t.Fatalf("%s: construct.json present %v", name, err == nil)
			}
			r, se, rc := runTraceJSON(t, "--dump-a", a, "--dump-b", b, "--step", itoa(tr.FaultOptStep), "--rank", itoa(tr.FaultRank))
			if rc != 0 {
				t.Fatalf("%s: rc %d %s", name, rc, se)
			}
			dd := r.DivergenceSummary.Drilldown
			if dd == nil || dd.Layer == nil || *dd.Layer != tr.FaultLayer || dd.Direction != "fwd" || dd.Operator != tr.PlantedOperator {
				op := "<none>"
				if dd != nil {
					op = dd.Operator + " (" + dd.Note + ")"
				}
				t.Errorf("%s: drill-down %s, want L%d fwd %s", name, op, tr.FaultLayer, tr.PlantedOperator)
				continue
			}
			if dd.Call == nil || *dd.Call != 2 || dd.Calls != 4 {
				t.Errorf("%s: call %v of %d, want 2 of 4", name, dd.Call, dd.Calls)
			}
			for _, o := range dd.Ops {
				if strings.HasPrefix(o.Key, "Module.") && !strings.HasSuffix(o.Key, ".forward.2") {
					t.Errorf("%s: a record of another micro-batch is listed: %s", name, o.Key)
					break
				}
			}
		}
	}
}
