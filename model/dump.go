package model

// Direction is the pass an op record belongs to.
type Direction uint8

const (
	Forward Direction = iota
	Backward
	ParamGrad // a ...parameters_grad[.N] entry
)

func (d Direction) String() string {
	switch d {
	case Forward:
		return "forward"
	case Backward:
		return "backward"
	}
	return "parameters_grad"
}

// OpKind tells module records from API (operator) records.
type OpKind uint8

const (
	KindModule OpKind = iota // Module.* (PyTorch) or Cell.* (MindSpore)
	KindAPI                  // Functional.*, Tensor.*, Torch.*, NPU.*, Mint.*, Primitive.*, ...
)

// TensorStat is the statistics record of one tensor. A statistic that was
// null (or not a number, e.g. a bool tensor's Max) is NaN and its bit in
// Has is clear.
type TensorStat struct {
	Name     string // "input.0", "output.1", "kwargs.scale", "weight", ...
	Dtype    string
	Shape    []int64
	Elements int64 // product of Shape; 1 for a scalar; -1 when unknown
	Stat     [NumStats]float64
	Has      [NumStats]bool
}

// Valid reports whether the statistic s was recorded.
func (t *TensorStat) Valid(s Stat) bool { return t.Has[s] }

// Op is one entry of dump.json's data object.
type Op struct {
	Key        string // full key as in dump.json
	Kind       OpKind
	Prefix     string // "Module", "Cell", "Functional", "NPU", ...
	ModulePath string // module path for modules (e.g. "module.module.decoder.layers.0.mlp"), API name for APIs
	Class      string // module class (e.g. "MLP"), empty for APIs
	Direction  Direction
	CallIndex  int // forward.N / .N.forward / parameters_grad.N; -1 when absent
	// Layer is the transformer layer index read from "layers.<N>." style
	// path segments, -1 when none. Analysis may re-derive it.
	Layer     int
	Inputs    []TensorStat // input_args (+ input_kwargs tensors) forward; "input" (grads of outputs) backward
	Outputs   []TensorStat // output forward; "output" (grads of inputs) backward
	Params    []TensorStat // forward "parameters", or the parameter gradients of a parameters_grad entry
	Order     int          // position in dump.json (execution order)
	Parent    string       // construct.json parent key, "" for roots or unknown
	Recompute bool
	// MicroStep is the micro step of the Megatron construct.json form
	// ([parent, micro_step]); -1 when construct.json did not give one.
	MicroStep int
}

// KwargPrefix starts the Name of an input that came from input_kwargs
// ("kwargs.atten_mask"); such tensors are kept in Op.Inputs after the
// positional ones.
const KwargPrefix = "kwargs."

// IsKwarg reports whether the tensor was a keyword argument of the call.
func (t *TensorStat) IsKwarg() bool {
	return len(t.Name) > len(KwargPrefix) && t.Name[:len(KwargPrefix)] == KwargPrefix
}

// Dump is one dump.json (one step of one rank) with what came beside it.
type Dump struct {
	Path      string // the folder holding dump.json
	Step      int    // from step<N>, -1 when the layout has no step level
	Rank      int    // from rank<N>; 0 for a bare "rank"; proc<pid> dirs get ranks after the largest real rank
	Proc      string // "proc2016" when the folder was a proc folder
	Mode      string // "graph" or "pynative" under a MindSpore {graph,pynative} level, else ""
	Task      string
	Level     string
	Framework string
	Ops       []Op
	// Index maps Key → position in Ops.
	Index map[string]int
	// HasConstruct/HasStack say whether those files were present.
	HasConstruct bool
	HasStack     bool
	// Stacks maps op key → call-stack frames (from stack.json, either format).
	Stacks map[string][]string
	// Warnings are said from WarningsReasons (the reader's) by package
	// words, as MonitorData's.
	Warnings        []string
	WarningsReasons []Reason
}

// Op returns the op with the given key, or nil.
func (d *Dump) Op(key string) *Op {
	if i, ok := d.Index[key]; ok {
		return &d.Ops[i]
	}
	return nil
}

// DumpTree is every dump found under one path: a step*/rank* tree or a single
// folder with dump.json.
type DumpTree struct {
	Path  string
	Dumps []*Dump // sorted by (Step, Rank)
	// Warnings are said from WarningsReasons (the reader's, with its
	// dumps') by package words, as MonitorData's.
	Warnings        []string
	WarningsReasons []Reason
}

// Find returns the dump at (step, rank), or nil. step -1 matches a tree
// without step folders.
func (t *DumpTree) Find(step, rank int) *Dump {
	for _, d := range t.Dumps {
		if d.Step == step && d.Rank == rank {
			return d
		}
	}
	return nil
}

// Steps returns the distinct steps in ascending order.
func (t *DumpTree) Steps() []int {
	var out []int
	seen := map[int]bool{}
	for _, d := range t.Dumps {
		if !seen[d.Step] {
			seen[d.Step] = true
			out = append(out, d.Step)
		}
	}
	return out
}
