package analysis

import (
	"encoding/json"
	"math"
	"testing"

	"spikescope/model"
)

// FuzzPhase12 builds small monitor runs from bytes (any ranks, steps, micro
// steps, metrics, NaN/Inf/negative/zero norms, explicit or global steps,
// dumps) and checks that Phase 1 and Phase 2 never panic, that Phase 1's
// JSON is valid and that its candidates are ordered earliest first.
func FuzzPhase12(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, uint8(0), uint8(0))
	f.Add([]byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\xff\xfe\x80\x10\x20"), uint8(1), uint8(4))
	f.Add([]byte("spikescope fuzz seed with some bytes for rows"), uint8(2), uint8(0))
	f.Add([]byte("dump seed \x00\x00\x00\x7f\x7f"), uint8(3), uint8(2))
	f.Add([]byte("dump seed \x00\x01\x02\x03\x00\x01\x82\x03\x00\x01\x03\x7f"), uint8(19), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8, window uint8) {
		b := newMon([]model.Format{model.FormatTrendDB, model.FormatCSV, model.FormatCSV, model.FormatDump}[mode%4])
		b.d.ExplicitMicro = mode%4 == 2 || mode%4 == 3 && mode&16 != 0 // dumps: per-call rows
		b.d.MicroOneBased = map[string]bool{"grad_unreduced": mode&8 != 0}
		names := []string{"a.weight", "b.weight", "c.bias"}
		for i := 0; i+3 < len(data) && i < 4*400; i += 4 {
			rank := int(data[i] % 5)
			step := int(data[i+1] % 40)
			micro := int(data[i+2]%6) - 1
			v := float64(data[i+3]) / 16
			switch data[i+3] {
			case 255:
				v = math.NaN()
			case 254:
				v = math.Inf(1)
			case 253:
				v = -1
			}
			m := uint8(data[i] >> 7)
			if mode%4 == 3 {
				m = 0
			}
			b.add(rank, step, micro, names[int(data[i+2])%len(names)], m, v)
		}
		opt := DefaultPhase1Options()
		opt.Window = int(window % 10)
		p1 := Phase1(b.d, opt)
		if _, err := json.Marshal(p1); err != nil {
			t.Fatal(err)
		}
		for i := 1; i < len(p1.Anomalies); i++ {
			a, c := &p1.Anomalies[i-1], &p1.Anomalies[i]
			if a.OptStep() > c.OptStep() || (a.OptStep() == c.OptStep() && microOrder(a) > microOrder(c)) {
				t.Fatalf("not earliest first at %d: %s / %s", i, jsn(a), jsn(c))
			}
		}
		p2, err := phase2Said(p1, p1, nil, DefaultPhase2Options())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := json.Marshal(p2); err != nil {
			t.Fatal(err)
		}
		if len(p1.Anomalies) > 0 && p2.RootCauseCoordinate == nil {
			t.Fatalf("candidates but no coordinate: %s", jsn(p2))
		}
	})
}
