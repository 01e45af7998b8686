package pipeline

import (
	"context"
	"errors"
	"strings"
	"testing"

	"spikescope/ingest"
	"spikescope/model"
)

// Per-group coordinates (trace's --step-c/--rank-c …) pick C and D inside
// their trees; without them C is chosen and D sits at C's coordinates.
func TestGroupCoordinatesPickCAndD(t *testing.T) {
	in := demoInputs()
	in.DumpC, in.DumpD = in.DumpA, in.DumpB
	in.AtC = model.Coord{Step: model.IntPtr(4), Rank: model.IntPtr(3)}
	s, err := Load(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.C == nil || s.C.Step != 4 || s.C.Rank != 3 || s.D == nil || s.D.Step != 4 || s.D.Rank != 3 || s.Control.Reason != "C given by --dump-c" {
		t.Fatalf("C %+v D %+v reason %q, want step 4 rank 3 given", s.C, s.D, s.Control.Reason)
	}
	in.AtC, in.AtD = model.Coord{Rank: model.IntPtr(5)}, model.Coord{Step: model.IntPtr(5), Rank: model.IntPtr(3)}
	s, err = Load(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.C == nil || s.C.Step != 5 || s.C.Rank != 5 || s.D == nil || s.D.Step != 5 || s.D.Rank != 3 {
		t.Fatalf("C %+v D %+v, want the only rank-5 dump and D at the given step 5 rank 3", s.C, s.D)
	}
	// A C coordinate the tree lacks: no C, and the reason says where it looked.
	in.AtC, in.AtD = model.Coord{Rank: model.IntPtr(42)}, model.Coord{}
	s, err = Load(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.C != nil || !strings.Contains(s.Control.Reason, "no dump at step any rank 42 in --dump-c") || s.P3 == nil || !s.P3.Degraded {
		t.Fatalf("C %+v reason %q", s.C, s.Control.Reason)
	}
}

// The same tree as A and B: the automatic D is C itself, which the notes
// (and Phase 3's warnings) say.
func TestSameTreeForAAndBWarns(t *testing.T) {
	in := demoInputs()
	in.DumpB = in.DumpA
	s, err := Load(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "D is the same dump as C (A and B come from the same tree): the control group shows no noise"
	if s.P3 == nil || len(s.P3.Warnings) == 0 || s.P3.Warnings[0] != want {
		t.Fatalf("warnings %q, want first %q", s.P3.Warnings, want)
	}
}

// Phase3Problem words why Phase 3 could not run; nil when it ran.
func TestPhase3Problem(t *testing.T) {
	s := loadDemo(t)
	if err := s.Phase3Problem(); err != nil {
		t.Fatalf("Phase 3 ran, problem %v", err)
	}
	for _, c := range []struct {
		name string
		edit func(*Inputs)
		want string
	}{
		{"no step 9", func(in *Inputs) { in.StepA, in.RankA = model.IntPtr(9), model.IntPtr(3) }, "A: no dump at step 9 rank 3, the root-cause coordinate"},
		// a partial coordinate takes the rest from the root: A at step 5
		{"rank 3 only", func(in *Inputs) { in.RankA = model.IntPtr(3) }, ""},
		{"no dumps", func(in *Inputs) { in.DumpA, in.DumpB = "", "" }, "A: no dump to trace"},
	} {
		in := demoInputs()
		c.edit(&in)
		s, err := Load(context.Background(), in, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		err = s.Phase3Problem()
		var ie *ingest.InputError
		if c.want == "" {
			if err != nil || s.A == nil || s.A.Step != 5 || s.A.Rank != 3 {
				t.Errorf("%s: %v, A %+v", c.name, err, s.A)
			}
			continue
		}
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an input error with %q", c.name, err, c.want)
		}
	}
}
