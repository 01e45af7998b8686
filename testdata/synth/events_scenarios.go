package synth

// The planted-event runs of the Phase 2 event tests (analysis in memory,
// sweeps through the readers).

// EventsRun is a synthetic run whose only anomalies are its planted Spikes.
func EventsRun(window, steps int, spikes ...Spike) *Run {
	c := DefaultConfig()
	c.Window, c.OptSteps, c.NoFault, c.Spikes = window, steps, true, spikes
	return Generate(c)
}

// TwoSpikes is issue 9 item 6: on step-level data an earlier, smaller
// kernel spike (one parameter of one rank) and a later, much larger data
// spike (every parameter of another rank).
func TwoSpikes(window int) *Run {
	return EventsRun(window, 16,
		Spike{OptStep: 5, Ranks: []int{2}, Kernel: true, Layer: 3, Scale: 4},
		Spike{OptStep: 11, Ranks: []int{6}, All: true, Scale: 30})
}

// FP16Overflows is issue 17 item 2: dynamic loss scaling overflows on both devices
// every 4 steps (the same output-layer and embedding gradients turn +Inf on
// every rank, the step is skipped), plus, when spike, a device-specific
// kernel spike on rank 4 at step 9 — right before the overflow at 10.
func FP16Overflows(window int, spike bool) *Run {
	var sp []Spike
	for _, k := range []int{2, 6, 10, 14} {
		sp = append(sp, Spike{OptStep: k, MicroStep: min(1, window-1), Overflow: true, Shared: true,
			Names: []string{"output_layer.weight", "embedding.word_embeddings.weight"}})
	}
	if spike {
		sp = append(sp, Spike{OptStep: 9, MicroStep: min(2, window-1), Ranks: []int{4}, Kernel: true, Layer: 1, Scale: 5})
	}
	return EventsRun(window, 16, sp...)
}
