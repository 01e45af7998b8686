package model

import (
	"fmt"
	"strconv"
	"strings"
)

// Coord is a coordinate with optional fields (nil: not given), the one
// type every face passes a position in: `--pin` and the TUI's `p` (parsed
// once by ParseCoord, then carried typed to Phase 2, the screens and the
// saved state), what `y` copies, and the (step, rank) that picks a dump
// inside a tree (trace's --step-b, --rank-c, …).
type Coord struct {
	OptStep, MicroStep, Rank, Step *int
	// VPP is the model chunk (vpp_stage) of the parameter: with pipeline
	// stages and several chunks a stage holds each own name once per chunk.
	VPP   *int
	Param string
}

// pinKeys maps every key ParseCoord reads, aliases included, to its field.
var pinKeys = map[string]string{
	"opt": "opt", "optimizer_step": "opt", "opt_step": "opt",
	"ms": "ms", "micro": "ms", "micro_step": "ms",
	"rank": "rank", "step": "step", "vpp": "vpp", "vpp_stage": "vpp",
	"param": "param", "target": "param", "name": "param",
}

// ParseCoord reads a pin: "opt=3,ms=2,rank=5,param=<name>" (also step=N
// and vpp=N, the model chunk; aliases optimizer_step, opt_step, micro,
// micro_step, vpp_stage, target, name; keys in any order, any case).
// param= comes last: the rest of the text is the name, commas included.
func ParseCoord(s string) (*Coord, error) {
	var p Coord
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty pin: want e.g. opt=3,ms=2,rank=5,param=<name>")
	}
	rest := s
	for rest != "" {
		var item string
		key, val, ok := strings.Cut(rest, "=")
		key = strings.ToLower(strings.TrimSpace(key))
		if !ok {
			return nil, fmt.Errorf("pin %q: %q is not key=value", s, rest)
		}
		if pinKeys[key] == "param" {
			p.Param = strings.TrimSpace(val)
			if p.Param == "" {
				return nil, fmt.Errorf("pin %q: empty param", s)
			}
			break
		}
		item, rest, _ = strings.Cut(val, ",")
		n, err := strconv.Atoi(strings.TrimSpace(item))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("pin %q: %s=%q is not a non-negative integer", s, key, item)
		}
		f := p.field(pinKeys[key])
		if f == nil {
			return nil, fmt.Errorf("pin %q: unknown key %q (opt, ms, rank, step, vpp, param)", s, key)
		}
		*f = &n
	}
	if p.IsZero() {
		return nil, fmt.Errorf("pin %q: no coordinate", s)
	}
	return &p, nil
}

// IsZero reports whether no field is given (a nil pin gives none).
func (c *Coord) IsZero() bool {
	return c == nil || c.OptStep == nil && c.MicroStep == nil && c.Rank == nil && c.Step == nil && c.VPP == nil && c.Param == ""
}

// field is the number field of a key ("opt", "ms", "rank", "step",
// "vpp"), nil for another key.
func (c *Coord) field(key string) **int {
	switch key {
	case "opt":
		return &c.OptStep
	case "ms":
		return &c.MicroStep
	case "rank":
		return &c.Rank
	case "step":
		return &c.Step
	case "vpp":
		return &c.VPP
	}
	return nil
}

// text writes the given fields as key=value in the order of keys, then
// param (the rest of a pin is the name); "" for a nil pin.
func (c *Coord) text(keys ...string) string {
	if c == nil {
		return ""
	}
	var parts []string
	for _, k := range keys {
		if v := *c.field(k); v != nil {
			parts = append(parts, k+"="+strconv.Itoa(*v))
		}
	}
	if c.Param != "" {
		parts = append(parts, "param="+c.Param)
	}
	return strings.Join(parts, ",")
}

// String is the pin as ParseCoord reads it, in one spelling: keys opt, ms,
// rank, step, vpp, param, the given ones only. A nil pin is "".
func (c *Coord) String() string { return c.text("opt", "ms", "rank", "step", "vpp") }

// Label is the coordinate as the screens name it, the step first:
// "opt=3,ms=2,rank=5,param=<name>", "step=9,rank=1,param=<name>" on
// step-level data (the given fields only; ParseCoord reads it too).
func (c *Coord) Label() string { return c.text("opt", "step", "ms", "rank", "vpp") }

// Equal reports whether two pins give the same fields the same values
// (nil equals nil only).
func (c *Coord) Equal(o *Coord) bool {
	if c == nil || o == nil {
		return c == o
	}
	eq := func(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	return eq(c.OptStep, o.OptStep) && eq(c.MicroStep, o.MicroStep) && eq(c.Rank, o.Rank) &&
		eq(c.Step, o.Step) && eq(c.VPP, o.VPP) && c.Param == o.Param
}

// Coord is candidate a's coordinate as a pin: its optimizer step (its step
// on step-level data), micro step, rank and parameter; nil for nil.
func (a *Anomaly) Coord() *Coord {
	if a == nil {
		return nil
	}
	c := &Coord{Rank: IntPtr(a.Rank), Param: a.TargetName}
	if a.OptimizerStep != nil {
		c.OptStep = IntPtr(*a.OptimizerStep)
	} else {
		c.Step = IntPtr(a.Step)
	}
	if a.MicroStep != nil {
		c.MicroStep = IntPtr(*a.MicroStep)
	}
	return c
}

// Coord is a Phase 2 coordinate as a pin (the step only without an
// optimizer step); nil for nil.
func (r *Coordinate) Coord() *Coord {
	if r == nil {
		return nil
	}
	c := &Coord{Rank: IntPtr(r.Rank), Param: r.TargetName}
	if r.OptimizerStep != nil {
		c.OptStep = IntPtr(*r.OptimizerStep)
	} else if r.Step != nil {
		c.Step = IntPtr(*r.Step)
	}
	if r.MicroStep != nil {
		c.MicroStep = IntPtr(*r.MicroStep)
	}
	return c
}
