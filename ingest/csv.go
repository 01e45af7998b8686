package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"spikescope/model"
)

// CSV reading rules (formats.md §1.3, §1.6):
//   - Columns are found by header name; ops may come in any order and extra
//     columns (zeros, nans, shape, dtype, ...) are ignored.
//   - v1 header: vpp_stage,name,step[,micro_step],<ops>; the metric is the
//     file-name prefix. v2 header: vpp_stage,step,module_name,scope
//     [,micro_step],<ops>; the metric is the slug and scope (weight_grad +
//     unreduced → "grad_unreduced", see v2MetricName), and a "<vpp>:" prefix
//     on module names is stripped.
//   - v2 weight_grad micro steps are 1-based in the file; rows hold the
//     0-based position, so all sources agree, and MicroOneBased names the
//     file's metrics so that coordinates are reported as the file wrote them.
//     v2 "reduced" rows carry micro_batch_number (= the window) as micro
//     step; like v1 grad_reduced rows (no micro_step column) they get NoMicro.
//   - An empty statistic cell is NaN (the reference reads it as 0); "nan",
//     "inf", "-inf" are read as such.
//   - A line that is not data — a cell that is not a number, a negative
//     step, fewer or more fields than the header, bad quoting — is a data
//     problem: skipped, counted and named in a warning (csvBadLines), never
//     read as a value; the file's good rows are kept. A file with no good row,
//     or more bad lines than good ones (over csvBadFloor), is an InputError
//     naming file and line. A short (or badly quoted) LAST line without its
//     newline is a file still being written: skipped with its own warning.
//     In a folder tree a file that fails is skipped whole, with a warning,
//     and the other files are read (see csvSkips).
//   - Binary data (a NUL byte or non-UTF-8 bytes in the first
//     csvSniffBytes) and lines longer than csvMaxLineBytes are refused at
//     once, so a huge non-CSV file is never buffered.

// csvChunkRows is how many rows a file reader parses between checks of
// cancellation.
const csvChunkRows = 4096

// csvHeader holds the column positions of one file.
type csvHeader struct {
	v2                 bool
	nFields            int
	name, vpp, step    int // -1 when absent (vpp_stage may be absent)
	micro, scope       int
	stat               [model.NumStats]int
	stats              []model.Stat // present stats
	oneBasedMicro      bool         // v2 weight_grad
	slug, v1Metric     string
	metricFromScopeMap map[string]int // v2: scope → local metric index
}

func parseCSVHeader(f csvFile, rec []string) (*csvHeader, error) {
	h := &csvHeader{nFields: len(rec), name: -1, vpp: -1, step: -1, micro: -1, scope: -1}
	for s := range h.stat {
		h.stat[s] = -1
	}
	for i, c := range rec {
		c = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(c, "\ufeff")))
		switch c {
		case "name", "module_name":
			h.name = i
			h.v2 = c == "module_name"
		case "vpp_stage":
			h.vpp = i
		case "step":
			h.step = i
		case "micro_step":
			h.micro = i
		case "scope":
			h.scope = i
		default:
			for s := model.Stat(0); s < model.NumStats; s++ {
				if c == model.StatNames[s] {
					h.stat[s] = i
				}
			}
		}
	}
	var missing []string
	if h.name < 0 {
		missing = append(missing, "name (v1) or module_name (v2)")
	}
	if h.step < 0 {
		missing = append(missing, "step")
	}
	if h.v2 && h.scope < 0 {
		missing = append(missing, "scope")
	}
	if len(missing) > 0 {
		return nil, inputErr(f.path, nil, "not a monitor CSV: header lacks %s", strings.Join(missing, ", "))
	}
	for s := model.Stat(0); s < model.NumStats; s++ {
		if h.stat[s] >= 0 {
			h.stats = append(h.stats, s)
		}
	}
	if len(h.stats) == 0 {
		return nil, inputErr(f.path, nil, "header has none of the columns norm, min, max, mean")
	}
	if h.v2 {
		h.slug = f.metric
		if !f.v2Name {
			h.slug = ""
		}
		h.oneBasedMicro = h.slug == "weight_grad"
		h.metricFromScopeMap = map[string]int{}
	} else {
		h.v1Metric = f.metric
	}
	return h, nil
}

// v2MetricName maps a monitor v2 (slug, scope) pair to the v1 metric name
// the rest of spikescope knows, or "<slug>_<scope>".
func v2MetricName(slug, scope string) string {
	switch slug + "/" + scope {
	case "weight_grad/unreduced":
		return "grad_unreduced"
	case "weight_grad/reduced":
		return "grad_reduced"
	case "module/forward":
		return "actv"
	case "module/backward":
		return "actv_grad"
	case "optimizer/exp_avg", "optimizer/exp_avg_sq", "param/param_origin", "param/param_updated":
		return scope
	}
	if slug == "" {
		return scope
	}
	if scope == "" {
		return slug
	}
	return slug + "_" + scope
}

// stripVPPPrefix removes the "<vpp>:" prefix monitor v2 puts on names.
func stripVPPPrefix(name string) string {
	if i := strings.IndexByte(name, ':'); i > 0 && isDigits(name[:i]) {
		return name[i+1:]
	}
	return name
}

// stripVPPPrefixBytes is stripVPPPrefix on bytes.
func stripVPPPrefixBytes(name []byte) []byte {
	if i := bytes.IndexByte(name, ':'); i > 0 && isDigits(bytesView(name[:i])) {
		return name[i+1:]
	}
	return name
}

// csvResult is what one file yielded, with file-local target and metric
// indices (merged later).
type csvResult struct {
	rows     model.Rows
	targets  []model.Target
	metrics  []string
	hasStat  [model.NumStats]bool
	micro    bool
	oneBased bool // micro steps counted from 1 in the file (v2 weight_grad)
	warnings []model.Reason
	bad      csvBadLines
}

type targetKey struct {
	name string
	vpp  int
}

// countingReader reports bytes read to a progress meter.
type countingReader struct {
	r     io.Reader
	meter *progressMeter
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.meter.add(int64(n))
	return n, err
}

// readCSVFile parses one monitor CSV. Its rows are parsed into a buffer
// from bufs (nil: new arrays), which the caller returns to bufs once it has
// copied them.
func readCSVFile(ctx context.Context, f csvFile, meter *progressMeter, bufs *csvRowBufs) (*csvResult, error) {
	fh, st, err := OpenInputFile(f.path, "CSV", 0)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return parseCSVSniff(ctx, f, &countingReader{fh, meter}, st.Size(), csvSniffBytes, bufs)
}

// csvMaxLineBytes bounds one line of a monitor CSV. Real rows are under a
// kilobyte; without a bound a damaged or binary file with no newline would
// be buffered whole (a 3 GB file → several GB of memory).
const csvMaxLineBytes = 1 << 20

// csvSniffBytes is how much of a file's start is checked for binary data.
const csvSniffBytes = 512

// errCSVLineTooLong stops a read at a line longer than csvMaxLineBytes.
var errCSVLineTooLong = errors.New("line too long")

// binaryProblem says why head (the start of a file) is not CSV text, or "".
// A NUL byte or bytes that are not UTF-8 mean a binary or damaged file; an
// incomplete character at the very end of head is allowed (cut by the
// sniff).
func binaryProblem(head []byte) string {
	if bytes.HasPrefix(head, []byte{0xff, 0xfe}) || bytes.HasPrefix(head, []byte{0xfe, 0xff}) {
		return "UTF-16 text (as some spreadsheet programs save CSV): save it as UTF-8"
	}
	if kind := compressedKind(head); kind != "" {
		return kind + "-compressed file: decompress it first"
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return fmt.Sprintf("binary data (a NUL byte at offset %d), not a monitor CSV (text)", i)
	}
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size <= 1 {
			if len(head)-i < utf8.UTFMax && !utf8.FullRune(head[i:]) {
				break
			}
			return fmt.Sprintf("binary data (byte 0x%02x at offset %d is not UTF-8 text), not a monitor CSV (text)", head[i], i)
		}
		i += size
	}
	return ""
}

// csvBytesPerRowGuess sizes the row arrays before parsing: monitor rows
// are 80–200 bytes; guessing low only costs one regrowth.
const csvBytesPerRowGuess = 80

// csvParser is the reusable state of one file reader: the scanner's
// buffers and the target index, whose previous-file list and interned
// names carry over to the next file it reads.
type csvParser struct {
	sc      csvScanner
	targets csvTargets
	sniff   int // how many bytes of the input are the file's start (the binary check)
}

// csvParserPool recycles parsers across the many files of a tree.
var csvParserPool = sync.Pool{New: func() any { return &csvParser{} }}

// parseCSV parses monitor CSV text; f names the file and gives its rank and
// file-name metric.
func parseCSV(ctx context.Context, f csvFile, in io.Reader, size int64) (*csvResult, error) {
	return parseCSVSniff(ctx, f, in, size, csvSniffBytes, nil)
}

// parseCSVAppended parses the header line of a file, then bytes from later
// in it (a follower's new lines): only the header is the file's start, so
// only it is checked for binary data; a NUL later is a bad line, as in a
// full read.
func parseCSVAppended(ctx context.Context, f csvFile, header []byte, rest io.Reader, size int64) (*csvResult, error) {
	return parseCSVSniff(ctx, f, io.MultiReader(bytes.NewReader(header), rest), size, min(len(header), csvSniffBytes), nil)
}

func parseCSVSniff(ctx context.Context, f csvFile, in io.Reader, size int64, sniff int, bufs *csvRowBufs) (*csvResult, error) {
	p := csvParserPool.Get().(*csvParser)
	defer func() {
		p.sc.reset(nil)
		csvParserPool.Put(p)
	}()
	p.sc.reset(in)
	p.sniff = sniff
	return p.parse(ctx, f, size, bufs)
}

func (p *csvParser) parse(ctx context.Context, f csvFile, size int64, bufs *csvRowBufs) (*csvResult, error) {
	sc := &p.sc
	if head := sc.head(p.sniff); len(head) > 0 {
		if msg := binaryProblem(bytes.TrimPrefix(head, []byte("\ufeff"))); msg != "" {
			return nil, inputErr(f.path, nil, "%s", msg)
		}
	}
	nf, err := sc.next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, inputErr(f.path, nil, "no header line")
		}
		return nil, csvParseError(f.path, err)
	}
	names := make([]string, nf)
	for i := range names {
		names[i] = string(sc.field(i))
	}
	h, err := parseCSVHeader(f, names)
	if err != nil {
		return nil, err
	}
	res := &csvResult{micro: h.micro >= 0, oneBased: h.micro >= 0 && h.oneBasedMicro}
	res.rows = bufs.get()
	guess := int(min(size/csvBytesPerRowGuess+1, 1<<24))
	if bufs != nil && cap(res.rows.Step) < guess {
		// a recycled buffer grows with room to spare, so that files of
		// nearly one size do not reallocate it again and again
		guess += guess / 4
	}
	res.rows.Grow(guess)
	for _, s := range h.stats {
		res.hasStat[s] = true
	}
	if !h.v2 {
		res.metrics = []string{h.v1Metric}
	}
	// incompleteTail reports whether the record just read was the last line
	// of the input and that line lacks its newline: a file still being
	// written (msprobe appends a block of rows per step).
	incompleteTail := func() bool { return sc.atEnd() && sc.last != '\n' }
	tg := &p.targets
	tg.reset(tg.prev)
	tg.list = bufs.getTargets(len(tg.prev))
	rank := int32(f.rank)
	var lastScope []byte
	lastMetric := -1
	nan := math.NaN()
	nameCol := map[bool]string{true: "module_name", false: "name"}[h.v2]
	for n := 0; ; n++ {
		nf, err := sc.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			var se *csvSyntaxError
			if errors.As(err, &se) {
				start := se.startLine
				if incompleteTail() {
					res.warnings = append(res.warnings, model.CSVIncompleteLine{Path: f.path, Line: start})
					break
				}
				if err := res.bad.add(csvParseError(f.path, err), res.rows.Len()); err != nil {
					return nil, err
				}
				continue
			}
			return nil, csvParseError(f.path, err)
		}
		line := sc.recLine
		if nf != h.nFields {
			if nf < h.nFields && incompleteTail() {
				res.warnings = append(res.warnings, model.CSVIncompleteLine{Path: f.path, Line: line})
				break
			}
			if err := res.bad.add(inputErr(f.path, nil, "line %d: %d fields, the header has %d", line, nf, h.nFields), res.rows.Len()); err != nil {
				return nil, err
			}
			continue
		}
		if n%csvChunkRows == csvChunkRows-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		name := sc.field(h.name)
		if h.v2 {
			name = stripVPPPrefixBytes(name)
		}
		if len(name) == 0 {
			if err := res.bad.add(inputErr(f.path, nil, "line %d: empty %s", line, nameCol), res.rows.Len()); err != nil {
				return nil, err
			}
			continue
		}
		// a bad cell makes its line a counted data problem (csvBadLines):
		// the line is skipped, the file's good rows are kept; of several
		// bad key cells the last is named, of bad statistics the first
		var badCell error
		vpp := 0
		if h.vpp >= 0 && len(sc.field(h.vpp)) > 0 {
			if vpp, err = parseIntBytes(sc.field(h.vpp)); err != nil {
				badCell = cellError(f.path, line, "vpp_stage", string(sc.field(h.vpp)))
			}
		}
		step, err := parseIntBytes(sc.field(h.step))
		switch {
		case err != nil || step > math.MaxInt32:
			badCell = cellError(f.path, line, "step", string(sc.field(h.step)))
		case step < 0:
			badCell = inputErr(f.path, nil, "line %d, column step: %d is negative", line, step)
		}
		micro := model.NoMicro
		// v2: a row written without a micro_step key has an empty cell
		// there (CSVWriterV2 fixes the header per slug): no micro step
		if h.micro >= 0 && !(h.oneBasedMicro && string(sc.field(h.scope)) == "reduced") && !(h.v2 && len(sc.field(h.micro)) == 0) {
			m, err := parseIntBytes(sc.field(h.micro))
			if err != nil {
				badCell = cellError(f.path, line, "micro_step", string(sc.field(h.micro)))
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
			c := sc.field(h.stat[s])
			v, err := parseStatBytes(c)
			if err != nil && badCell == nil {
				badCell = cellError(f.path, line, model.StatNames[s], string(c))
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
			scope := sc.field(h.scope)
			if lastMetric < 0 || string(scope) != string(lastScope) {
				idx, ok := h.metricFromScopeMap[string(scope)]
				if !ok {
					if len(res.metrics) >= maxMetrics {
						return nil, inputErr(f.path, nil, "line %d: more than %d metrics", line, maxMetrics)
					}
					idx = len(res.metrics)
					h.metricFromScopeMap[string(scope)] = idx
					res.metrics = append(res.metrics, v2MetricName(h.slug, string(scope)))
				}
				lastScope, lastMetric = append(lastScope[:0], scope...), idx
			}
			metric = lastMetric
		}
		ti := tg.find(name, vpp)
		res.rows.Append(rank, int32(step), micro, ti, uint8(metric), vals)
	}
	res.targets = tg.list
	if bufs != nil {
		// the list goes back to bufs after the merge: keep a copy to guess
		// the next file's targets from (names shared, not copied)
		tg.prev = append(tg.own[:0], tg.list...)
		tg.own = tg.prev
	} else {
		tg.prev = tg.list
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

// parseIntCell reads an integer column; integral floats such as "1.0"
// (pandas writes ints that way next to NaN) are accepted.
func parseIntCell(s string) (int, error) {
	if v, err := strconv.Atoi(s); err == nil {
		return v, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<31 {
		return 0, fmt.Errorf("not an integer")
	}
	return int(f), nil
}

// parseStatCell reads a statistic: empty → NaN; nan/inf/-inf accepted.
func parseStatCell(s string) (float64, error) {
	if s == "" {
		return math.NaN(), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && ne.Err == strconv.ErrRange {
			return v, nil // ±Inf or 0 for out-of-range literals
		}
		t := strings.TrimSpace(s)
		if t == s {
			return 0, err
		}
		return parseStatCell(t)
	}
	return v, nil
}

func cellError(path string, line int, col, val string) error {
	if len(val) > 40 {
		val = val[:40] + "…"
	}
	return inputErr(path, nil, "line %d, column %s: %q is not a number", line, col, val)
}

// csvParseError words a scanner error (bad quoting, a line too long, a
// read error).
func csvParseError(path string, err error) error {
	if errors.Is(err, errCSVLineTooLong) {
		return inputErr(path, err, "a line longer than %d MiB: not a monitor CSV, or the file is damaged", csvMaxLineBytes>>20)
	}
	var le *csvLongRecordError
	if errors.As(err, &le) {
		return inputErr(path, err, "line %d: a quoted field runs on for more than %d MiB (a quote never closed?): not a monitor CSV, or the file is damaged", le.startLine, csvMaxRecordBytes>>20)
	}
	var se *csvSyntaxError
	if errors.As(err, &se) {
		return inputErr(path, err, "line %d: %s", se.line, csvProblem(se.err))
	}
	return inputErr(path, err, "cannot read: %v", unwrapPathError(err))
}

// csvProblem words the scanner's quoting errors for people.
func csvProblem(err error) string {
	switch {
	case errors.Is(err, errCSVBareQuote):
		return `a stray quote (") inside an unquoted field`
	case errors.Is(err, errCSVQuote):
		return `a quoted field is not closed, or text follows its closing quote`
	}
	return err.Error()
}
