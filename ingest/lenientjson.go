package ingest

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// lenientScanner is a small pull scanner over a JSON document held in
// memory. It exists because msprobe's dump.json is written by Python's
// json.dump with allow_nan, so it holds the bare tokens NaN, Infinity and
// -Infinity that encoding/json rejects, and because dump.json must be read in
// key order (execution order) at well over 100 MB/s. Only the value forms
// JSON allows plus those three tokens are accepted.
//
// Errors are raised with panic(scanError) and turned back into errors by
// catchScanError at the API boundary: every call site would otherwise need an
// error check. Any other panic is a bug and is not recovered.
type lenientScanner struct {
	buf     []byte
	pos     int
	scratch []byte // decoded string with escapes
	// nonFinite, when set, collects the [start, end) offsets of the bare
	// NaN/Infinity/-Infinity tokens read (quoteNonFinite).
	nonFinite *[][2]int
}

// scanError is a syntax error at a byte offset of the document.
type scanError struct {
	Offset    int
	Msg       string
	Truncated bool // the document ended inside a value
}

func (e *scanError) Error() string {
	if e.Truncated {
		return fmt.Sprintf("truncated JSON: input ends at byte %d inside a value (%s)", e.Offset, e.Msg)
	}
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// catchScanError converts a scanError panic into *err; other panics go on.
func catchScanError(err *error) {
	if r := recover(); r != nil {
		if se, ok := r.(*scanError); ok {
			*err = se
			return
		}
		panic(r)
	}
}

// newScanner starts a scanner on buf, past a UTF-8 byte order mark if any
// (Python does not write one; editors may).
func newScanner(buf []byte) lenientScanner {
	s := lenientScanner{buf: buf}
	if len(buf) >= 3 && buf[0] == 0xEF && buf[1] == 0xBB && buf[2] == 0xBF {
		s.pos = 3
	}
	return s
}

// enterTopObject steps into the document's top-level object and returns
// "", or, when the top-level value is not an object, checks the rest of the
// document (a syntax error is raised first) and returns what the value is
// ("an array").
func (s *lenientScanner) enterTopObject() (notObject string) {
	if s.peek() != '{' {
		kind := jsonKind(s.peek())
		s.skip(0)
		s.end()
		return kind
	}
	s.pos++
	return ""
}

// jsonKind names the kind of value that starts with c, for messages.
func jsonKind(c byte) string {
	switch c {
	case '[':
		return "an array"
	case '{':
		return "an object"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	}
	return "a number"
}

func (s *lenientScanner) fail(format string, a ...any) {
	if s.pos >= len(s.buf) {
		panic(&scanError{Offset: len(s.buf), Msg: fmt.Sprintf(format, a...), Truncated: true})
	}
	panic(&scanError{Offset: s.pos, Msg: fmt.Sprintf(format, a...)})
}

func (s *lenientScanner) skipWS() {
	for s.pos < len(s.buf) {
		switch s.buf[s.pos] {
		case ' ', '\n', '\r', '\t':
			s.pos++
		default:
			return
		}
	}
}

// peek returns the next non-space byte without consuming it, 0 at the end.
func (s *lenientScanner) peek() byte {
	s.skipWS()
	if s.pos >= len(s.buf) {
		return 0
	}
	return s.buf[s.pos]
}

func (s *lenientScanner) expect(c byte) {
	if s.peek() != c {
		s.fail("expected %q", c)
	}
	s.pos++
}

// more drives the loop over the members of an object or array whose opening
// bracket was consumed: it consumes the separating comma and reports whether
// another member follows, or consumes the closing bracket and reports false.
// n counts the members seen so far.
func (s *lenientScanner) more(closing byte, n *int) bool {
	c := s.peek()
	if c == closing {
		s.pos++
		return false
	}
	if *n > 0 {
		if c != ',' {
			s.fail("expected ',' or %q", closing)
		}
		s.pos++
	}
	*n++
	return true
}

// key reads an object key and the colon after it. The bytes are valid until
// the next string is read.
func (s *lenientScanner) key() []byte {
	if s.peek() != '"' {
		s.fail("expected a string key")
	}
	k := s.str()
	s.expect(':')
	return k
}

// str reads a string (the opening quote is next) and returns its decoded
// bytes: a slice of the input when there are no escapes, else of scratch.
func (s *lenientScanner) str() []byte {
	s.pos++ // opening quote
	start := s.pos
	for i := start; i < len(s.buf); i++ {
		switch s.buf[i] {
		case '"':
			s.pos = i + 1
			return s.buf[start:i]
		case '\\':
			s.pos = i
			return s.strEscaped(start)
		}
	}
	s.pos = len(s.buf)
	s.fail("unterminated string")
	return nil
}

func (s *lenientScanner) strEscaped(start int) []byte {
	out := append(s.scratch[:0], s.buf[start:s.pos]...)
	for s.pos < len(s.buf) {
		c := s.buf[s.pos]
		switch c {
		case '"':
			s.pos++
			s.scratch = out
			return out
		case '\\':
			if s.pos+1 >= len(s.buf) {
				s.pos = len(s.buf)
				s.fail("unterminated string")
			}
			e := s.buf[s.pos+1]
			s.pos += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r := s.hex4()
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if s.pos+1 < len(s.buf) && s.buf[s.pos] == '\\' && s.buf[s.pos+1] == 'u' {
						s.pos += 2
						r2 = s.hex4()
					}
					r = utf16.DecodeRune(r, r2)
				}
				out = utf8.AppendRune(out, r)
			default:
				s.pos--
				s.fail("invalid escape \\%c", e)
			}
		default:
			out = append(out, c)
			s.pos++
		}
	}
	s.fail("unterminated string")
	return nil
}

func (s *lenientScanner) hex4() rune {
	if s.pos+4 > len(s.buf) {
		s.pos = len(s.buf)
		s.fail("short \\u escape")
	}
	var r rune
	for _, c := range s.buf[s.pos : s.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			s.fail("invalid \\u escape")
		}
	}
	s.pos += 4
	return r
}

// literal consumes word if it is next, reporting whether it was.
func (s *lenientScanner) literal(word string) bool {
	if len(s.buf)-s.pos >= len(word) && string(s.buf[s.pos:s.pos+len(word)]) == word {
		s.pos += len(word)
		return true
	}
	return false
}

// isNumberStart reports whether c can begin a number token (including the
// non-finite tokens).
func isNumberStart(c byte) bool {
	return c == '-' || (c >= '0' && c <= '9') || c == 'N' || c == 'I'
}

// number reads a number token at the current position: a JSON number or one
// of Python's NaN, Infinity, -Infinity.
func (s *lenientScanner) number() float64 {
	start := s.pos
	for _, t := range nonFiniteTokens {
		if s.literal(t.word) {
			if s.nonFinite != nil {
				*s.nonFinite = append(*s.nonFinite, [2]int{start, s.pos})
			}
			return t.v
		}
	}
	i := s.pos
	for i < len(s.buf) {
		c := s.buf[i]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			i++
			continue
		}
		break
	}
	if i == start {
		s.atTruncatedWord()
		s.fail("expected a value")
	}
	tok := s.buf[start:i]
	s.pos = i
	if v, ok := smallInt(tok); ok { // shape dims and integer stats: no ParseFloat
		return v
	}
	if !validJSONNumber(tok) {
		s.pos = start
		if i == len(s.buf) {
			s.pos = i
		}
		s.fail("malformed number %q", tok)
	}
	// The string header points into buf; ParseFloat does not keep it.
	v, err := strconv.ParseFloat(unsafe.String(&tok[0], len(tok)), 64)
	if err != nil {
		// Only range errors remain after validation: v is ±Inf or 0 then.
		return v
	}
	return v
}

// nonFiniteTokens are Python's spellings of the non-finite numbers.
var nonFiniteTokens = [...]struct {
	word string
	v    float64
}{{"NaN", math.NaN()}, {"Infinity", math.Inf(1)}, {"-Infinity", math.Inf(-1)}}

// quoteNonFinite checks that b is one JSON value (Python's bare NaN,
// Infinity and -Infinity allowed, as in dump.json) and returns it with those
// tokens quoted ("NaN"), the form model.Float decodes, so that
// encoding/json can fill typed results; b itself when it has none.
func quoteNonFinite(b []byte) (_ []byte, err error) {
	defer catchScanError(&err)
	var spans [][2]int
	s := newScanner(b)
	s.nonFinite = &spans
	s.skip(0)
	s.end()
	if len(spans) == 0 {
		return b, nil
	}
	out := make([]byte, 0, len(b)+2*len(spans))
	last := 0
	for _, sp := range spans {
		out = append(out, b[last:sp[0]]...)
		out = append(out, '"')
		out = append(out, b[sp[0]:sp[1]]...)
		out = append(out, '"')
		last = sp[1]
	}
	return append(out, b[last:]...), nil
}

// validJSONNumber checks the JSON number grammar, so that ParseFloat's wider
// syntax (hex, underscores, "+1") is not accepted.
func validJSONNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	if i >= len(b) {
		return false
	}
	if b[i] == '0' {
		i++
	} else if b[i] >= '1' && b[i] <= '9' {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	} else {
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == d {
			return false
		}
	}
	return i == len(b)
}

// scalar is a decoded non-container value.
type scalarKind uint8

const (
	scalarNull scalarKind = iota
	scalarNumber
	scalarBool
	scalarString
	// scalarComposite: an object or list where a scalar was expected —
	// valid JSON of the wrong type, skipped whole (not a syntax error)
	scalarComposite
)

// scalar reads a null, bool, number or string. Strings stay in the returned
// bytes (valid until the next string read).
func (s *lenientScanner) scalar() (scalarKind, float64, []byte) {
	switch c := s.peek(); {
	case c == '"':
		return scalarString, 0, s.str()
	case c == 'n':
		if s.literal("null") {
			return scalarNull, 0, nil
		}
	case c == 't':
		if s.literal("true") {
			return scalarBool, 1, nil
		}
	case c == 'f':
		if s.literal("false") {
			return scalarBool, 0, nil
		}
	case isNumberStart(c):
		return scalarNumber, s.number(), nil
	case c == '{' || c == '[':
		s.skip(1)
		return scalarComposite, 0, nil
	}
	s.atTruncatedWord()
	s.fail("expected a value")
	return 0, 0, nil
}

// maxDepth bounds nesting so that hostile input cannot exhaust the stack.
const maxDepth = 512

// skip consumes one value of any kind.
func (s *lenientScanner) skip(depth int) {
	if depth > maxDepth {
		s.fail("nesting deeper than %d", maxDepth)
	}
	switch s.peek() {
	case '{':
		s.pos++
		n := 0
		for s.more('}', &n) {
			s.key()
			s.skip(depth + 1)
		}
	case '[':
		s.pos++
		n := 0
		for s.more(']', &n) {
			s.skip(depth + 1)
		}
	case '"':
		s.skipString()
	default:
		s.scalar()
	}
}

// skipString consumes a string without decoding it.
func (s *lenientScanner) skipString() {
	s.pos++
	for i := s.pos; i < len(s.buf); i++ {
		switch s.buf[i] {
		case '"':
			s.pos = i + 1
			return
		case '\\':
			i++
		}
	}
	s.pos = len(s.buf)
	s.fail("unterminated string")
}

// end checks that only white space follows the top-level value.
func (s *lenientScanner) end() {
	if s.peek() != 0 {
		s.fail("unexpected data after the top-level value")
	}
}

// atTruncatedWord moves to the end of the input when what is left is the
// start of a literal cut short (e.g. "tru"), so that the error says truncated.
func (s *lenientScanner) atTruncatedWord() {
	rest := s.buf[s.pos:]
	if len(rest) == 0 {
		return
	}
	for _, w := range [...]string{"null", "true", "false", "NaN", "Infinity", "-Infinity"} {
		if len(rest) < len(w) && string(rest) == w[:len(rest)] {
			s.pos = len(s.buf)
			return
		}
	}
}

// smallInt parses an integer token of at most 15 digits (exact in a
// float64) without a leading zero; ok is false for anything else.
func smallInt(b []byte) (float64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 15 || (b[0] == '0' && len(b) > 1) {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		if n == 0 {
			return math.Copysign(0, -1), true
		}
		n = -n
	}
	return float64(n), true
}
