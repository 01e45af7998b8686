package analysis

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"spikescope/model"
)

// monBuilder builds model.MonitorData row by row for tests.
type monBuilder struct {
	d    *model.MonitorData
	tidx map[string]int32
}

func newMon(format model.Format, metrics ...string) *monBuilder {
	if len(metrics) == 0 {
		metrics = []string{"grad_unreduced", "grad_reduced"}
	}
	d := &model.MonitorData{Path: "test", Format: format, Metrics: metrics}
	d.HasStat = [model.NumStats]bool{true, true, true, true}
	return &monBuilder{d: d, tidx: map[string]int32{}}
}

func (b *monBuilder) target(name string) int32 {
	if t, ok := b.tidx[name]; ok {
		return t
	}
	b.d.Targets = append(b.d.Targets, model.Target{Name: name})
	b.tidx[name] = int32(len(b.d.Targets) - 1)
	return b.tidx[name]
}

// add appends a row of metric index m; min/max = ∓norm/10.
func (b *monBuilder) add(rank, step, micro int, name string, m uint8, norm float64) {
	b.d.Rows.Append(int32(rank), int32(step), int32(micro), b.target(name), m,
		[model.NumStats]float64{norm, -norm / 10, norm / 10, 0})
}

func (b *monBuilder) run(t *testing.T) *model.Phase1Result {
	t.Helper()
	return Phase1(b.d, DefaultPhase1Options())
}

const (
	fc1 = "decoder.layers.0.mlp.linear_fc1.weight"
	qkv = "decoder.layers.1.self_attention.linear_qkv.weight"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

func pv(p *int) int {
	if p == nil {
		return -99
	}
	return *p
}

func fpv(p *model.Float) float64 {
	if p == nil {
		return math.NaN()
	}
	return float64(*p)
}

// accumRun generates a trend.db-like run with a global micro-step index:
// cumulative norms of W micro-batches per optimizer step whose own norms
// are base·(1±noise). correlated=false: N_k = sqrt(Σ g_i²) (uncorrelated,
// √k growth); true: N_k = Σ g_i (aligned micro-batches, linear growth).
type accumRun struct {
	Ranks, Params, Steps, W, Phase int
	First                          int // first recorded global step
	Noise                          float64
	Correlated                     bool
	// Spike multiplies the micro-batch norm at one coordinate.
	Spike func(rank, param, opt, ms int) float64
	// Reduced adds grad_reduced rows at every window start.
	Reduced bool
	Seed    uint64
}

func (a accumRun) build() *monBuilder {
	b := newMon(model.FormatTrendDB)
	rng := rand.New(rand.NewPCG(a.Seed, 7))
	names := make([]string, a.Params)
	for p := range names {
		names[p] = "layers." + itoa12(p/8) + ".param" + itoa12(p%8) + ".weight"
		b.target(names[p])
	}
	for r := 0; r < a.Ranks; r++ {
		for p := 0; p < a.Params; p++ {
			base := 0.01 * float64(1+p%37) * (1 + float64(p%5))
			acc := 0.0
			// start at the window start before First so that a partial first
			// window carries its unrecorded micro-batches
			start := a.First - ((a.First-a.Phase)%a.W+a.W)%a.W
			for s := start; s < a.First+a.Steps; s++ {
				d := s - a.Phase
				opt := int(math.Floor(float64(d) / float64(a.W)))
				ms := d - opt*a.W
				if ms == 0 {
					acc = 0
				}
				g := base * (1 + a.Noise*(2*rng.Float64()-1))
				if a.Spike != nil {
					g *= a.Spike(r, p, opt, ms)
				}
				var n float64
				if a.Correlated {
					acc += g
					n = acc
				} else {
					acc += g * g
					n = math.Sqrt(acc)
				}
				if s < a.First {
					continue
				}
				b.add(r, s, int(model.NoMicro), names[p], 0, n)
				if a.Reduced && ms == 0 {
					b.add(r, s, int(model.NoMicro), names[p], 1, 50*base)
				}
			}
		}
	}
	return b
}

func itoa12(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa12(i/10) + digits[i%10:i%10+1]
}

func newRng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 3)) }

func jsonRoundTrip(r *model.Phase1Result) (*model.Phase1Result, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var out model.Phase1Result
	err = json.Unmarshal(b, &out)
	return &out, err
}

// reasonOf is the first reason of type R in rs.
func reasonOf[R model.Reason](rs []model.Reason) (R, bool) {
	for _, r := range rs {
		if x, ok := r.(R); ok {
			return x, true
		}
	}
	var zero R
	return zero, false
}
