package ingest

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"
)

// csvScanSeeds are inputs that reach every branch of the scanner.
var csvScanSeeds = []string{
	"a,b,c\n1,2,3\n",
	"a,\"b,c\",d\r\n\r\n\n1,\"x\"\"y\",3\r\n",
	"a,\"multi\nline\r\nfield\",c\nnext,row\n",
	"a,b\"c,d\n1,2\n",
	"a,\"b\"c,d\n1,2\n",
	"a,\"never closed\n1,2\n",
	"a,\"never closed",
	"last,line,no,newline\r",
	"\r\n\r",
	"x,\"\"\n,,\n\"\",\"\"\"\"\n",
	"a,\"b\"\r\n\"c\r\nd\",e\r\n",
	"\"\n\"\n",
	"a,\"b\r\rc\"\r\r\n",
	"a\r\rb\n",
}

// FuzzCSVScanner: the scanner yields what encoding/csv yields (records,
// the line each starts on, bad quoting with its lines, the end), also when
// the input arrives a few bytes per read.
func FuzzCSVScanner(f *testing.F) {
	for _, s := range csvScanSeeds {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, trickle bool) {
		cr := csv.NewReader(bytes.NewReader(data))
		cr.FieldsPerRecord = -1
		var in io.Reader = bytes.NewReader(data)
		if trickle {
			in = iotest.HalfReader(iotest.OneByteReader(bytes.NewReader(data)))
		}
		var sc csvScanner
		sc.reset(in)
		for k := 0; ; k++ {
			want, werr := cr.Read()
			nf, gerr := sc.next()
			got := make([]string, nf)
			for i := range got {
				got[i] = string(sc.field(i))
			}
			if errors.Is(werr, io.EOF) || errors.Is(gerr, io.EOF) {
				if !errors.Is(werr, io.EOF) || !errors.Is(gerr, io.EOF) {
					t.Fatalf("record %d: encoding/csv %q %v, scanner %q %v", k, want, werr, got, gerr)
				}
				return
			}
			var pe *csv.ParseError
			var se *csvSyntaxError
			if werr != nil || gerr != nil {
				if !errors.As(werr, &pe) || !errors.As(gerr, &se) {
					t.Fatalf("record %d: encoding/csv %v, scanner %v", k, werr, gerr)
				}
				kind := map[error]error{csv.ErrBareQuote: errCSVBareQuote, csv.ErrQuote: errCSVQuote}[pe.Err]
				if kind != se.err || pe.StartLine != se.startLine || pe.Line != se.line {
					t.Fatalf("record %d: encoding/csv %v (from line %d), scanner line %d %v (from line %d)", k, pe, pe.StartLine, se.line, se.err, se.startLine)
				}
				continue
			}
			line, _ := cr.FieldPos(0)
			if len(want) != len(got) || line != sc.recLine {
				t.Fatalf("record %d: encoding/csv %q at line %d, scanner %q at line %d", k, want, line, got, sc.recLine)
			}
			for i := range want {
				if want[i] != got[i] {
					t.Fatalf("record %d field %d: encoding/csv %q, scanner %q", k, i, want[i], got[i])
				}
			}
			if sc.atEnd() && sc.last != lastByte(data) {
				t.Fatalf("record %d: at the end, last byte %q, want %q", k, sc.last, lastByte(data))
			}
		}
	})
}

func lastByte(b []byte) byte {
	if len(b) == 0 {
		return 0
	}
	return b[len(b)-1]
}

// FuzzCSVSameAsLegacy: parseCSV gives what the encoding/csv parser gave
// (rows, targets, metrics, warnings, errors word for word) on any input.
func FuzzCSVSameAsLegacy(f *testing.F) {
	for _, p := range []string{
		"csv_v1/Feb20_16-27-56-rank0-b2f0e6a1/grad_unreduced_0-0.csv",
		"csv_v1/Feb20_16-27-57-rank1-5c9d13e7/grad_reduced_1-1.csv",
		"csv_v1/Feb20_16-27-56-rank0-b2f0e6a1/actv_0-0.csv",
		"csv_v2/rank_0/weight_grad_step0-1.csv",
	} {
		b, err := os.ReadFile(filepath.Join(monitorTestdata, p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, false)
		f.Add(b, true)
		f.Add(b[:len(b)-3], false)
	}
	for _, s := range csvScanSeeds {
		f.Add([]byte("vpp_stage,name,step,micro_step,norm\n"+s), false)
	}
	f.Add([]byte(v1Head+"0,w,0,0,1,2,3,4,[2],torch.float32\n0,w,0,1,1,2\n0,w,1,0,1,2,3,4,[2],torch.float32\n"), false)
	f.Add([]byte(v1Head+"0,w,0,0,1,2,3,4,[2],torch.float32\n0,w,0,1,1,2,3,4,\"[3072, 40"), false)
	f.Add([]byte(v1Head+"x,w,-1,q,1,2,abc,4,[2],torch.float32\n1.0,w,2.0,1e400,nan,-inf,Infinity, 0.5 ,[2],torch.float32\n"), false)
	f.Add([]byte("\ufeffvpp_stage, name ,step,norm,min,max,mean\r\n0,a,1,NaN,-Infinity,Inf, 0.5 \r\n0,b,1,1e400,-1e400,1e-400,-0.0\r\n\r\n"), false)
	f.Add([]byte("vpp_stage,step,module_name,scope,micro_step,norm\n0,1,0:a,unreduced,1,1\n0,1,0:a,reduced,4,2\n0,1,1:b,unreduced,2,3\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, v2 bool) {
		file := csvFile{path: "fuzz/grad_unreduced_0-0.csv", metric: "grad_unreduced", rank: 3}
		if v2 {
			file = csvFile{path: "fuzz/weight_grad_step0-0.csv", metric: "weight_grad", v2Name: true, rank: 3}
		}
		want, werr := parseCSVLegacy(context.Background(), file, bytes.NewReader(data), int64(len(data)))
		got, gerr := parseCSV(context.Background(), file, iotest.HalfReader(bytes.NewReader(data)), int64(len(data)))
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Fatalf("encoding/csv parser: %v\nscanner: %v", werr, gerr)
		}
		if werr != nil {
			return
		}
		if w, g := csvResultText(want), csvResultText(got); w != g {
			t.Fatalf("encoding/csv parser:\n%s\nscanner:\n%s", w, g)
		}
	})
}

// csvResultText prints a result (NaN and -0 included) for comparison.
func csvResultText(r *csvResult) string {
	return fmt.Sprintf("%v\n%v\n%q\n%v %v %v\n%q\nbad %d", r.rows, r.targets, r.metrics, r.hasStat, r.micro, r.oneBased, r.warnings, r.bad.n)
}

// TestCSVSameAsLegacyOnFixtures: every fixture CSV reads as before.
func TestCSVSameAsLegacyOnFixtures(t *testing.T) {
	n := 0
	err := filepath.WalkDir(monitorTestdata, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".csv") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		metric, _, _, v2, _ := parseCSVName(filepath.Base(p))
		file := csvFile{path: p, metric: metric, v2Name: v2, rank: 1}
		want, werr := parseCSVLegacy(context.Background(), file, bytes.NewReader(data), int64(len(data)))
		got, gerr := parseCSV(context.Background(), file, bytes.NewReader(data), int64(len(data)))
		if fmt.Sprint(werr) != fmt.Sprint(gerr) || (werr == nil && csvResultText(want) != csvResultText(got)) {
			t.Errorf("%s: the scanner reads it differently", p)
		}
		n++
		return nil
	})
	if err != nil || n < 5 {
		t.Fatalf("walked %d CSV files: %v", n, err)
	}
}

// FuzzFastFloat: the fast path gives strconv.ParseFloat's bits whenever it
// answers.
func FuzzFastFloat(f *testing.F) {
	for _, s := range []string{"0.000123", "1.2e-05", "-0.0", "4.913", "9007199254740993", "1e22", "1e23", "123456789012345678", "0.1", "+.5", "5.", "1e-22", "3.4028234663852886e+38"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" {
			return
		}
		got, ok := fastFloat([]byte(s))
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%q: fast path %v (%x), strconv %v (%x) %v", s, got, math.Float64bits(got), want, math.Float64bits(want), err)
		}
	})
}

// TestCSVParseAllocsPerFile: parsing allocates per file, not per row.
func TestCSVParseAllocsPerFile(t *testing.T) {
	file := func(rows int) []byte {
		b := []byte(v1Head)
		for i := range rows {
			b = fmt.Appendf(b, "0,layers.%d.mlp.linear_fc1.weight,%d,%d,-1.5e-05,2.25e-05,1e-08,0.0%d,\"[3072, 4096]\",torch.float32\n", i%300, i/600, i/300%2, i%997)
		}
		return b
	}
	f := csvFile{path: "r/grad_unreduced_0-0.csv", metric: "grad_unreduced"}
	allocs := func(data []byte) float64 {
		return testing.AllocsPerRun(5, func() {
			if _, err := parseCSV(context.Background(), f, bytes.NewReader(data), int64(len(data))); err != nil {
				t.Fatal(err)
			}
		})
	}
	small, large := allocs(file(1200)), allocs(file(24000))
	if large > small+20 {
		t.Errorf("%v allocations for 1,200 rows, %v for 24,000: rows allocate", small, large)
	}
}

// TestCSVNamesShared: the files of a tree share one string per target
// name, and the names stay intact after the read buffers are reused.
func TestCSVNamesShared(t *testing.T) {
	f := csvFile{path: "r/grad_unreduced_0-0.csv", metric: "grad_unreduced"}
	data := v1Head + "0,a.weight,0,0,1,2,3,4,[2],f\n0,b.weight,0,0,1,2,3,4,[2],f\n0,a.weight,0,1,1,2,3,4,[2],f\n0,b.weight,0,1,1,2,3,4,[2],f\n"
	var results []*csvResult
	for _, d := range []string{data, data, strings.Replace(data, "b.weight", "c.weight", 1), data} {
		r, err := parseCSV(context.Background(), f, strings.NewReader(d), int64(len(d)))
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, r)
	}
	for i, r := range results {
		names := []string{}
		for _, g := range r.targets {
			names = append(names, g.Name)
		}
		want := "a.weight,b.weight"
		if i == 2 {
			want = "a.weight,c.weight,b.weight"
		}
		if got := strings.Join(names, ","); got != want || r.rows.Len() != 4 {
			t.Fatalf("file %d: targets %s rows %d, want %s", i, got, r.rows.Len(), want)
		}
	}
	for i := 1; i < len(results); i++ {
		if unsafe.StringData(results[i].targets[0].Name) != unsafe.StringData(results[0].targets[0].Name) {
			t.Errorf("file %d holds its own copy of %q", i, results[0].targets[0].Name)
		}
	}
}
