package ingest

// The monitor CSV parser as it was before the zero-allocation scanner
// (encoding/csv): the reference FuzzCSVSameAsLegacy compares parseCSV with.
// Tests only.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"strings"
	"sync"

	"spikescope/model"
)

// lastByteReader remembers the last byte it passed on, to tell a file whose
// final line lacks its newline, and fails on a line longer than
// csvMaxLineBytes.
type lastByteReader struct {
	r       io.Reader
	last    byte
	sinceNL int   // bytes since the last newline
	offset  int64 // bytes read so far
}

func (l *lastByteReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if n > 0 {
		l.last = p[n-1]
		l.offset += int64(n)
		if i := bytes.LastIndexByte(p[:n], '\n'); i >= 0 {
			l.sinceNL = n - 1 - i
		} else {
			l.sinceNL += n
		}
		if l.sinceNL > csvMaxLineBytes {
			return n, errCSVLineTooLong
		}
	}
	return n, err
}

var bufioPool = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 1<<16) }}

func parseCSVLegacy(ctx context.Context, f csvFile, in io.Reader, size int64) (*csvResult, error) {
	lb := &lastByteReader{r: in}
	br := bufioPool.Get().(*bufio.Reader)
	br.Reset(lb)
	defer func() {
		br.Reset(nil)
		bufioPool.Put(br)
	}()
	if head, _ := br.Peek(csvSniffBytes); len(head) > 0 {
		if msg := binaryProblem(bytes.TrimPrefix(head, []byte("\ufeff"))); msg != "" {
			return nil, inputErr(f.path, nil, "%s", msg)
		}
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	rec, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, inputErr(f.path, nil, "no header line")
		}
		return nil, legacyCSVParseError(f.path, err)
	}
	h, err := parseCSVHeader(f, rec)
	if err != nil {
		return nil, err
	}
	res := &csvResult{micro: h.micro >= 0, oneBased: h.micro >= 0 && h.oneBasedMicro}
	res.rows.Grow(int(min(size/csvBytesPerRowGuess+1, 1<<24)))
	for _, s := range h.stats {
		res.hasStat[s] = true
	}
	if !h.v2 {
		res.metrics = []string{h.v1Metric}
	}
	// incompleteTail reports whether the record just read was the last line
	// of the input and that line lacks its newline: a file still being
	// written (msprobe appends a block of rows per step). It consumes the
	// next record, which the loop then takes as its next one.
	var pendingRec []string
	var pendingErr error
	pending := false
	incompleteTail := func() bool {
		r, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return lb.last != '\n'
		}
		pendingRec, pendingErr, pending = r, err, true
		return false
	}
	targets := map[targetKey]int32{}
	rank := int32(f.rank)
	var lastScope string
	lastMetric := -1
	nan := math.NaN()
	for n := 0; ; n++ {
		if pending {
			rec, err, pending = pendingRec, pendingErr, false
		} else {
			rec, err = cr.Read()
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			var pe *csv.ParseError
			if errors.As(err, &pe) && incompleteTail() {
				res.warnings = append(res.warnings, model.CSVIncompleteLine{Path: f.path, Line: pe.StartLine})
				break
			}
			if errors.As(err, &pe) && !errors.Is(err, errCSVLineTooLong) {
				if err := res.bad.add(legacyCSVParseError(f.path, err), res.rows.Len()); err != nil {
					return nil, err
				}
				continue
			}
			return nil, legacyCSVParseError(f.path, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != h.nFields {
			if len(rec) < h.nFields && incompleteTail() {
				res.warnings = append(res.warnings, model.CSVIncompleteLine{Path: f.path, Line: line})
				break
			}
			if err := res.bad.add(inputErr(f.path, nil, "line %d: %d fields, the header has %d", line, len(rec), h.nFields), res.rows.Len()); err != nil {
				return nil, err
			}
			continue
		}
		if n%csvChunkRows == csvChunkRows-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		name := rec[h.name]
		if h.v2 {
			name = stripVPPPrefix(name)
		}
		if name == "" {
			if err := res.bad.add(inputErr(f.path, nil, "line %d: empty %s", line, map[bool]string{true: "module_name", false: "name"}[h.v2]), res.rows.Len()); err != nil {
				return nil, err
			}
			continue
		}
		// a bad cell makes its line a counted data problem (csvBadLines):
		// the line is skipped, the file's good rows are kept
		var badCell error
		vpp := 0
		if h.vpp >= 0 && rec[h.vpp] != "" {
			if vpp, err = parseIntCell(rec[h.vpp]); err != nil {
				badCell = cellError(f.path, line, "vpp_stage", rec[h.vpp])
			}
		}
		step, err := parseIntCell(rec[h.step])
		switch {
		case err != nil || step > math.MaxInt32:
			badCell = cellError(f.path, line, "step", rec[h.step])
		case step < 0:
			badCell = inputErr(f.path, nil, "line %d, column step: %d is negative", line, step)
		}
		micro := model.NoMicro
		if h.micro >= 0 && !(h.oneBasedMicro && rec[h.scope] == "reduced") && !(h.v2 && rec[h.micro] == "") {
			m, err := parseIntCell(rec[h.micro])
			if err != nil {
				badCell = cellError(f.path, line, "micro_step", rec[h.micro])
			}
			if h.oneBasedMicro {
				m--
			}
			micro = int32(m)
		}
		var vals [model.NumStats]float64
		for s := range vals {
			vals[s] = nan
		}
		for _, s := range h.stats {
			v, err := parseStatCell(rec[h.stat[s]])
			if err != nil && badCell == nil {
				badCell = cellError(f.path, line, model.StatNames[s], rec[h.stat[s]])
			}
			vals[s] = v
		}
		if badCell != nil {
			if err := res.bad.add(badCell, res.rows.Len()); err != nil {
				return nil, err
			}
			continue
		}
		metric := 0
		if h.v2 {
			scope := rec[h.scope]
			if lastMetric < 0 || scope != lastScope {
				idx, ok := h.metricFromScopeMap[scope]
				if !ok {
					if len(res.metrics) >= maxMetrics {
						return nil, inputErr(f.path, nil, "line %d: more than %d metrics", line, maxMetrics)
					}
					idx = len(res.metrics)
					h.metricFromScopeMap[scope] = idx
					res.metrics = append(res.metrics, v2MetricName(h.slug, scope))
				}
				lastScope, lastMetric = scope, idx
			}
			metric = lastMetric
		}
		key := targetKey{name, vpp}
		ti, ok := targets[key]
		if !ok {
			ti = int32(len(res.targets))
			targets[key] = ti
			res.targets = append(res.targets, model.Target{Name: strings.Clone(name), VPPStage: vpp})
		}
		res.rows.Append(rank, int32(step), micro, ti, uint8(metric), vals)
	}
	if err := res.bad.finish(f.path, res.rows.Len()); err != nil {
		return nil, err
	}
	if w := res.bad.warning(f.path); w != nil {
		res.warnings = append(res.warnings, w)
	}
	if res.rows.Len() == 0 && res.bad.n == 0 {
		res.warnings = append(res.warnings, model.CSVHeaderOnly{Path: f.path, Rank: f.rank})
	}
	return res, nil
}

// legacyCSVParseError words an encoding/csv error (bad quoting, ...).
func legacyCSVParseError(path string, err error) error {
	if errors.Is(err, errCSVLineTooLong) {
		return inputErr(path, err, "a line longer than %d MiB: not a monitor CSV, or the file is damaged", csvMaxLineBytes>>20)
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return inputErr(path, err, "line %d: %s", pe.Line, legacyCSVProblem(pe.Err))
	}
	return inputErr(path, err, "cannot read: %v", unwrapPathError(err))
}

// legacyCSVProblem words encoding/csv's quoting errors for people.
func legacyCSVProblem(err error) string {
	switch {
	case errors.Is(err, csv.ErrBareQuote):
		return `a stray quote (") inside an unquoted field`
	case errors.Is(err, csv.ErrQuote):
		return `a quoted field is not closed, or text follows its closing quote`
	case errors.Is(err, csv.ErrFieldCount):
		return "wrong number of fields"
	}
	return err.Error()
}
