package ingest

import (
	"fmt"

	"spikescope/model"
)

// constructNode is one construct.json entry: the parent key ("" for a root)
// and, in the Megatron form, the micro step (-1 otherwise).
type constructNode struct {
	Parent string
	Micro  int
}

// megatronMicroKey is the extra key of the Megatron form; it is not a node.
const megatronMicroKey = "megatron_micro_step_number"

// parseConstructJSON reads construct.json (formats.md §3.4) in both value
// forms: plain `"key": "parent" | null | ""` and Megatron
// `"key": [parent|null, micro_step]`. Roots (null or "") get Parent "".
func parseConstructJSON(buf []byte) (nodes map[string]constructNode, err error) {
	defer catchScanError(&err)
	sc := newScanner(buf)
	s := &sc
	if kind := s.enterTopObject(); kind != "" {
		return nil, fmt.Errorf("top-level value is %s, not an object", kind)
	}
	nodes = make(map[string]constructNode)
	n := 0
	for s.more('}', &n) {
		k := string(s.key())
		node := constructNode{Micro: -1}
		switch s.peek() {
		case '[':
			s.pos++
			m := 0
			for s.more(']', &m) {
				switch m {
				case 1:
					node.Parent = constructParent(s)
				case 2:
					if kind, v, _ := s.scalar(); kind == scalarNumber && v >= 0 && v < 1<<31 {
						node.Micro = int(v)
					}
				default:
					s.skip(1)
				}
			}
		default:
			node.Parent = constructParent(s)
		}
		if k == megatronMicroKey {
			continue
		}
		nodes[k] = node
	}
	s.end()
	return nodes, nil
}

// constructParent reads a parent value: a string, or null/other for a root.
func constructParent(s *lenientScanner) string {
	if s.peek() == '"' {
		return string(s.str())
	}
	s.skip(1)
	return ""
}

// applyConstruct sets Op.Parent and Op.MicroStep from construct.json nodes.
// The files are joined leniently: construct.json never lists parameters_grad
// entries and lists nodes that dump.json lacks (formats.md §3.4).
func applyConstruct(d *model.Dump, nodes map[string]constructNode) {
	for i := range d.Ops {
		if n, ok := nodes[d.Ops[i].Key]; ok {
			d.Ops[i].Parent = n.Parent
			d.Ops[i].MicroStep = n.Micro
		}
	}
}
