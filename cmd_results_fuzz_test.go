package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/ingest"
	"spikescope/model"
)

// FuzzResultFiles feeds arbitrary bytes to the readers of saved Phase 1, 2
// and 3 results (select --phase1, report --phase1/--phase2/--phase3): they
// never panic, fail only with an *ingest.InputError whose message is one
// line free of Go internals, and a Phase 1 result they accept has no
// negative rank or step.
func FuzzResultFiles(f *testing.F) {
	// seeds: detect's and select's output on the demo run
	var p1, p2, errb bytes.Buffer
	if run([]string{"detect", "--summary", demoTrendDB}, &p1, &errb) == 0 {
		f.Add(p1.Bytes())
		tmp := filepath.Join(f.TempDir(), "p1.json")
		if os.WriteFile(tmp, p1.Bytes(), 0o644) == nil && run([]string{"select", "--phase1", tmp}, &p2, &errb) == 0 {
			f.Add(p2.Bytes())
		}
	}
	for _, s := range []string{`{}`, `[]`, `{"anomalies": []}`, `{"phase": 2, "reasoning": "x"}`, `{"phase": 3}`,
		`{"anomalies": [{"rank": -1, "step": 0}]}`, `{"anomalies": [{"rank": 1, "step": 2, "norm": NaN, "deviation_ratio": Infinity}]}`,
		`{"name": "x", "version": "1"}`, `{"type": "FeatureCollection", "features": []}`, `{"phase": "1"}`, `{"anomalies": {}}`,
		`{"phase": 1, "anomalies": [{"optimizer_step": -3}]}`, `{"root_cause_coordinate": {"step": 1, "rank": 2}}`, "\xff", `"NaN`} {
		f.Add([]byte(s))
	}
	check := func(t *testing.T, what string, err error) {
		if err == nil {
			return
		}
		var ie *ingest.InputError
		if !errors.As(err, &ie) {
			t.Fatalf("%s: error %T %v", what, err, err)
		}
		if msg := err.Error(); strings.Contains(msg, "\n") || goInternals.MatchString(msg) {
			t.Fatalf("%s: message %q", what, msg)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var p1 model.Phase1Result
		err := ingest.DecodeResult("f.json", "Phase 1 JSON", b, &p1)
		if err == nil {
			err = ingest.CheckPhase1Coordinates("f.json", &p1)
			if err == nil {
				for _, a := range p1.Anomalies {
					if a.Rank < 0 || a.Step < 0 {
						t.Fatalf("negative coordinate accepted: %+v", a)
					}
				}
			}
		}
		check(t, "phase 1", err)
		var p2 model.Phase2Result
		check(t, "phase 2", ingest.DecodeResult("f.json", "Phase 2 JSON", b, &p2))
		var p3 model.Phase3Result
		check(t, "phase 3", ingest.DecodeResult("f.json", "Phase 3 JSON", b, &p3))
	})
}
