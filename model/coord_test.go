package model

import "testing"

func TestParseCoord(t *testing.T) {
	pv := func(p *int) int {
		if p == nil {
			return -1
		}
		return *p
	}
	p, err := ParseCoord("opt=3,ms=2,rank=5,param=layers.0.mlp,odd.weight")
	if err != nil || pv(p.OptStep) != 3 || pv(p.MicroStep) != 2 || pv(p.Rank) != 5 || p.Param != "layers.0.mlp,odd.weight" || p.Step != nil {
		t.Fatalf("pin = %+v %v", p, err)
	}
	if p, err = ParseCoord(" step=7, rank=0 "); err != nil || pv(p.Step) != 7 || pv(p.Rank) != 0 {
		t.Fatalf("pin = %+v %v", p, err)
	}
	for _, bad := range []string{"", "  ", "opt=x", "foo=1", "rank", "param=", "opt=-1", "vpp=1,rank"} {
		if c, err := ParseCoord(bad); err == nil || c != nil {
			t.Fatalf("%q accepted: %+v", bad, c)
		}
	}
}

// Every spelling a user or a script types (the aliases, any key order and
// case, spaces) reads as the one coordinate, which String writes in one
// spelling that reads back as itself.
func TestCoordSpellings(t *testing.T) {
	want, err := ParseCoord("opt=3,ms=2,rank=5,vpp=1,param=a,b.weight")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"optimizer_step=3,micro_step=2,rank=5,vpp_stage=1,name=a,b.weight",
		"micro=2, OPT_STEP=3 ,vpp=1, rank=5,target=a,b.weight",
		"Rank=5,ms=2,vpp_stage=1,opt=3,param= a,b.weight ",
	} {
		got, err := ParseCoord(s)
		if err != nil || !got.Equal(want) {
			t.Errorf("%q reads %+v (%v), want %+v", s, got, err, want)
		}
	}
	if s := want.String(); s != "opt=3,ms=2,rank=5,vpp=1,param=a,b.weight" {
		t.Errorf("String = %q", s)
	}
	back, err := ParseCoord(want.String())
	if err != nil || !back.Equal(want) || back.String() != want.String() {
		t.Errorf("String does not read back: %q → %+v %v", want.String(), back, err)
	}
	other := *want
	other.VPP = IntPtr(0)
	if other.Equal(want) || want.Equal(nil) || !(*Coord)(nil).Equal(nil) || (*Coord)(nil).String() != "" {
		t.Error("Equal or a nil pin's String is wrong")
	}
}

// A candidate and a Phase 2 coordinate as pins: the optimizer step stands
// for the step when there is one, the pin and the screens' label read back
// as the same coordinate.
func TestCoordOfCandidate(t *testing.T) {
	micro := &Anomaly{Rank: 3, Step: 14, OptimizerStep: IntPtr(7), MicroStep: IntPtr(2), TargetName: "pp1:layers.0.w"}
	step := &Anomaly{Rank: 1, Step: 9, TargetName: "h.2.attn.weight"}
	for _, tc := range []struct {
		a           *Anomaly
		pin, label  string
		coordinate  *Coordinate
		fromResults string
	}{
		{micro, "opt=7,ms=2,rank=3,param=pp1:layers.0.w", "opt=7,ms=2,rank=3,param=pp1:layers.0.w",
			&Coordinate{OptimizerStep: IntPtr(7), MicroStep: IntPtr(2), Step: IntPtr(14), Rank: 3, TargetName: "pp1:layers.0.w"}, ""},
		{step, "rank=1,step=9,param=h.2.attn.weight", "step=9,rank=1,param=h.2.attn.weight",
			&Coordinate{Step: IntPtr(9), Rank: 1, TargetName: "h.2.attn.weight"}, ""},
	} {
		c := tc.a.Coord()
		if c.String() != tc.pin || c.Label() != tc.label {
			t.Errorf("%+v: pin %q label %q, want %q %q", tc.a, c.String(), c.Label(), tc.pin, tc.label)
		}
		for _, s := range []string{c.String(), c.Label()} {
			if back, err := ParseCoord(s); err != nil || !back.Equal(c) {
				t.Errorf("%q reads %+v %v", s, back, err)
			}
		}
		if cc := tc.coordinate.Coord(); !cc.Equal(c) {
			t.Errorf("coordinate %+v as a pin %q, want %q", tc.coordinate, cc, c)
		}
	}
	if (*Anomaly)(nil).Coord() != nil || (*Coordinate)(nil).Coord() != nil {
		t.Error("a nil candidate or coordinate is a pin")
	}
	// a pin as typed: every given field in both spellings
	typed, _ := ParseCoord("vpp=1,step=9,opt=4,rank=2")
	if typed.Label() != "opt=4,step=9,rank=2,vpp=1" || typed.String() != "opt=4,rank=2,step=9,vpp=1" || len(typed.Label()) != len(typed.String()) {
		t.Errorf("label %q, pin %q", typed.Label(), typed.String())
	}
}
