package ingest

import (
	"bytes"
	"errors"
	"io"
)

// csvScanner splits monitor CSV text into records exactly as encoding/csv
// did (comma separator, strict quotes, "\r\n" read as "\n", a trailing "\r"
// at the end of input dropped, empty lines skipped; FuzzCSVScanner compares
// the two), without allocating per record: fields are slices of one large
// read buffer, or of a scratch buffer for the rare quoted field that needs
// unescaping ("" or a newline inside quotes). A record's fields (field)
// are valid until the next call of next; they are kept as offsets, not
// slices, so that a record stores no pointers (no GC write barriers per
// field).
type csvScanner struct {
	in      io.Reader
	buf     []byte
	r, w    int   // unread input is buf[r:w]
	scanned int   // bytes of buf[r:w] known to hold no newline
	eof     bool  // in is exhausted
	rerr    error // a read error other than io.EOF
	last    byte  // last byte read from in
	numLine int   // lines read so far (encoding/csv's count)
	// recStart anchors the current record in buf: a refill keeps
	// buf[recStart:w], and field offsets are relative to it.
	recStart int
	offs     []csvFieldOff
	scratch  []byte
	recLine  int // line the current record starts on
	// pending: next returns the current record (and perr) once more, after
	// a look-ahead (see atEnd).
	pending bool
	perr    error
}

// csvFieldOff locates one field: in buf relative to recStart, or in scratch.
type csvFieldOff struct {
	start, end int32
	inScratch  bool
}

// csvSyntaxError is bad quoting on a line (the rest of the line is
// skipped); startLine is the line its record began on.
type csvSyntaxError struct {
	startLine, line int
	err             error
}

func (e *csvSyntaxError) Error() string { return e.err.Error() }

var (
	errCSVBareQuote = errors.New(`bare " in non-quoted field`)
	errCSVQuote     = errors.New(`extraneous or missing " in quoted field`)
	// errCSVRecordTooLong: a quoted field runs on over many lines, more
	// than csvMaxRecordBytes (a quote never closed): refused rather than
	// buffered without bound.
	errCSVRecordTooLong = errors.New("record too long")
)

// csvLongRecordError is errCSVRecordTooLong for the record starting on
// startLine.
type csvLongRecordError struct{ startLine int }

func (e *csvLongRecordError) Error() string { return errCSVRecordTooLong.Error() }
func (e *csvLongRecordError) Unwrap() error { return errCSVRecordTooLong }

const (
	// csvReadBytes is the first size of the read buffer.
	csvReadBytes = 256 << 10
	// csvMaxRecordBytes bounds one record (several lines only inside quotes).
	csvMaxRecordBytes = 4 * csvMaxLineBytes
)

// reset readies s for a new input, keeping its buffers (a buffer grown by
// a long line is dropped).
func (s *csvScanner) reset(in io.Reader) {
	buf := s.buf
	if cap(buf) < csvReadBytes || cap(buf) > 4*csvReadBytes {
		buf = make([]byte, csvReadBytes)
	}
	*s = csvScanner{in: in, buf: buf[:cap(buf)], offs: s.offs[:0], scratch: s.scratch[:0]}
}

// fill reads more input after buf[w], keeping buf[recStart:w] (moved to
// the front), and grows buf when the record fills it.
func (s *csvScanner) fill() error {
	if s.recStart > 0 {
		n := copy(s.buf, s.buf[s.recStart:s.w])
		s.r -= s.recStart
		s.w = n
		s.recStart = 0
	}
	if s.w == len(s.buf) {
		if len(s.buf) >= csvMaxRecordBytes {
			return errCSVRecordTooLong
		}
		nb := make([]byte, 2*len(s.buf))
		copy(nb, s.buf[:s.w])
		s.buf = nb
	}
	for tries := 0; ; tries++ {
		n, err := s.in.Read(s.buf[s.w:])
		if n > 0 {
			s.w += n
			s.last = s.buf[s.w-1]
		}
		if err == io.EOF {
			s.eof = true
			return nil
		}
		if err != nil {
			s.rerr = err
			return err
		}
		if n > 0 || tries > 100 {
			return nil
		}
	}
}

// head returns up to n bytes of the input's start without consuming them.
func (s *csvScanner) head(n int) []byte {
	for s.w < n && !s.eof && s.rerr == nil {
		if s.fill() != nil {
			break
		}
	}
	return s.buf[:min(n, s.w)]
}

// readLine reads the next line as encoding/csv's readLine does: content
// buf[ls:ce] ("\r\n" counted as the newline), nl when a newline ended it.
// ok is false at the end of input.
func (s *csvScanner) readLine() (ls, ce int, nl, ok bool, err error) {
	for {
		if i := bytes.IndexByte(s.buf[s.r+s.scanned:s.w], '\n'); i >= 0 {
			ls = s.r
			le := s.r + s.scanned + i
			if le-ls > csvMaxLineBytes {
				return 0, 0, false, false, errCSVLineTooLong
			}
			ce = le
			if ce > ls && s.buf[ce-1] == '\r' {
				ce--
			}
			s.r, s.scanned = le+1, 0
			s.numLine++
			return ls, ce, true, true, nil
		}
		s.scanned = s.w - s.r
		if s.scanned > csvMaxLineBytes {
			return 0, 0, false, false, errCSVLineTooLong
		}
		if s.rerr != nil {
			return 0, 0, false, false, s.rerr
		}
		if s.eof {
			s.numLine++
			if s.r == s.w {
				return 0, 0, false, false, nil
			}
			ls, ce = s.r, s.w
			if s.buf[ce-1] == '\r' {
				ce--
			}
			s.r, s.scanned = s.w, 0
			return ls, ce, false, true, nil
		}
		if err := s.fill(); err != nil {
			return 0, 0, false, false, err
		}
	}
}

// next reads the next record and returns its number of fields: io.EOF at
// the end of input, a *csvSyntaxError for bad quoting, or
// errCSVLineTooLong, errCSVRecordTooLong or a read error (then reading
// cannot go on).
func (s *csvScanner) next() (int, error) {
	if s.pending {
		s.pending = false
		return len(s.offs), s.perr
	}
	s.offs, s.scratch = s.offs[:0], s.scratch[:0]
	var ls, ce int
	var nl, ok bool
	var err error
	for {
		s.recStart = s.r
		ls, ce, nl, ok, err = s.readLine()
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, io.EOF
		}
		if ce > ls {
			break
		}
		// an empty line, skipped
	}
	s.recLine = s.numLine
	err = s.parseRecord(ls, ce, nl)
	if errors.Is(err, errCSVRecordTooLong) {
		return 0, &csvLongRecordError{startLine: s.recLine}
	}
	return len(s.offs), err
}

// field is field i of the current record.
func (s *csvScanner) field(i int) []byte {
	o := s.offs[i]
	if o.inScratch {
		return s.scratch[o.start:o.end:o.end]
	}
	a, b := s.recStart+int(o.start), s.recStart+int(o.end)
	return s.buf[a:b:b]
}

// parseRecord splits the record whose first line is buf[ls:ce] into
// s.offs, reading further lines while a quoted field spans them.
func (s *csvScanner) parseRecord(ls, ce int, nl bool) error {
	posLine := s.numLine // the last non-empty line read (encoding/csv's pos.line)
	p := ls
	for {
		if p < ce && s.buf[p] == '"' {
			var err error
			var end bool
			p, ce, nl, end, err = s.quotedField(p+1, ce, nl, &posLine)
			if err != nil || end {
				return err
			}
			continue
		}
		// an unquoted field ends at a comma; a quote in it is an error.
		// Fields are short: a plain loop beats a call per field.
		fe := p
		line := s.buf[:ce]
		for fe < len(line) && line[fe] != ',' && line[fe] != '"' {
			fe++
		}
		if fe < ce && line[fe] == '"' {
			return &csvSyntaxError{startLine: s.recLine, line: s.numLine, err: errCSVBareQuote}
		}
		s.offs = append(s.offs, csvFieldOff{start: int32(p - s.recStart), end: int32(fe - s.recStart)})
		if fe == ce {
			return nil
		}
		p = fe + 1
	}
}

// quotedField reads a quoted field whose text starts at p (after the
// opening quote) on the line ending at ce. It returns where the next field
// starts and the line it is on, or end when the record ended with it.
func (s *csvScanner) quotedField(p, ce int, nl bool, posLine *int) (np, nce int, nnl, end bool, err error) {
	fs := p  // the field's text in buf while it needs no unescaping
	sc := -1 // else its start in scratch
	for {
		i := bytes.IndexByte(s.buf[p:ce], '"')
		if i >= 0 {
			qp := p + i
			if sc >= 0 {
				s.scratch = append(s.scratch, s.buf[p:qp]...)
			}
			after := qp + 1
			switch {
			case after < ce && s.buf[after] == '"': // "" is a quote
				if sc < 0 {
					sc = len(s.scratch)
					s.scratch = append(s.scratch, s.buf[fs:qp]...)
				}
				s.scratch = append(s.scratch, '"')
				p = after + 1
				continue
			case after < ce && s.buf[after] == ',':
				s.addField(fs, qp, sc)
				return after + 1, ce, nl, false, nil
			case after == ce:
				s.addField(fs, qp, sc)
				return ce, ce, nl, true, nil
			default:
				return 0, 0, false, true, &csvSyntaxError{startLine: s.recLine, line: s.numLine, err: errCSVQuote}
			}
		}
		if p == ce && !nl {
			// the input ended inside the quotes
			return 0, 0, false, true, &csvSyntaxError{startLine: s.recLine, line: *posLine, err: errCSVQuote}
		}
		// the field goes on on the next line: its text so far, and the
		// newline, move to scratch (the buffer may move on a refill)
		if sc < 0 {
			sc = len(s.scratch)
			s.scratch = append(s.scratch, s.buf[fs:p]...)
		}
		s.scratch = append(s.scratch, s.buf[p:ce]...)
		if nl {
			s.scratch = append(s.scratch, '\n')
		}
		if len(s.scratch) > csvMaxRecordBytes {
			return 0, 0, false, true, errCSVRecordTooLong
		}
		var ls int
		var ok bool
		ls, ce, nl, ok, err = s.readLine()
		if err != nil {
			return 0, 0, false, true, err
		}
		if !ok {
			ls, ce, nl = s.r, s.r, false
		}
		if ce > ls || nl {
			*posLine = s.numLine
		}
		p = ls
	}
}

// addField records a quoted field: buf[fs:fe], or scratch[sc:] when sc ≥ 0.
func (s *csvScanner) addField(fs, fe, sc int) {
	if sc >= 0 {
		s.offs = append(s.offs, csvFieldOff{start: int32(sc), end: int32(len(s.scratch)), inScratch: true})
		return
	}
	s.offs = append(s.offs, csvFieldOff{start: int32(fs - s.recStart), end: int32(fe - s.recStart)})
}

// atEnd reports whether no record follows the current one. It reads ahead
// one record, which the next call of next then returns.
func (s *csvScanner) atEnd() bool {
	_, err := s.next()
	if err == io.EOF {
		return true
	}
	s.perr, s.pending = err, true
	return false
}
