package pipeline

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"spikescope/analysis"
	"spikescope/memlimit"
	"spikescope/model"
)

// A candidate line is detect's anomalies[] object, key for key and value
// for value, plus "event" and "time" (method.md's contract): a consumer
// can parse both with one type.
func TestFollowCandidateLineIsDetectsAnomaly(t *testing.T) {
	_, src := csvSource(t)
	full, err := Detect(context.Background(), src, model.FormatAuto, analysis.DefaultPhase1Options(), false, memlimit.Budget{}, Default)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	var detect struct {
		Anomalies []map[string]any `json:"anomalies"`
	}
	if err := json.Unmarshal(b, &detect); err != nil {
		t.Fatal(err)
	}
	_, first, err := StartFollow(context.Background(), src, model.FormatAuto, FollowOptions{Interval: time.Second, P1: analysis.DefaultPhase1Options()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	for _, e := range first {
		if e.Event != EventCandidate {
			continue
		}
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m["event"] != EventCandidate || m["time"] == nil {
			t.Errorf("a candidate line without its event or time: %s", b)
		}
		delete(m, "event")
		delete(m, "time")
		lines = append(lines, m)
	}
	if len(lines) == 0 || len(lines) != len(detect.Anomalies) {
		t.Fatalf("%d candidate lines, detect gives %d anomalies", len(lines), len(detect.Anomalies))
	}
	for i := range lines {
		if !reflect.DeepEqual(lines[i], detect.Anomalies[i]) {
			t.Errorf("candidate line %d:\n%v\ndetect's anomaly %d:\n%v", i, lines[i], i, detect.Anomalies[i])
		}
	}
}
