// Package synth generates one realistic multi-rank Megatron-style training
// run with a planted gradient-spike fault, in every msprobe format that
// spikescope reads, deterministically (math/rand/v2 PCG with a fixed seed:
// the same Config gives the same bytes).
//
// The run: an mcore GPT (local spec, TP=2 shard shapes), Config.Ranks DP
// ranks, Config.Layers layers, gradient accumulation over Config.Window
// micro steps, Config.OptSteps optimizer steps from Config.FirstStep.
//
//   - grad_unreduced is the cumulative main_grad over the micro batches of an
//     optimizer step (per-parameter base norms, ~±10% data noise), so its
//     norm grows like √m and resets at every optimizer step; grad_reduced is
//     the DP average of the final one (one row per optimizer step, the same
//     on every rank).
//   - The fault: at (Fault.OptStep, Fault.MicroStep, Fault.Rank) the
//     increments of layer Fault.Layer's mlp.linear_fc2 weight are multiplied
//     by Fault.Scale (linear_fc1 and pre_mlp_layernorm less). One optimizer
//     step later ~75% of the ranks (always the fault rank) explode by 10–50×
//     on every weight of layers ≥ Fault.Layer and the output layer, and
//     still carry a smaller factor the step after: the largest anomaly comes
//     later, the earliest one is the root cause.
//   - The baseline device (Baseline) sees the same data with other device
//     noise (~1%), no fault and no explosion.
//   - Dumps (task statistics, level mix, Megatron construct.json with
//     [parent, micro_step] values, de-duplicated stack.json) of the fault
//     step for the fault rank (A) and Config.ControlRanks (C), plus the fault
//     rank one step earlier, on both devices (B, D). In A the output of
//     NPU.npu_swiglu in layer Fault.Layer is scaled by Fault.OpScale; ops
//     downstream carry a smaller propagated deviation, ops upstream match B
//     within ~0.4% device noise; backward gradients of layers ≤ Fault.Layer
//     deviate (amplified below it). parameters_grad holds the monitor's
//     accumulated main_grad, so A shows the layer's MLP gradient spike.
//
// API:
//
//	cfg := synth.DefaultConfig()          // 8 ranks, 6 layers, W=4, 10 steps, fault (5, 2, rank 3, layer 2)
//	run := synth.Generate(cfg)            // everything in memory
//	run.WriteTrendDB(path)                // anomalous device, as `msprobe data2db --micro_step true`
//	run.WriteTrendDBFor(path, synth.Baseline)
//	run.WriteCSVTree(dir)                 // monitor_output/<time>-rank<R>-<hex>/grad_{unreduced,reduced}_<s>-<s>.csv
//	run.WriteCSVTreeFor(dir, synth.Baseline)
//	run.WriteDumps(dir, synth.Anomalous)  // dir/step<S>/rank<R>/{dump,construct,stack}.json
//	run.Monitor(synth.Anomalous)          // *model.MonitorData as ingest reads the trend.db
//	run.Truth()                           // the planted answer (TRUTH.json)
//	run.DumpFolders(), run.DumpJSON(dev, folder), run.TrendRows(), run.GlobalStep(opt, micro)
//
// Sweep runs (window, ranks, stages, faults and noise varied one at a time;
// the sweeps package's matrices):
//
//	run := synth.GenerateSweep(synth.SweepWith("W=8", func(c *synth.Sweep) { c.W = 8 }))
//	run.Monitor(0)                        // device 0 (1: baseline) in memory, as a --micro_step true trend.db
//	run.WriteTrendDB(path, 0, microStep), run.WriteCSV(dir, 0, v2), run.WriteDumps(dir, 0), run.WriteDumpsMicro(dir, 0)
//
// Phase 3 four-group dumps (naming flavours, dump levels, micro-batches,
// recompute, a planted fault that propagates like activations):
//
//	q := synth.TraceQuad{Layers: 24, Noise: 0.005, Bias: 1, Seed: 1, Fault: synth.TraceFwdFault(11, "swi", 1.5)}
//	a, b, c, d := q.Build()               // *model.Dump each (C, D nil with NoCD / NoD)
//	synth.TracePlantedKey(a, q)           // the planted operator's key
//	synth.TraceCase{Quad: q, MustFind: true}.Check(phase3) // what the trace got wrong, "" = right
//	synth.WriteTraceDump(dir, a)          // dump.json + construct.json as msprobe writes them
//
// Large data for benchmarks:
//
//	synth.WriteLargeTrendDB(path, rows, window) // exactly rows trend_data rows; 1M ≈ 1–2 s
//	synth.WriteLargeCSVTree(dir, rows)          // exactly rows CSV data rows
//	synth.LargeDump(ops)                        // dump.json bytes with exactly ops entries (48 layers)
//	synth.WriteLargeDump(dir, ops)              // the same plus construct.json and stack.json
//
// Number formats follow the writers: monitor CSV values rounded to 6 digits
// and printed like pandas (repr, "nan", "inf", quoted list shapes); trend.db
// values are those numbers, clamped to ±(1e9+1), NaN as NULL; dump.json is
// json.dump(indent=1) with repr floats and bf16-exact statistics of bf16
// tensors.
package synth
