package ingest

import (
	"bytes"
	"context"
	"math"
	"strconv"
	"strings"

	"spikescope/model"
)

// parseDumpJSON reads one msprobe dump.json held in buf (formats.md §3.2).
// The data object is read in key order, which is execution order (Op.Order).
// path only names the file in errors. progress, when not nil, receives the
// number of bytes parsed so far every few thousand ops.
//
// What is kept of each entry:
//   - forward: input_args → Inputs "input.<i>" (nested lists "input.<i>.<j>"),
//     input_kwargs tensors → Inputs "kwargs.<name>" after the positional ones
//     (see model.TensorStat.IsKwarg), output → Outputs "output.<i>",
//     parameters → Params by name;
//   - backward: input → Inputs, output → Outputs, named like forward;
//   - parameters_grad: {param: [stat]} → Params by name, first list element.
//
// Non-tensor values ({"type": "int", "value": 2}, null) are skipped but keep
// their position in the numbering, so "input.3" is always argument 3.
func parseDumpJSON(ctx context.Context, buf []byte, path string, progress func(done int)) (d *model.Dump, err error) {
	p := dumpParser{
		s:        newScanner(buf),
		ctx:      ctx,
		progress: progress,
		interned: make(map[string]string, 256),
	}
	defer func() {
		if r := recover(); r != nil {
			switch e := r.(type) {
			case *scanError:
				d, err = nil, inputErr(path, e, "%s", e.Error())
			case cancelled:
				d, err = nil, e.err
			default:
				panic(r)
			}
		}
	}()
	return p.document(path)
}

// cancelled carries a context error out of the parser.
type cancelled struct{ err error }

// opsPerCheck is how many ops pass between context/progress checks.
const opsPerCheck = 2048

type dumpParser struct {
	s        lenientScanner
	ctx      context.Context
	progress func(int)
	d        *model.Dump
	interned map[string]string
	name     []byte // name of the tensor being read, built up while descending
	ins      []model.TensorStat
	outs     []model.TensorStat
	params   []model.TensorStat
	stats    []model.TensorStat // slab the ops' tensor slices are cut from
	shapes   []int64            // slab the shapes are cut from

	badKeys   []string // keys outside msprobe's key grammar (first few)
	nBadKeys  int
	nDupKeys  int
	nNotObj   int
	firstDup  string
	firstNObj string
}

const (
	statSlabSize  = 8192
	shapeSlabSize = 16384
)

func (p *dumpParser) document(path string) (*model.Dump, error) {
	s := &p.s
	d := &model.Dump{Step: -1}
	p.d = d
	if kind := s.enterTopObject(); kind != "" {
		return nil, inputErr(path, nil, "not an msprobe dump.json: the top-level value is %s, not an object", kind)
	}
	var sawData, sawTask bool
	dataKind := ""
	var topKeys []string
	n := 0
	for s.more('}', &n) {
		k := s.key()
		switch string(k) {
		case "data":
			sawData = true
			if s.peek() == '{' {
				p.data()
			} else {
				dataKind = jsonKind(s.peek())
				s.skip(0)
			}
		case "task", "level", "framework":
			field := string(k)
			v := p.optString()
			switch field {
			case "task":
				sawTask = true
				d.Task = v
			case "level":
				d.Level = v
			case "framework":
				d.Framework = v
			}
		default:
			if len(topKeys) < 5 {
				topKeys = append(topKeys, strconv.Quote(string(k)))
			}
			s.skip(0)
		}
	}
	s.end()
	switch {
	case dataKind != "":
		return nil, inputErr(path, nil, "not an msprobe dump.json: \"data\" is %s, not an object", dataKind)
	case n == 0:
		d.WarningsReasons = append(d.WarningsReasons, model.DumpEmpty{Path: path, Kind: model.DumpEmptyBraces})
	case !sawData && !sawTask:
		return nil, inputErr(path, nil, "not an msprobe dump.json: no \"data\" or \"task\" key (top-level keys: %s)", strings.Join(topKeys, ", "))
	case !sawData:
		d.WarningsReasons = append(d.WarningsReasons, model.DumpEmpty{Path: path, Kind: model.DumpNoData})
	case len(d.Ops) == 0:
		d.WarningsReasons = append(d.WarningsReasons, model.DumpEmpty{Path: path, Kind: model.DumpDataEmpty})
	}
	if d.Task != "" && d.Task != "statistics" && d.Task != "tensor" {
		d.WarningsReasons = append(d.WarningsReasons, model.DumpTaskNoStats{Path: path, Task: d.Task})
	}
	p.finish(path)
	return d, nil
}

// finish builds the key index and turns counters into warnings.
func (p *dumpParser) finish(path string) {
	d := p.d
	d.Index = make(map[string]int, len(d.Ops))
	for i := range d.Ops {
		if _, dup := d.Index[d.Ops[i].Key]; dup {
			if p.nDupKeys == 0 {
				p.firstDup = d.Ops[i].Key
			}
			p.nDupKeys++
			continue
		}
		d.Index[d.Ops[i].Key] = i
	}
	if n, withStats := countStatTensors(d); n > 0 && withStats == 0 {
		d.WarningsReasons = append(d.WarningsReasons, model.DumpNoStats{Path: path, Tensors: n, Task: d.Task})
	}
	if p.nBadKeys > 0 {
		d.WarningsReasons = append(d.WarningsReasons, model.DumpBadKeys{Path: path, Count: p.nBadKeys, Keys: p.badKeys})
	}
	if p.nDupKeys > 0 {
		d.WarningsReasons = append(d.WarningsReasons, model.DumpDuplicateKeys{Path: path, Count: p.nDupKeys, First: p.firstDup})
	}
	if p.nNotObj > 0 {
		d.WarningsReasons = append(d.WarningsReasons, model.DumpNotObjects{Path: path, Count: p.nNotObj, First: p.firstNObj})
	}
}

// countStatTensors counts tensor records and those with any statistic.
func countStatTensors(d *model.Dump) (n, withStats int) {
	for i := range d.Ops {
		op := &d.Ops[i]
		for _, list := range [3][]model.TensorStat{op.Inputs, op.Outputs, op.Params} {
			for j := range list {
				n++
				if list[j].Has != [model.NumStats]bool{} {
					withStats++
				}
			}
		}
	}
	return n, withStats
}

// optString reads a string value; any other value is skipped and gives "".
func (p *dumpParser) optString() string {
	if p.s.peek() == '"' {
		return string(p.s.str())
	}
	p.s.skip(0)
	return ""
}

// data reads the data object: one op per key, in order.
func (p *dumpParser) data() {
	s := &p.s
	s.pos++
	n := 0
	for s.more('}', &n) {
		if (n-1)%opsPerCheck == 0 {
			if p.ctx != nil {
				if err := p.ctx.Err(); err != nil {
					panic(cancelled{err})
				}
			}
			if p.progress != nil {
				p.progress(s.pos)
			}
		}
		key := string(s.key())
		p.op(key)
	}
}

// op reads one data entry.
func (p *dumpParser) op(key string) {
	s := &p.s
	d := p.d
	op := model.Op{Key: key, Order: len(d.Ops), Parent: "", MicroStep: -1}
	if !parseOpKey(&op) {
		if p.nBadKeys < 3 {
			p.badKeys = append(p.badKeys, strconv.Quote(key))
		}
		p.nBadKeys++
	}
	if s.peek() != '{' {
		if p.nNotObj == 0 {
			p.firstNObj = key
		}
		p.nNotObj++
		s.skip(1)
		d.Ops = append(d.Ops, op)
		return
	}
	s.pos++
	p.ins, p.outs, p.params = p.ins[:0], p.outs[:0], p.params[:0]
	n := 0
	for s.more('}', &n) {
		k := s.key()
		if op.Direction == model.ParamGrad {
			p.setName(k)
			p.paramGrad()
			continue
		}
		switch string(k) {
		case "input_args", "input":
			p.setName(nameInput)
			p.collect(&p.ins, 2)
		case "input_kwargs":
			p.kwargs()
		case "output":
			p.setName(nameOutput)
			p.collect(&p.outs, 2)
		case "parameters":
			p.named(&p.params, nil)
		case "is_recompute":
			kind, v, _ := s.scalar()
			op.Recompute = kind == scalarBool && v == 1
		default:
			s.skip(2)
		}
	}
	op.Inputs = p.keep(p.ins)
	op.Outputs = p.keep(p.outs)
	op.Params = p.keep(p.params)
	d.Ops = append(d.Ops, op)
}

var (
	nameInput  = []byte("input")
	nameOutput = []byte("output")
	nameKwargs = []byte("kwargs")
)

func (p *dumpParser) setName(b []byte) { p.name = append(p.name[:0], b...) }

// kwargs reads input_kwargs: tensors become Inputs named "kwargs.<name>".
func (p *dumpParser) kwargs() {
	if p.s.peek() != '{' {
		p.setName(nameKwargs)
		p.collect(&p.ins, 2)
		return
	}
	p.named(&p.ins, nameKwargs)
}

// named reads an object whose keys name tensors ("parameters",
// "input_kwargs"), with an optional name prefix.
func (p *dumpParser) named(dst *[]model.TensorStat, prefix []byte) {
	s := &p.s
	if s.peek() != '{' {
		s.skip(2)
		return
	}
	s.pos++
	n := 0
	for s.more('}', &n) {
		k := s.key()
		p.name = append(p.name[:0], prefix...)
		if len(prefix) > 0 {
			p.name = append(p.name, '.')
		}
		p.name = append(p.name, k...)
		p.collect(dst, 3)
	}
}

// paramGrad reads one parameter of a parameters_grad entry: a list holding
// one stat dict (only the first element counts), or a bare stat dict.
func (p *dumpParser) paramGrad() {
	s := &p.s
	if s.peek() != '[' {
		p.collect(&p.params, 3)
		return
	}
	s.pos++
	n := 0
	for s.more(']', &n) {
		if n == 1 {
			p.collect(&p.params, 4)
		} else {
			s.skip(4)
		}
	}
}

// collect reads a value that may hold tensor records (a record, a list of
// them, nested lists, null, non-tensor args) and appends each tensor to dst,
// named p.name plus ".<index>" per list level.
func (p *dumpParser) collect(dst *[]model.TensorStat, depth int) {
	s := &p.s
	if depth > maxDepth {
		s.fail("nesting deeper than %d", maxDepth)
	}
	switch s.peek() {
	case '{':
		p.record(dst, depth)
	case '[':
		s.pos++
		base := len(p.name)
		n := 0
		for s.more(']', &n) {
			p.name = strconv.AppendInt(append(p.name[:base], '.'), int64(n-1), 10)
			p.collect(dst, depth+1)
		}
		p.name = p.name[:base]
	default:
		s.skip(depth)
	}
}

// record reads one object: a tensor statistics record, a non-tensor argument
// ({"type": "int", "value": 2}), or a dict argument whose members may hold
// tensors (named "<name>.<key>").
func (p *dumpParser) record(dst *[]model.TensorStat, depth int) {
	s := &p.s
	s.pos++
	var t model.TensorStat
	t.Elements = -1
	for i := range t.Stat {
		t.Stat[i] = math.NaN()
	}
	tensorType, hasType, hasValue, hasStatField := false, false, false, false
	nestedFrom := len(*dst)
	base := len(p.name)
	n := 0
	for s.more('}', &n) {
		k := s.key()
		switch string(k) {
		case "type":
			hasType = true
			if s.peek() == '"' {
				v := s.str()
				tensorType = isTensorType(v)
			} else {
				s.skip(depth)
			}
		case "dtype":
			hasStatField = true
			if s.peek() == '"' {
				t.Dtype = p.intern(s.str())
			} else {
				s.skip(depth)
			}
		case "shape":
			hasStatField = true
			p.shape(&t, depth)
		case "Norm":
			hasStatField = true
			p.stat(&t, model.StatNorm)
		case "Min":
			hasStatField = true
			p.stat(&t, model.StatMin)
		case "Max":
			hasStatField = true
			p.stat(&t, model.StatMax)
		case "Mean":
			hasStatField = true
			p.stat(&t, model.StatMean)
		case "value":
			hasValue = true
			s.skip(depth)
		default:
			if c := s.peek(); c == '{' || c == '[' {
				p.name = append(append(p.name[:base], '.'), k...)
				p.collect(dst, depth+1)
				p.name = p.name[:base]
			} else {
				s.skip(depth)
			}
		}
	}
	isTensor := tensorType || hasStatField || (!hasType && !hasValue && n == 0)
	if !isTensor {
		return
	}
	// Members of a tensor record are not arguments: drop what they gave.
	*dst = (*dst)[:nestedFrom]
	t.Name = p.intern(p.name)
	*dst = append(*dst, t)
}

var tensorWord, parameterWord = []byte("Tensor"), []byte("Parameter")

// isTensorType reports whether a record's "type" names a tensor
// ("torch.Tensor", "mindspore.Tensor", "torch.nn.parameter.Parameter", ...).
func isTensorType(v []byte) bool {
	return bytes.Contains(v, tensorWord) || bytes.Contains(v, parameterWord)
}

// shape reads a shape list and sets Shape and Elements (product of the dims;
// 1 for a scalar's []; -1 when a dim is not a non-negative integer).
func (p *dumpParser) shape(t *model.TensorStat, depth int) {
	s := &p.s
	if s.peek() != '[' {
		s.skip(depth)
		return
	}
	s.pos++
	start := len(p.shapes)
	if cap(p.shapes)-start < 64 {
		p.shapes = make([]int64, 0, shapeSlabSize)
		start = 0
	}
	elems, ok := int64(1), true
	n := 0
	for s.more(']', &n) {
		kind, v, _ := s.scalar()
		if kind != scalarNumber || v < 0 || v != math.Trunc(v) || v > math.MaxInt64/2 {
			ok = false
			v = -1
		}
		dim := int64(v)
		if len(p.shapes) == cap(p.shapes) { // absurdly long shape: own array
			grown := make([]int64, len(p.shapes)-start, 2*(len(p.shapes)-start)+8)
			copy(grown, p.shapes[start:])
			p.shapes, start = grown, 0
		}
		p.shapes = append(p.shapes, dim)
		if ok {
			if dim != 0 && elems > math.MaxInt64/dim {
				elems = math.MaxInt64 // saturate: only a size hint
			} else {
				elems *= dim
			}
		}
	}
	t.Shape = p.shapes[start:len(p.shapes):len(p.shapes)]
	if ok {
		t.Elements = elems
	}
}

// stat reads one statistic: numbers (including NaN/±Infinity tokens and
// JSON integers) are recorded; null and bools (a bool tensor's Max/Min) are
// not; strings are recorded when they spell a number ("nan", "inf", ...).
func (p *dumpParser) stat(t *model.TensorStat, which model.Stat) {
	kind, v, str := p.s.scalar()
	switch kind {
	case scalarNumber:
		t.Stat[which], t.Has[which] = v, true
	case scalarString:
		if f, ok := parseLooseFloat(str); ok {
			t.Stat[which], t.Has[which] = f, true
		}
	}
}

// parseLooseFloat accepts Python-style spellings of numbers in strings.
func parseLooseFloat(b []byte) (float64, bool) {
	switch strings.ToLower(strings.TrimSpace(string(b))) {
	case "nan", "-nan":
		return math.NaN(), true
	case "inf", "+inf", "infinity", "+infinity":
		return math.Inf(1), true
	case "-inf", "-infinity":
		return math.Inf(-1), true
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	return f, err == nil
}

// keep copies scratch tensors into the slab and returns a slice of it (nil
// when empty): one allocation per few thousand tensors instead of per op.
func (p *dumpParser) keep(ts []model.TensorStat) []model.TensorStat {
	if len(ts) == 0 {
		return nil
	}
	if cap(p.stats)-len(p.stats) < len(ts) {
		size := statSlabSize
		if len(ts) > size {
			size = len(ts)
		}
		p.stats = make([]model.TensorStat, 0, size)
	}
	start := len(p.stats)
	p.stats = append(p.stats, ts...)
	return p.stats[start:len(p.stats):len(p.stats)]
}

// intern returns a shared string for b: names and dtypes repeat in every op.
func (p *dumpParser) intern(b []byte) string {
	if v, ok := p.interned[string(b)]; ok {
		return v
	}
	v := string(b)
	if len(p.interned) < 1<<16 {
		p.interned[v] = v
	}
	return v
}
