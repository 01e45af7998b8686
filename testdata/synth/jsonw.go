package synth

import (
	"bufio"
	"fmt"
	"strconv"
	"unicode/utf16"
)

// pyJSON writes JSON the way Python's json.dump(obj, f, indent=1) does: one
// space per level, every object member and list element on its own line,
// ", " never used, ": " between key and value, empty containers as {} / [],
// floats as repr(), NaN/Infinity as bare tokens, and no trailing newline.
type pyJSON struct {
	w     *bufio.Writer
	depth int
	// first[i] is true while the container at depth i has no element yet.
	first []bool
}

func newPyJSON(w *bufio.Writer) *pyJSON { return &pyJSON{w: w} }

// item starts a new element of the current container (not used after key).
func (j *pyJSON) item() {
	if j.depth == 0 {
		return
	}
	if j.first[j.depth-1] {
		j.first[j.depth-1] = false
		j.w.WriteByte('\n')
	} else {
		j.w.WriteString(",\n")
	}
	j.indent()
}

func (j *pyJSON) indent() {
	for i := 0; i < j.depth; i++ {
		j.w.WriteByte(' ')
	}
}

func (j *pyJSON) open(c byte) {
	j.w.WriteByte(c)
	j.depth++
	if len(j.first) < j.depth {
		j.first = append(j.first, true)
	}
	j.first[j.depth-1] = true
}

func (j *pyJSON) close(c byte) {
	empty := j.first[j.depth-1]
	j.depth--
	if !empty {
		j.w.WriteByte('\n')
		j.indent()
	}
	j.w.WriteByte(c)
}

// Object/array starts. Elem variants begin a list element; after Key the
// plain variants continue the member.
func (j *pyJSON) ObjElem() { j.item(); j.open('{') }
func (j *pyJSON) ArrElem() { j.item(); j.open('[') }
func (j *pyJSON) Obj()     { j.open('{') }
func (j *pyJSON) Arr()     { j.open('[') }
func (j *pyJSON) EndObj()  { j.close('}') }
func (j *pyJSON) EndArr()  { j.close(']') }
func (j *pyJSON) Key(k string) {
	j.item()
	j.str(k)
	j.w.WriteString(": ")
}

func (j *pyJSON) str(s string) { j.w.WriteString(pyQuote(s)) }

// pyQuote quotes s like Python's json.dumps with ensure_ascii: the short
// escapes for quote, backslash and \n \r \t \b \f, \u00XX for other
// control characters, \uXXXX (surrogate pairs beyond the BMP) for non-ASCII.
func pyQuote(s string) string {
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"':
			b = append(b, `\"`...)
		case r == '\\':
			b = append(b, `\\`...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r == '\b':
			b = append(b, `\b`...)
		case r == '\f':
			b = append(b, `\f`...)
		case r < 0x20 || r > 0x7e && r < 0x10000:
			b = append(b, fmt.Sprintf(`\u%04x`, r)...)
		case r >= 0x10000:
			r1, r2 := utf16.EncodeRune(r)
			b = append(b, fmt.Sprintf(`\u%04x\u%04x`, r1, r2)...)
		default:
			b = append(b, byte(r))
		}
	}
	return string(append(b, '"'))
}

// Values written after Key (no element separator).
func (j *pyJSON) Str(s string)      { j.str(s) }
func (j *pyJSON) Num(v float64)     { j.w.WriteString(pyRepr(v)) }
func (j *pyJSON) Int(v int64)       { j.w.WriteString(strconv.FormatInt(v, 10)) }
func (j *pyJSON) Null()             { j.w.WriteString("null") }
func (j *pyJSON) Bool(b bool)       { j.w.WriteString(strconv.FormatBool(b)) }
func (j *pyJSON) StrElem(s string)  { j.item(); j.str(s) }
func (j *pyJSON) IntElem(v int64)   { j.item(); j.Int(v) }
func (j *pyJSON) NullElem()         { j.item(); j.Null() }
func (j *pyJSON) NumElem(v float64) { j.item(); j.Num(v) }
