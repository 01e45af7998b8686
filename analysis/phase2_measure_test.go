package analysis

import (
	"math"
	"testing"

	"spikescope/model"
)

// The measured growth of a pair is over the ranks present and finite at
// both steps with a positive previous value: a rank missing at the next
// step, a NaN and a zero start are left out of the median and the max.
func TestGrowthSpread(t *testing.T) {
	prev := map[string]model.Float{"0": 1, "1": 2, "2": 4, "3": 5, "4": model.Float(math.NaN()), "5": 0}
	next := map[string]model.Float{"0": 2, "1": 2, "2": 40, "4": 9, "5": 7}
	med, mx := growthSpread(prev, next)
	if med == nil || mx == nil || float64(*med) != 2 || float64(*mx) != 10 {
		t.Fatalf("median %v max %v, want 2 and 10", med, mx)
	}
	// an even count: the median is the mean of the middle two
	med, _ = growthSpread(map[string]model.Float{"0": 1, "1": 1}, map[string]model.Float{"0": 2, "1": 4})
	if float64(*med) != 3 {
		t.Fatalf("median %v, want 3", *med)
	}
	if med, mx := growthSpread(prev, map[string]model.Float{"9": 1}); med != nil || mx != nil {
		t.Fatal("growth measured without a common rank")
	}
}

// Every judged pair carries its measured growth, and the pair that
// qualifies grows more on its median rank than the threshold.
func TestCrossStepRowsCarryMeasuredGrowth(t *testing.T) {
	p1 := example2().run(t)
	p2, err := phase2Said(p1, nil, nil, DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	judged := 0
	for _, c := range p2.CrossStep {
		if c.RanksTotal == 0 {
			continue
		}
		judged++
		if c.GrowthMedian == nil || c.GrowthMax == nil || *c.GrowthMax < *c.GrowthMedian {
			t.Fatalf("pair %d→%d: growth %v/%v", c.From, c.To, c.GrowthMedian, c.GrowthMax)
		}
		if c.Qualifies && c.Share > 0.5 && float64(*c.GrowthMedian) < c.Threshold {
			t.Fatalf("pair %d→%d qualifies on %.0f%% of the ranks with a median growth %v < %v", c.From, c.To, 100*c.Share, *c.GrowthMedian, c.Threshold)
		}
	}
	if judged == 0 {
		t.Fatalf("no judged pair: %s", jsn(p2))
	}
}

// A pinned result says what the rules would have chosen without the pin;
// an unpinned one does not.
func TestPinnedResultKeepsTheAutomaticChoice(t *testing.T) {
	p1 := example2().run(t)
	auto, err := phase2Said(p1, nil, nil, DefaultPhase2Options())
	if err != nil || auto.RootCauseCoordinate == nil {
		t.Fatalf("automatic: %v %v", auto, err)
	}
	if auto.Automatic != nil || auto.AutomaticOptStep != nil {
		t.Fatal("an unpinned result with an automatic choice")
	}
	pin, _ := model.ParseCoord("opt=0,ms=1,rank=2,param=" + qkv)
	p2, err := phase2Said(p1, nil, pin, DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	if p2.Automatic == nil || jsn(p2.Automatic) != jsn(auto.RootCauseCoordinate) || pv(p2.AutomaticOptStep) != pv(auto.RootOptStep) {
		t.Fatalf("pinned: automatic %s step %v, want %s step %v", jsn(p2.Automatic), p2.AutomaticOptStep, jsn(auto.RootCauseCoordinate), pv(auto.RootOptStep))
	}
	if jsn(p2.RootCauseCoordinate) == jsn(auto.RootCauseCoordinate) {
		t.Fatal("the pin did not move the coordinate: the test needs another point")
	}
}
