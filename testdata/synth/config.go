package synth

// Fault is the planted root cause: at optimizer step OptStep, micro step
// MicroStep, rank Rank, the gradient increments of layer Layer's MLP weights
// are multiplied by Scale (linear_fc2 fully, linear_fc1 and pre_mlp_layernorm
// less), and in the dump of that rank and step the output of one operator of
// that layer's MLP (npu_swiglu) is scaled by OpScale.
type Fault struct {
	OptStep   int     // absolute optimizer step (≥ Config.FirstStep)
	MicroStep int     // 0 … Window-1
	Rank      int     // 0 … Ranks-1
	Layer     int     // 0 … Layers-1
	Scale     float64 // gradient increment factor, ~3–6
	OpScale   float64 // planted operator output factor, ~1.5–3
	// Explosion is the factor range of the step after the fault, where most
	// ranks blow up on many parameters (the propagated, larger anomaly).
	ExplosionMin, ExplosionMax float64
}

// Config shapes one synthetic run.
type Config struct {
	Ranks     int // data-parallel ranks
	Layers    int // transformer layers
	Window    int // gradient accumulation: micro steps per optimizer step
	OptSteps  int // optimizer steps recorded
	FirstStep int // number of the first optimizer step
	Fault     Fault
	Seed      uint64
	// NoiseLevel is the relative spread of per-micro-batch gradient norms
	// (data noise), ~0.1.
	NoiseLevel float64
	// DeviceNoise is the relative per-value noise of each device (the
	// anomalous and the baseline run differ by about √2 times it).
	DeviceNoise float64
	// DumpNoise is the relative per-tensor device noise in dumps.
	DumpNoise float64
	// DumpMicroBatches is how many micro batches each dump.json holds
	// (forward.N / parameters_grad.N up to N-1). With 1 the single dumped
	// micro batch is the faulty one and its parameters_grad is the step's
	// final accumulated main_grad.
	DumpMicroBatches int
	// ControlRanks are the other ranks dumped at the fault step (C
	// candidates); DumpPrevStep also dumps the fault rank one step earlier.
	ControlRanks []int
	DumpPrevStep bool
	// PreOrder writes each module's record before its children's (msprobe
	// writes it when the module returns, after them); NoConstruct writes
	// dump.json alone (extra_info false: no construct.json, no stack.json).
	PreOrder, NoConstruct bool
	// NoFault leaves the planted Fault (and its explosion) out: the run's
	// anomalies are its Spikes only (events.go).
	NoFault bool
	// Spikes are further planted spike events (events.go): independent
	// kernel or data spikes, and fp16 loss-scale overflows on both devices.
	Spikes []Spike
}

// DefaultConfig is the demo run: 8 ranks, 6 layers, window 4, 10 optimizer
// steps, fault at step 5 / micro step 2 / rank 3 / layer 2.
func DefaultConfig() Config {
	return Config{
		Ranks:     8,
		Layers:    6,
		Window:    4,
		OptSteps:  10,
		FirstStep: 0,
		Fault: Fault{
			OptStep: 5, MicroStep: 2, Rank: 3, Layer: 2,
			Scale: 4.5, OpScale: 2.2,
			ExplosionMin: 10, ExplosionMax: 50,
		},
		Seed:             20260220,
		NoiseLevel:       0.10,
		DeviceNoise:      0.01,
		DumpNoise:        0.004,
		DumpMicroBatches: 1,
		ControlRanks:     []int{5},
		DumpPrevStep:     true,
	}
}

// Device selects the anomalous run (the "NPU" side, with the fault) or its
// healthy baseline (the "GPU" side: same data, other device noise).
type Device int

const (
	Anomalous Device = iota
	Baseline
	numDevices
)

func (d Device) String() string {
	if d == Baseline {
		return "baseline"
	}
	return "anomalous"
}

// normalized fills defaults for zero fields and clamps the fault into range.
func (c Config) normalized() Config {
	d := DefaultConfig()
	if c.Ranks <= 0 {
		c.Ranks = d.Ranks
	}
	if c.Layers <= 0 {
		c.Layers = d.Layers
	}
	if c.Window <= 0 {
		c.Window = d.Window
	}
	if c.OptSteps <= 0 {
		c.OptSteps = d.OptSteps
	}
	if c.Fault.Scale <= 0 {
		c.Fault.Scale = d.Fault.Scale
	}
	if c.Fault.OpScale <= 0 {
		c.Fault.OpScale = d.Fault.OpScale
	}
	if c.Fault.ExplosionMin <= 0 {
		c.Fault.ExplosionMin = d.Fault.ExplosionMin
	}
	if c.Fault.ExplosionMax < c.Fault.ExplosionMin {
		c.Fault.ExplosionMax = c.Fault.ExplosionMin
	}
	if c.NoiseLevel <= 0 {
		c.NoiseLevel = d.NoiseLevel
	}
	if c.DeviceNoise <= 0 {
		c.DeviceNoise = d.DeviceNoise
	}
	if c.DumpNoise <= 0 {
		c.DumpNoise = d.DumpNoise
	}
	if c.DumpMicroBatches <= 0 {
		c.DumpMicroBatches = d.DumpMicroBatches
	}
	if c.DumpMicroBatches > c.Window {
		c.DumpMicroBatches = c.Window
	}
	c.Fault.OptStep = clampInt(c.Fault.OptStep, c.FirstStep, c.FirstStep+c.OptSteps-1)
	c.Fault.MicroStep = clampInt(c.Fault.MicroStep, 0, c.Window-1)
	c.Fault.Rank = clampInt(c.Fault.Rank, 0, c.Ranks-1)
	c.Fault.Layer = clampInt(c.Fault.Layer, 0, c.Layers-1)
	var ctl []int
	for _, r := range c.ControlRanks {
		if r >= 0 && r < c.Ranks && r != c.Fault.Rank {
			ctl = append(ctl, r)
		}
	}
	if len(ctl) == 0 && c.Ranks > 1 {
		ctl = []int{(c.Fault.Rank + 2) % c.Ranks}
		if ctl[0] == c.Fault.Rank {
			ctl[0] = (c.Fault.Rank + 1) % c.Ranks
		}
	}
	c.ControlRanks = ctl
	if c.Fault.OptStep == c.FirstStep {
		c.DumpPrevStep = false
	}
	return c
}

func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
