package synth

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// tkind is the kind of one dumped argument.
type tkind uint8

const (
	tNull     tkind = iota // None or a filtered argument
	tTensor                // a float/int tensor with four statistics
	tBoolMask              // a torch.bool tensor: Max true, Min false, Mean/Norm null
	tEmpty                 // a 0-element tensor: all statistics null
	tInt
	tFloat
	tStr
)

// tensor is one dumped argument (tensor statistics or a plain value).
type tensor struct {
	kind  tkind
	dtype string
	shape []int64
	// st is Max, Min, Mean, Norm.
	st   [4]float64
	grad bool // requires_grad
	i    int64
	f    float64
	s    string
}

// kv is a named argument (kwargs, parameters, parameter gradients).
type kv struct {
	k string
	v tensor
}

// node is one module or API call in a micro batch: its forward record, its
// backward record and, for modules owning weights, its parameters_grad.
type node struct {
	module      bool
	prefix      string // "Module" or the API prefix (NPU, Functional, ...)
	path, class string // module path and class
	api         string // API name
	idx         int    // forward.N of a module (micro batch) or the API counter
	mb          int    // micro batch
	in          []tensor
	kw          []kv
	out         []tensor
	params      []kv
	bin, bout   []tensor
	noBwd       bool
	pgrad       []kv
	pgradN      int
	site        string // call site, groups identical stacks in stack.json
	children    []*node
}

func (n *node) key(dir string) string {
	if n.module {
		return fmt.Sprintf("Module.%s.%s.%s.%d", n.path, n.class, dir, n.idx)
	}
	return fmt.Sprintf("%s.%s.%d.%s", n.prefix, n.api, n.idx, dir)
}

func (n *node) fwdKey() string { return n.key("forward") }
func (n *node) bwdKey() string { return n.key("backward") }
func (n *node) pgradKey() string {
	return fmt.Sprintf("Module.%s.%s.parameters_grad.%d", n.path, n.class, n.pgradN)
}

func (n *node) add(c ...*node) *node { n.children = append(n.children, c...); return n }

// Dtype names.
const (
	bf16 = "torch.bfloat16"
	f32  = "torch.float32"
	i64  = "torch.int64"
)

func elements(shape []int64) int64 {
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

// seeded makes a PCG generator from the run seed and a few coordinates.
func seeded(seed uint64, parts ...any) *rand.Rand {
	h := fnv.New64a()
	fmt.Fprint(h, parts...)
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// statGen draws tensor statistics: data draws (shared by both devices) from
// data, device noise from noise, so that A and B differ only by noise.
type statGen struct {
	data, noise *rand.Rand
	devNoise    float64
}

// round applies the dtype's precision to the four statistics.
func roundStats(dtype string, st [4]float64) [4]float64 {
	for i, v := range st {
		switch dtype {
		case bf16:
			st[i] = toBF16(v)
		case f32:
			st[i] = toF32(v)
		}
	}
	return st
}

// act is an activation or gradient tensor with rms sigma, centred, scaled by
// dev (the fault's deviation; 1 when healthy).
func (g *statGen) act(shape []int64, dtype string, sigma, dev float64, grad bool) tensor {
	n := elements(shape)
	tail := tailRatio(n) * 1.3
	a, b, c, z := 1+0.03*gauss(g.data), 1+0.08*gauss(g.data), 1+0.08*gauss(g.data), gauss(g.data)
	e := g.devNoise
	st := [4]float64{
		sigma * tail * b * (1 + e*gauss(g.noise)) * dev,
		-sigma * tail * c * (1 + e*gauss(g.noise)) * dev,
		sigma * 0.004 * (z + 0.25*gauss(g.noise)) * dev,
		sigma * math.Sqrt(float64(n)) * a * (1 + e*gauss(g.noise)) * dev,
	}
	return tensor{kind: tTensor, dtype: dtype, shape: shape, st: roundStats(dtype, st), grad: grad}
}

// pos is a tensor with given typical max, min, mean and rms (e.g. norm
// weights near 1, softmax statistics, token ids).
func (g *statGen) pos(shape []int64, dtype string, max, min, mean, rms, dev float64, grad bool) tensor {
	n := elements(shape)
	a, b, c := 1+0.02*gauss(g.data), 1+0.02*gauss(g.data), 1+0.01*gauss(g.data)
	e := g.devNoise
	st := [4]float64{
		max * a * (1 + e*gauss(g.noise)) * dev,
		min * b * (1 + e*gauss(g.noise)) * dev,
		mean * c * (1 + e*gauss(g.noise)) * dev,
		rms * c * math.Sqrt(float64(n)) * (1 + e*gauss(g.noise)) * dev,
	}
	if dtype == i64 {
		for i := range st {
			st[i] = math.Round(st[i])
		}
		st[3] = math.Round(rms * math.Sqrt(float64(n)))
	}
	return tensor{kind: tTensor, dtype: dtype, shape: shape, st: roundStats(dtype, st), grad: grad}
}

// fromGrad is a parameter gradient (fp32 main_grad) from the monitor stats.
func fromGrad(shape []int64, gs GradStat) tensor {
	return tensor{kind: tTensor, dtype: f32, shape: shape,
		st: roundStats(f32, [4]float64{gs.Max, gs.Min, gs.Mean, gs.Norm})}
}

func null() tensor              { return tensor{kind: tNull} }
func intArg(v int64) tensor     { return tensor{kind: tInt, i: v} }
func floatArg(v float64) tensor { return tensor{kind: tFloat, f: v} }
func strArg(s string) tensor    { return tensor{kind: tStr, s: s} }
func boolMask(shape []int64) tensor {
	return tensor{kind: tBoolMask, dtype: "torch.bool", shape: shape}
}
func empty(dtype string) tensor {
	return tensor{kind: tEmpty, dtype: dtype, shape: []int64{0}, grad: true}
}
func shp(d ...int64) []int64 { return d }
