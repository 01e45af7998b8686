package spill

import (
	"math"
	"os"
	"strings"
	"testing"
)

func TestColumnsReadBackAndNothingLeftBehind(t *testing.T) {
	dir := t.TempDir()
	f, err := Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	a := []float32{1, float32(math.NaN()), float32(math.Inf(-1)), -0.5}
	b := []int32{7, -1, 1 << 30}
	c := []float64{math.Pi, 1e300}
	ra, err := f.Float32s(a)
	if err != nil {
		t.Fatal(err)
	}
	rb, _ := f.Int32s(b)
	rc, _ := f.Float64s(c[:1])
	if rc, err = f.Append(rc, Bytes(c[1:])); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Append(ra, Bytes(a)); err == nil {
		t.Fatal("append to an earlier column accepted")
	}
	if rb.Off%pageSize != 0 || rc.Off%pageSize != 0 {
		t.Fatalf("columns not page aligned: %d %d", rb.Off, rc.Off)
	}
	m, err := f.Map()
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	ents, _ := os.ReadDir(dir)
	if len(ents) != 0 {
		t.Fatalf("spill file left in the folder: %v", ents)
	}
	ga, gb, gc := m.Float32s(ra), m.Int32s(rb), m.Float64s(rc)
	for i := range a {
		if math.Float32bits(ga[i]) != math.Float32bits(a[i]) {
			t.Fatalf("float32 %d: %v != %v", i, ga[i], a[i])
		}
	}
	if len(gb) != 3 || gb[2] != 1<<30 || gb[1] != -1 || len(gc) != 2 || gc[0] != math.Pi || gc[1] != 1e300 {
		t.Fatalf("read back %v %v", gb, gc)
	}
	// a private mapping: writing changes memory, and an append copies
	gb[0] = 9
	if gb[0] != 9 {
		t.Fatal("write to a mapped column lost")
	}
	if g := append(ga, 2); len(g) != 5 || &g[0] == &ga[0] {
		t.Fatal("append grew the mapped column in place")
	}
	m.Release(ra)
	if m.Float32s(ra)[3] != -0.5 {
		t.Fatal("released column does not read back from the file")
	}
}

func TestCreateInMissingFolderFails(t *testing.T) {
	if _, err := Create(t.TempDir() + "/nope"); err == nil {
		t.Fatal("spill file created in a folder that does not exist")
	}
}

func TestDirAvoidsMemoryFileSystems(t *testing.T) {
	if !InMemory("/dev/shm") {
		t.Skip("no tmpfs at /dev/shm here")
	}
	disk := t.TempDir()
	if InMemory(disk) {
		t.Skip("the test folder is itself in memory")
	}
	if got := ordered("/dev/shm", disk)[0]; got != disk {
		t.Fatalf("spill folder %s, want %s (not tmpfs)", got, disk)
	}
	if got := ordered("/dev/shm")[0]; got != "/dev/shm" {
		t.Fatalf("with no disk folder the first is kept, got %s", got)
	}
	t.Setenv("SPIKESCOPE_SPILL_DIR", "/dev/shm")
	if Dir() != "/dev/shm" {
		t.Fatal("the folder the user names is used as given")
	}
}

// Unmap gives the mapping up: the file's pages leave the process's maps
// (an unlinked file's disk is then free once it is closed).
func TestUnmap(t *testing.T) {
	f, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	name := f.f.Name()
	if _, err := f.Float64s([]float64{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	m, err := f.Map()
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	mapped := func() bool {
		b, err := os.ReadFile("/proc/self/maps")
		if err != nil {
			t.Skip("no /proc/self/maps here")
		}
		return strings.Contains(string(b), name)
	}
	if !mapped() {
		t.Fatal("the mapping is not in /proc/self/maps")
	}
	if err := m.Unmap(); err != nil {
		t.Fatal(err)
	}
	if mapped() {
		t.Fatal("the file is still mapped after Unmap")
	}
	if err := m.Unmap(); err != nil {
		t.Fatalf("a second Unmap: %v", err)
	}
}

// TestStartAt: a column starts where it is told (a page boundary at or
// past it), reads back from there, and cannot start before the end of the
// last one.
func TestStartAt(t *testing.T) {
	f, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := f.Float32s([]float32{1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.StartAt(3*pageSize + 1); err != nil {
		t.Fatal(err)
	}
	b, err := f.Int32s([]int32{-7, 9})
	if err != nil {
		t.Fatal(err)
	}
	if b.Off != 4*pageSize {
		t.Fatalf("column at %d, want %d", b.Off, 4*pageSize)
	}
	if err := f.StartAt(a.Off); err == nil {
		t.Fatal("a column accepted over the last one")
	}
	m, err := f.Map()
	if err != nil {
		t.Fatal(err)
	}
	defer m.Unmap()
	if got := m.Int32s(b); len(got) != 2 || got[0] != -7 || got[1] != 9 {
		t.Fatalf("read back %v", got)
	}
	if got := m.Float32s(a); got[0] != 1 || got[1] != 2 {
		t.Fatalf("read back %v", got)
	}
}
