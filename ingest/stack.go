package ingest

import "fmt"

// parseStackJSON reads stack.json (formats.md §3.5) in both formats into
// op key → frames:
//
//	grouped (current): {"<n>": [[names sharing the stack], [frames]]}
//	per op (very old): {"<op key>": [frames]}
//
// The form is decided per entry: a value whose first element is a list is a
// group. Ops of one group share one frames slice.
func parseStackJSON(buf []byte) (stacks map[string][]string, err error) {
	defer catchScanError(&err)
	sc := newScanner(buf)
	s := &sc
	if kind := s.enterTopObject(); kind != "" {
		return nil, fmt.Errorf("top-level value is %s, not an object", kind)
	}
	stacks = make(map[string][]string)
	n := 0
	for s.more('}', &n) {
		key := string(s.key())
		if s.peek() != '[' {
			s.skip(1)
			continue
		}
		s.pos++
		var names, frames []string
		grouped := false
		m := 0
		for s.more(']', &m) {
			switch c := s.peek(); {
			case c == '[' && m <= 2 && (m == 1 || grouped):
				grouped = true
				list := stringList(s)
				if m == 1 {
					names = list
				} else {
					frames = list
				}
			case c == '"' && !grouped:
				frames = append(frames, string(s.str()))
			default:
				s.skip(1)
			}
		}
		if !grouped {
			stacks[key] = frames
			continue
		}
		for _, name := range names {
			stacks[name] = frames
		}
	}
	s.end()
	return stacks, nil
}

// stringList reads a list and keeps its string elements.
func stringList(s *lenientScanner) []string {
	s.pos++
	var out []string
	n := 0
	for s.more(']', &n) {
		if s.peek() == '"' {
			out = append(out, string(s.str()))
		} else {
			s.skip(2)
		}
	}
	return out
}
