package synth

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// entry is one element of dump.json's data object, in execution order.
type entry struct {
	n    *node
	kind byte // 'f' forward, 'b' backward, 'g' parameters_grad
}

func (e entry) key() string {
	switch e.kind {
	case 'f':
		return e.n.fwdKey()
	case 'b':
		return e.n.bwdKey()
	}
	return e.n.pgradKey()
}

// executionOrder lists the records of one micro batch as msprobe writes
// them: forward records when a call returns (APIs before their module),
// then backward in reverse, each module's API backward records before its
// parameters_grad and its own backward record.
func executionOrder(root *node) []entry {
	var out []entry
	var fwd func(n *node)
	fwd = func(n *node) {
		for _, c := range n.children {
			fwd(c)
		}
		out = append(out, entry{n, 'f'})
	}
	var bwd func(n *node)
	bwd = func(n *node) {
		for i := len(n.children) - 1; i >= 0; i-- {
			bwd(n.children[i])
		}
		if n.pgrad != nil {
			out = append(out, entry{n, 'g'})
		}
		if !n.noBwd {
			out = append(out, entry{n, 'b'})
		}
	}
	fwd(root)
	bwd(root)
	return out
}

// constructOrder lists (key, parent) pairs of construct.json: forward nodes
// top-down, then backward nodes top-down in backward order. parameters_grad
// keys never appear there.
func constructOrder(root *node) (keys, parents []string) {
	var fwd func(n *node, parent string)
	fwd = func(n *node, parent string) {
		keys, parents = append(keys, n.fwdKey()), append(parents, parent)
		for _, c := range n.children {
			fwd(c, n.fwdKey())
		}
	}
	var bwd func(n *node, parent string)
	bwd = func(n *node, parent string) {
		if n.noBwd {
			return
		}
		keys, parents = append(keys, n.bwdKey()), append(parents, parent)
		for i := len(n.children) - 1; i >= 0; i-- {
			bwd(n.children[i], n.bwdKey())
		}
	}
	fwd(root, "")
	bwd(root, "")
	return keys, parents
}

// writeTensor writes one argument as msprobe's statistics dict.
func writeTensor(j *pyJSON, t tensor) {
	switch t.kind {
	case tNull:
		j.Null()
		return
	case tInt, tFloat, tStr:
		j.Obj()
		switch t.kind {
		case tInt:
			j.Key("type")
			j.Str("int")
			j.Key("value")
			j.Int(t.i)
		case tFloat:
			j.Key("type")
			j.Str("float")
			j.Key("value")
			j.Num(t.f)
		default:
			j.Key("type")
			j.Str("str")
			j.Key("value")
			j.Str(t.s)
		}
		j.EndObj()
		return
	}
	j.Obj()
	j.Key("type")
	j.Str("torch.Tensor")
	j.Key("dtype")
	j.Str(t.dtype)
	j.Key("shape")
	j.Arr()
	for _, d := range t.shape {
		j.IntElem(d)
	}
	j.EndArr()
	names := [4]string{"Max", "Min", "Mean", "Norm"}
	for i, n := range names {
		j.Key(n)
		switch {
		case t.kind == tEmpty:
			j.Null()
		case t.kind == tBoolMask && i == 0:
			j.Bool(true)
		case t.kind == tBoolMask && i == 1:
			j.Bool(false)
		case t.kind == tBoolMask:
			j.Null()
		default:
			j.Num(t.st[i])
		}
	}
	j.Key("requires_grad")
	j.Bool(t.grad)
	j.EndObj()
}

func writeList(j *pyJSON, ts []tensor) {
	j.Arr()
	for _, t := range ts {
		j.item()
		writeTensor(j, t)
	}
	j.EndArr()
}

func writeDict(j *pyJSON, kvs []kv) {
	j.Obj()
	for _, a := range kvs {
		j.Key(a.k)
		writeTensor(j, a.v)
	}
	j.EndObj()
}

// writeEntry writes one data member.
func writeEntry(j *pyJSON, e entry) {
	n := e.n
	j.Key(e.key())
	j.Obj()
	switch {
	case e.kind == 'g':
		for _, p := range n.pgrad {
			j.Key(p.k)
			writeList(j, []tensor{p.v})
		}
	case e.kind == 'b':
		j.Key("input")
		writeList(j, n.bin)
		j.Key("output")
		writeList(j, n.bout)
	case n.module:
		j.Key("input_args")
		writeList(j, n.in)
		j.Key("input_kwargs")
		writeDict(j, n.kw)
		j.Key("output")
		writeList(j, n.out)
		j.Key("parameters")
		writeDict(j, n.params)
		j.Key("is_recompute")
		j.Bool(false)
	default:
		j.Key("input_args")
		writeList(j, n.in)
		j.Key("input_kwargs")
		writeDict(j, n.kw)
		j.Key("is_recompute")
		j.Bool(false)
		j.Key("output")
		writeList(j, n.out)
	}
	j.EndObj()
}

// writeDumpJSON writes dump.json for the micro batches' records, at most
// limit entries (limit < 0: all).
func writeDumpJSON(w io.Writer, entries []entry) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	j := newPyJSON(bw)
	j.Obj()
	j.Key("task")
	j.Str("statistics")
	j.Key("level")
	j.Str("mix")
	j.Key("framework")
	j.Str("pytorch")
	j.Key("dump_data_dir")
	j.Null()
	j.Key("data")
	j.Obj()
	for _, e := range entries {
		writeEntry(j, e)
	}
	j.EndObj()
	j.EndObj()
	return bw.Flush()
}

// writeConstructJSON writes the Megatron form: every value [parent, micro
// batch], plus megatron_micro_step_number.
func writeConstructJSON(w io.Writer, roots []*node) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	j := newPyJSON(bw)
	j.Obj()
	for mb, r := range roots {
		keys, parents := constructOrder(r)
		for i, k := range keys {
			j.Key(k)
			j.Arr()
			if parents[i] == "" {
				j.NullElem()
			} else {
				j.StrElem(parents[i])
			}
			j.IntElem(int64(mb))
			j.EndArr()
		}
	}
	j.Key("megatron_micro_step_number")
	j.Int(int64(len(roots) - 1))
	j.EndObj()
	return bw.Flush()
}

// writeStackJSON writes the de-duplicated form {"n": [[names], [frames]]}:
// forward records of the same call site share one stack.
func writeStackJSON(w io.Writer, roots []*node) error {
	var sites []string
	names := map[string][]string{}
	for _, r := range roots {
		for _, e := range executionOrder(r) {
			if e.kind != 'f' {
				continue
			}
			s := e.n.site
			if _, ok := names[s]; !ok {
				sites = append(sites, s)
			}
			names[s] = append(names[s], e.key())
		}
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	j := newPyJSON(bw)
	j.Obj()
	for i, s := range sites {
		j.Key(fmt.Sprint(i))
		j.Arr()
		j.ArrElem()
		for _, n := range names[s] {
			j.StrElem(n)
		}
		j.EndArr()
		j.ArrElem()
		for _, f := range stackFrames(s, strings.HasPrefix(names[s][0], "Module.")) {
			j.StrElem(f)
		}
		j.EndArr()
		j.EndArr()
	}
	j.EndObj()
	return bw.Flush()
}

// DumpFolder is one dumped (step, rank).
type DumpFolder struct {
	Step, Rank int
	// Session is the index of the step among the dumped steps: the
	// parameters_grad counter keeps counting across steps.
	Session int
}

// Path is "step{S}/rank{R}".
func (d DumpFolder) Path() string { return fmt.Sprintf("step%d/rank%d", d.Step, d.Rank) }

// DumpFolders lists what WriteDumps writes: the fault step for the fault rank
// and the control ranks, and the fault rank one step earlier when
// Config.DumpPrevStep.
func (r *Run) DumpFolders() []DumpFolder {
	c := r.Cfg
	k := c.Fault.OptStep
	var out []DumpFolder
	session := 0
	if c.DumpPrevStep {
		out = append(out, DumpFolder{k - 1, c.Fault.Rank, 0})
		session = 1
	}
	ranks := append([]int{c.Fault.Rank}, c.ControlRanks...)
	sort.Ints(ranks)
	for _, rk := range ranks {
		out = append(out, DumpFolder{k, rk, session})
	}
	return out
}

// dumpRoots builds the micro batches of one dump.
func (r *Run) dumpRoots(dev Device, f DumpFolder) []*node {
	t := r.newTracer(dev, f.Step, f.Rank, f.Session)
	var roots []*node
	for mb := 0; mb < r.Cfg.DumpMicroBatches; mb++ {
		t.mb = mb
		roots = append(roots, t.microBatch())
	}
	return roots
}

func allEntries(roots []*node) []entry {
	var es []entry
	for _, rt := range roots {
		es = append(es, executionOrder(rt)...)
	}
	return es
}

// WriteDumps writes the device's dump tree under dir:
// step{S}/rank{R}/{dump.json,construct.json,stack.json} for DumpFolders().
func (r *Run) WriteDumps(dir string, dev Device) error {
	for _, f := range r.DumpFolders() {
		roots := r.dumpRoots(dev, f)
		if err := r.writeFolder(filepath.Join(dir, f.Path()), roots); err != nil {
			return err
		}
	}
	return nil
}

func writeDumpFolder(dir string, roots []*node, entries []entry) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"dump.json", func(w io.Writer) error { return writeDumpJSON(w, entries) }},
		{"construct.json", func(w io.Writer) error { return writeConstructJSON(w, roots) }},
		{"stack.json", func(w io.Writer) error { return writeStackJSON(w, roots) }},
	}
	for _, f := range files {
		fh, err := os.Create(filepath.Join(dir, f.name))
		if err != nil {
			return err
		}
		if err := f.write(fh); err != nil {
			fh.Close()
			return err
		}
		if err := fh.Close(); err != nil {
			return err
		}
	}
	return nil
}

// DumpJSON returns the dump.json bytes of one dumped folder.
func (r *Run) DumpJSON(dev Device, f DumpFolder) []byte {
	var b bytes.Buffer
	writeDumpJSON(&b, r.entries(r.dumpRoots(dev, f)))
	return b.Bytes()
}
