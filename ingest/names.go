package ingest

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"spikescope/model"
)

// Names with control characters. A parameter or operator name that holds
// an ESC, a carriage return or another control character would act on the
// user's terminal when printed (inspect, the TUI, the report). No real
// module name has one, so such a name is escaped where it is read —
// ESC becomes the four characters \x1b — and the load says so. The same
// escaping everywhere keeps dump.json, construct.json and stack.json keys
// joined.

// EscapeControl returns s with every control character (C0, DEL, C1,
// and invalid UTF-8 bytes) written as \xNN or \u{NNNN}; changed reports
// whether there was one.
func EscapeControl(s string) (out string, changed bool) {
	clean := true
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || unicode.IsControl(r) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return s, false
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String(), true
}

// escapeTargetNames escapes the parameter names of d and warns once.
func escapeTargetNames(d *model.MonitorData) {
	n, first := 0, ""
	for i := range d.Targets {
		if e, ok := EscapeControl(d.Targets[i].Name); ok {
			if n == 0 {
				first = e
			}
			d.Targets[i].Name = e
			n++
		}
	}
	if n > 0 {
		d.WarningsReasons = append(d.WarningsReasons, model.NamesEscaped{Count: n, First: first})
	}
}

// escapeDumpNames escapes operator keys, parents and stack keys of d.
func escapeDumpNames(d *model.Dump) {
	n, first := 0, ""
	for i := range d.Ops {
		op := &d.Ops[i]
		if e, ok := EscapeControl(op.Key); ok {
			if n == 0 {
				first = e
			}
			if d.Index != nil {
				if pos, in := d.Index[op.Key]; in && pos == i {
					delete(d.Index, op.Key)
					if prev, taken := d.Index[e]; !taken || prev > i {
						d.Index[e] = i // the first op of a name, as parseDumpJSON keeps
					}
				}
			}
			op.Key = e
			n++
		}
		if e, ok := EscapeControl(op.Parent); ok {
			op.Parent = e
		}
	}
	for k, v := range d.Stacks {
		if e, ok := EscapeControl(k); ok {
			delete(d.Stacks, k)
			d.Stacks[e] = v
		}
	}
	if n > 0 {
		d.WarningsReasons = append(d.WarningsReasons, model.NamesEscaped{Operators: true, Count: n, First: first})
	}
}
