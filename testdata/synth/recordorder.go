package synth

import (
	"os"
	"path/filepath"
)

// Record order and side files of a dump (Config.PreOrder,
// Config.NoConstruct): msprobe writes a module's record when it returns
// (executionOrder); a reader must not depend on it, so the generator can
// also write each module's record before its children's, and leave out
// construct.json and stack.json (extra_info false).

// preOrder lists the records of one micro batch with each module's record
// before its children's: forward top-down; backward from the output side,
// a module's backward record before its children's and its
// parameters_grad after them (its gradients are complete then).
func preOrder(root *node) []entry {
	var out []entry
	var fwd func(n *node)
	fwd = func(n *node) {
		out = append(out, entry{n, 'f'})
		for _, c := range n.children {
			fwd(c)
		}
	}
	var bwd func(n *node)
	bwd = func(n *node) {
		if !n.noBwd {
			out = append(out, entry{n, 'b'})
		}
		for i := len(n.children) - 1; i >= 0; i-- {
			bwd(n.children[i])
		}
		if n.pgrad != nil {
			out = append(out, entry{n, 'g'})
		}
	}
	fwd(root)
	bwd(root)
	return out
}

// entries lists the records of the micro batches in the configured order.
func (r *Run) entries(roots []*node) []entry {
	if !r.Cfg.PreOrder {
		return allEntries(roots)
	}
	var es []entry
	for _, rt := range roots {
		es = append(es, preOrder(rt)...)
	}
	return es
}

// writeFolder writes one dump folder: dump.json in the configured order,
// construct.json and stack.json unless Config.NoConstruct.
func (r *Run) writeFolder(dir string, roots []*node) error {
	es := r.entries(roots)
	if !r.Cfg.NoConstruct {
		return writeDumpFolder(dir, roots, es)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	fh, err := os.Create(filepath.Join(dir, "dump.json"))
	if err != nil {
		return err
	}
	if err := writeDumpJSON(fh, es); err != nil {
		fh.Close()
		return err
	}
	return fh.Close()
}
