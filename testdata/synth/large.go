package synth

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// Shape of the large benchmark data: a 48-layer model on 8 ranks.
const (
	largeLayers = 48
	largeRanks  = 8
	largeSeed   = 7
	// largeBatch is the number of rows per multi-row INSERT.
	largeBatch = 100
)

// largeTargets are the parameter names and base norms of the large model.
func largeTargets() []Param { return buildParams(largeLayers) }

// largeValue is a cheap cumulative-gradient model: base · √(m+1) · noise,
// with one planted spike so that the data is not pure noise.
func largeValue(rng *rand.Rand, base float64, m int, spike bool) GradStat {
	n := base * math.Sqrt(float64(m+1)) * (1 + 0.1*rng.NormFloat64())
	if spike {
		n *= 5
	}
	t := n * 1e-4
	return GradStat{Norm: n, Max: t * (1 + 0.05*rng.NormFloat64()), Min: -t * (1 + 0.05*rng.NormFloat64()), Mean: t * 0.01 * rng.NormFloat64()}
}

// WriteLargeTrendDB writes a trend.db of exactly rows trend_data rows (8
// ranks, the 291 parameters of a 48-layer model, accumulation window
// window), as data2db --micro_step true lays it out: rows in primary-key
// order, grad_reduced at each window's first step. It uses one transaction,
// multi-row prepared inserts and journal_mode=OFF: 1M rows take a few
// seconds, 10M are feasible.
func WriteLargeTrendDB(path string, rows int, window int) error {
	if window <= 0 {
		window = 1
	}
	ps := largeTargets()
	P := len(ps)
	// the fewest micro steps per rank whose rows reach the count
	capacity := func(steps int) int { return largeRanks * P * (steps + (steps+window-1)/window) }
	steps := max(1, rows/(largeRanks*P*(window+1)/window))
	for steps > 1 && capacity(steps-1) >= rows {
		steps--
	}
	for capacity(steps) < rows {
		steps++
	}
	db, tx, err := beginTrendDB(path, ps, steps-1, largeRanks-1)
	if err != nil {
		return err
	}
	defer db.Close()
	defer tx.Rollback()
	st, err := tx.Prepare(insertTrendRows(largeBatch))
	if err != nil {
		return err
	}
	defer st.Close()
	rng := rand.New(rand.NewPCG(largeSeed, uint64(rows)))
	args := make([]any, 0, 8*largeBatch)
	flush := func(final bool) error {
		if len(args) == 0 {
			return nil
		}
		if len(args) == cap(args) {
			_, err := st.Exec(args...)
			args = args[:0]
			return err
		}
		if !final {
			return nil
		}
		n := len(args) / 8
		_, err := tx.Exec(insertTrendRows(n), args...)
		args = args[:0]
		return err
	}
	spikeStep, spikeTarget := steps*3/5, P/2
	done := 0
	add := func(rank, step, target, metric int, g GradStat) error {
		args = append(args, rank, step, target, metric,
			trendValue(stored(g.Norm)), trendValue(stored(g.Min)), trendValue(stored(g.Max)), trendValue(stored(g.Mean)))
		done++
		return flush(false)
	}
	reduced := make([]GradStat, P)
	for rank := 0; rank < largeRanks && done < rows; rank++ {
		for step := 0; step < steps && done < rows; step++ {
			m := step % window
			if m == 0 {
				r2 := rand.New(rand.NewPCG(largeSeed, uint64(step)))
				for p := range reduced {
					reduced[p] = largeValue(r2, ps[p].BaseNorm*1.2, window-1, false)
				}
			}
			for p := 0; p < P && done < rows; p++ {
				spike := rank == 1 && step == spikeStep && p == spikeTarget
				if err := add(rank, step, p+1, 1, largeValue(rng, ps[p].BaseNorm, m, spike)); err != nil {
					return err
				}
				if m == 0 && done < rows {
					if err := add(rank, step, p+1, 2, reduced[p]); err != nil {
						return err
					}
				}
			}
		}
	}
	if err := flush(true); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return db.Close()
}

// WriteLargeCSVTree writes a monitor CSV tree of exactly rows data rows
// (8 rank folders, window 4, the 291 parameters of a 48-layer model): whole
// optimizer steps of grad_unreduced (with micro_step) and grad_reduced
// files, the last file cut when the count is reached.
func WriteLargeCSVTree(dir string, rows int) error {
	const window = 4
	ps := largeTargets()
	P := len(ps)
	perRank := (rows + largeRanks - 1) / largeRanks
	rng := rand.New(rand.NewPCG(largeSeed, uint64(rows)))
	done := 0
	for rank := 0; rank < largeRanks && done < rows; rank++ {
		t := runStart[Anomalous].Add(secondsDur(rank))
		rd := filepath.Join(dir, fmt.Sprintf("%s-rank%d-%s", t.Format("Jan02_15-04-05"), rank, hex8(rng.Uint32())))
		if err := os.MkdirAll(rd, 0o755); err != nil {
			return err
		}
		rankDone := 0
		for step := 0; rankDone < perRank && done < rows; step++ {
			stepStr := strconv.Itoa(step)
			for _, metric := range []string{MetricUnreduced, MetricReduced} {
				if rankDone >= perRank || done >= rows {
					break
				}
				var b bytes.Buffer
				micros := window
				if metric == MetricReduced {
					b.WriteString(csvHeaderReduced + "\n")
					micros = 1
				} else {
					b.WriteString(csvHeaderMicro + "\n")
				}
				for m := 0; m < micros && rankDone < perRank && done < rows; m++ {
					for p := 0; p < P && rankDone < perRank && done < rows; p++ {
						g := largeValue(rng, ps[p].BaseNorm, m, false)
						line := []byte("0," + ps[p].Squashed + "," + stepStr)
						if metric == MetricUnreduced {
							line = strconv.AppendInt(append(line, ','), int64(m), 10)
						}
						line = appendStats(line, g)
						line = append(line, ","+shapeCell(ps[p].Shape)+","+gradDtype+"\n"...)
						b.Write(line)
						rankDone++
						done++
					}
				}
				name := fmt.Sprintf("%s_%d-%d.csv", metric, step, step)
				if err := os.WriteFile(filepath.Join(rd, name), b.Bytes(), 0o644); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// largeRun is the run behind a large dump: one rank, one step, 48 layers,
// one window of nmb micro batches (the parameters_grad values).
func largeRun(ops int) *Run {
	perMB := opsPerMicroBatch(largeLayers)
	nmb := max(1, (ops+perMB-1)/perMB)
	c := DefaultConfig()
	c.Ranks, c.Layers, c.Window, c.OptSteps, c.FirstStep = 1, largeLayers, nmb, 1, 0
	c.DumpMicroBatches = nmb
	c.Fault.OptStep, c.Fault.Rank, c.Fault.Layer, c.Fault.MicroStep = 0, 0, largeLayers/2, 0
	c.ControlRanks, c.DumpPrevStep = nil, false
	c.Seed = largeSeed
	return Generate(c)
}

// opsPerMicroBatch is the number of dump.json entries of one micro batch.
func opsPerMicroBatch(layers int) int {
	const perLayer, top = 52, 27
	return perLayer*layers + top
}

// largeDumpParts builds the micro batches and the first ops entries.
func largeDumpParts(ops int) ([]*node, []entry) {
	r := largeRun(ops)
	roots := r.dumpRoots(Anomalous, DumpFolder{Step: 0, Rank: 0})
	es := allEntries(roots)
	if ops >= 0 && len(es) > ops {
		es = es[:ops]
	}
	return roots, es
}

// LargeDump returns a dump.json of exactly ops entries (a 48-layer model,
// as many micro batches as needed; the last one may be cut), for Phase 3
// and reader benchmarks (e.g. 6,144 and 200,000 ops).
func LargeDump(ops int) []byte {
	_, es := largeDumpParts(ops)
	var b bytes.Buffer
	writeDumpJSON(&b, es)
	return b.Bytes()
}

// WriteLargeDump writes dump.json (LargeDump(ops)), construct.json and
// stack.json into dir.
func WriteLargeDump(dir string, ops int) error {
	roots, es := largeDumpParts(ops)
	return writeDumpFolder(dir, roots, es)
}
