package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"spikescope/ingest"
	"spikescope/memlimit"
	"spikescope/model"
	"spikescope/testdata/synth"
)

// estimatedPeak is what the memory check expects of path: the base plus
// its estimated rows times the format's figure.
func estimatedPeak(t *testing.T, path string, f model.Format) (rows, peak int64) {
	t.Helper()
	rows, ok := ingest.EstimateMonitorRows(context.Background(), path, f)
	if !ok {
		t.Fatalf("%s: no row estimate", path)
	}
	p, ok := memlimit.PeakBytes(f, rows)
	if !ok {
		t.Fatalf("%s: no peak figure for %s", path, f)
	}
	return rows, p + memlimit.BaseBytes
}

// Over a limit too small even for the out-of-core read (these inputs'
// peaks are below its floor, TestMemLimitOutOfCore reads one above): one
// line naming the input, its rows and memory, the limit and what to do;
// exit 2; nothing on stdout, no output file. Within
// 20% of it: the run goes on with a warning; well under it or with
// --mem-limit 0: no warning.
func TestMemLimitRefusesAndWarns(t *testing.T) {
	for _, c := range []struct {
		path string
		f    model.Format
	}{
		{filepath.Join(demoNPU, "trend.db"), model.FormatTrendDB},
		{filepath.Join(demoNPU, "monitor_output"), model.FormatCSV},
		{"testdata/monitor/gen_a_monitor_metrics.db", model.FormatTrendDB},
	} {
		_, peak := estimatedPeak(t, c.path, c.f)
		out := filepath.Join(t.TempDir(), "p1.json")
		var stdout, stderr bytes.Buffer
		limit := peak / 2
		code := run([]string{"detect", c.path, "--mem-limit", sizeArg(limit), "-o", out}, &stdout, &stderr)
		line := stderr.String()
		if code != 2 || stdout.Len() != 0 || strings.Count(line, "\n") != 1 {
			t.Fatalf("%s over the limit: exit %d, stdout %q, stderr %q", c.path, code, stdout.String(), line)
		}
		for _, want := range []string{c.path + ":", "monitor rows", memlimit.Text(peak), memlimit.Text(limit), "--mem-limit", "part of the run"} {
			if !strings.Contains(line, want) {
				t.Errorf("%s: refusal %q lacks %q", c.path, line, want)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: refused, yet %s was written", c.path, out)
		}

		for _, w := range []struct {
			limit int64
			warn  bool
		}{{peak + peak/10, true}, {peak * 2, false}, {0, false}} {
			res, code, errs := detectRun(t, c.path, "--mem-limit", sizeArg(w.limit))
			if code != 0 {
				t.Fatalf("%s --mem-limit %d: exit %d: %s", c.path, w.limit, code, errs)
			}
			warned := false
			for _, s := range res.Warnings {
				warned = warned || strings.Contains(s, "may run out of memory")
			}
			if warned != w.warn {
				t.Errorf("%s --mem-limit %d (peak %d): warned %v, want %v: %q", c.path, w.limit, peak, warned, w.warn, res.Warnings)
			}
		}
	}
}

// The faces that load monitor rows refuse the same way; 0 disables it.
func TestMemLimitOtherCommands(t *testing.T) {
	db := filepath.Join(demoNPU, "trend.db")
	for _, args := range [][]string{
		{"report", db},
		{"plan", db, "-o", filepath.Join(t.TempDir(), "plan")},
		{"trace", db, "--dump-a", demoNPU + "/dump"},
		{db}, // the TUI (its text summary off a terminal)
		{"inspect", db},
		{"detect", db, "--follow"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append(args, "--mem-limit", "1K"), &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), "1 KiB (--mem-limit)") || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v --mem-limit 1K: exit %d, stderr %q", args, code, stderr.String())
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"report", db, "--mem-limit", "0"}, &stdout, &stderr); code != 0 || stdout.Len() == 0 {
		t.Errorf("report --mem-limit 0: exit %d, stderr %q", code, stderr.String())
	}
}

// A bad size is one line naming the flag and the value, exit 2, before any
// input is read.
func TestMemLimitBadValue(t *testing.T) {
	for _, args := range [][]string{
		{"detect", "missing.trend.db"},
		{"report", "missing.trend.db"},
		{"missing.trend.db"},
	} {
		for _, v := range []string{"12X", "-1", "lots"} {
			var stdout, stderr bytes.Buffer
			code := run(append(args, "--mem-limit", v), &stdout, &stderr)
			msg := stderr.String()
			if code != 2 || strings.Count(msg, "\n") != 1 || !strings.Contains(msg, "--mem-limit") || !strings.Contains(msg, `"`+v+`"`) || strings.Contains(msg, "missing") {
				t.Errorf("%v --mem-limit %s: exit %d, stderr %q", args, v, code, msg)
			}
		}
	}
}

// The estimate of a generated 2M-row trend.db and v1 CSV tree is within 2×
// of the peak RSS of detect on them (measured in a child process).
func TestMemEstimateNearMeasuredPeak(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 2M-row inputs")
	}
	dir := t.TempDir()
	db, tree := filepath.Join(dir, "2m.trend.db"), filepath.Join(dir, "csv")
	if err := synth.WriteLargeTrendDB(db, 2_000_000, 4); err != nil {
		t.Fatal(err)
	}
	if err := synth.WriteLargeCSVTree(tree, 2_000_000); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		f    model.Format
	}{{db, model.FormatTrendDB}, {tree, model.FormatCSV}} {
		rows, est := estimatedPeak(t, c.path, c.f)
		if rows < 1_000_000 || rows > 4_000_000 {
			t.Errorf("%s: %d rows estimated for 2,000,000", c.path, rows)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestTUIProcess$")
		hwm := filepath.Join(dir, "status")
		cmd.Env = append(os.Environ(), "SPIKESCOPE_TEST_TUI="+strings.Join([]string{"detect", c.path, "--mem-limit", "0", "-o", filepath.Join(dir, "p1.json")}, "\t"),
			"SPIKESCOPE_TEST_HWM="+hwm)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("detect %s: %v\n%s", c.path, err, out)
		}
		// the child's own peak (VmHWM): its rusage maxrss starts from this
		// process's RSS at the fork (153 MiB here after writing the inputs)
		peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10 // KB on Linux
		if b, err := os.ReadFile(hwm); err == nil {
			for _, l := range strings.Split(string(b), "\n") {
				if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
					if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
						peak = kb << 10
					}
				}
			}
		}
		if est < peak/2 || est > peak*2 {
			t.Errorf("%s: estimated peak %s, measured %s: not within 2×", c.path, memlimit.Text(est), memlimit.Text(peak))
		}
		t.Logf("%s: %d rows estimated, peak %s estimated, %s measured", filepath.Base(c.path), rows, memlimit.Text(est), memlimit.Text(peak))
	}
}

func sizeArg(n int64) string { return strconv.FormatInt(n, 10) }

// A baseline's rows count toward the same budget (once when it is PATH
// again): a limit that PATH alone fits is exceeded with another baseline.
func TestMemLimitCountsTheBaseline(t *testing.T) {
	db, csv := filepath.Join(demoNPU, "trend.db"), filepath.Join(demoNPU, "monitor_output")
	_, peakDB := estimatedPeak(t, db, model.FormatTrendDB)
	_, peakCSV := estimatedPeak(t, csv, model.FormatCSV)
	limit := peakDB + (peakCSV-memlimit.BaseBytes)/2 // fits PATH, not PATH and the baseline
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"report", db}, 0},
		{[]string{"report", db, "--baseline", db}, 0},
		{[]string{"report", db, "--baseline", csv}, 2},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append(c.args, "--mem-limit", sizeArg(limit)), &stdout, &stderr)
		if code != c.code || (code == 2 && !strings.Contains(stderr.String(), "together with the baseline "+csv)) {
			t.Errorf("%v with a limit of %d (PATH %d, baseline %d): exit %d, want %d: %q", c.args, limit, peakDB, peakCSV, code, c.code, stderr.String())
		}
	}
}

// On a terminal the TUI refuses before it takes the screen: the one line
// on the terminal, exit 2, no alternate screen.
func TestMemLimitTUIRefusesBeforeTheScreen(t *testing.T) {
	p := startPTYTUI(t, filepath.Join(demoNPU, "trend.db"), "--mem-limit", "1M")
	if code, _ := p.wait(); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	p.waitFor(0, "(--mem-limit): not read")
	if strings.Contains(p.output(), altScreenOn) {
		t.Errorf("the screen was taken before the refusal: %q", tail(p.output(), 300))
	}
}

// Over the limit but above the out-of-core floor, detect reads the run
// through a temporary file in $SPIKESCOPE_SPILL_DIR: one line on stderr
// saying so (the folder, the disk), the same output file byte for byte as
// without a limit, nothing left in the folder. A spill folder that cannot
// take it is the refusal, naming the memory and the disk.
func TestMemLimitOutOfCore(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads 400,000-row inputs")
	}
	dir := t.TempDir()
	db, tree := filepath.Join(dir, "big.trend.db"), filepath.Join(dir, "csv")
	if err := synth.WriteLargeTrendDB(db, 400_000, 4); err != nil {
		t.Fatal(err)
	}
	if err := synth.WriteLargeCSVTree(tree, 400_000); err != nil {
		t.Fatal(err)
	}
	spillDir := t.TempDir()
	for _, c := range []struct {
		path string
		f    model.Format
	}{{db, model.FormatTrendDB}, {tree, model.FormatCSV}} {
		_, peak := estimatedPeak(t, c.path, c.f)
		// above the out-of-core floor (base + 8 MiB), below the estimate
		// (400,000 rows: ≈ 10 MB of trend.db rows, 16 MB of CSV rows)
		limit := memlimit.BaseBytes + 9<<20
		if peak <= int64(limit) {
			t.Fatalf("%s: estimated peak %d does not exceed %d", c.path, peak, limit)
		}
		want, got := filepath.Join(dir, "want.json"), filepath.Join(dir, "got.json")
		var stdout, stderr bytes.Buffer
		if code := run([]string{"detect", c.path, "--mem-limit", "0", "-o", want}, &stdout, &stderr); code != 0 {
			t.Fatalf("%s in memory: exit %d: %s", c.path, code, stderr.String())
		}
		inMemory := strings.Count(stderr.String(), "\n") // "Output written to …"
		t.Setenv("SPIKESCOPE_SPILL_DIR", spillDir)
		stdout.Reset()
		stderr.Reset()
		code := run([]string{"detect", c.path, "--mem-limit", sizeArg(int64(limit)), "-o", got}, &stdout, &stderr)
		line, _, _ := strings.Cut(stderr.String(), "\n")
		if code != 0 || strings.Count(stderr.String(), "\n") != inMemory+1 {
			t.Fatalf("%s out of core: exit %d, stderr %q", c.path, code, line)
		}
		for _, w := range []string{c.path, "more than the memory limit of", "temporary file in " + spillDir, "of disk"} {
			if !strings.Contains(line, w) {
				t.Errorf("%s: notice %q lacks %q", c.path, line, w)
			}
		}
		a, _ := os.ReadFile(want)
		b, _ := os.ReadFile(got)
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: out-of-core output (%d bytes) differs from the in-memory one (%d bytes)", c.path, len(b), len(a))
		}
		if ents, _ := os.ReadDir(spillDir); len(ents) != 0 {
			t.Errorf("%s: left in the spill folder: %v", c.path, ents)
		}

		t.Setenv("SPIKESCOPE_SPILL_DIR", filepath.Join(dir, "missing"))
		stderr.Reset()
		code = run([]string{"detect", c.path, "--mem-limit", sizeArg(int64(limit)), "-o", got + "2"}, &stdout, &stderr)
		line = stderr.String()
		if code != 2 || strings.Count(line, "\n") != 1 {
			t.Fatalf("%s, spill folder missing: exit %d, stderr %q", c.path, code, line)
		}
		for _, w := range []string{"(--mem-limit): not read", "of disk in " + filepath.Join(dir, "missing"), "SPIKESCOPE_SPILL_DIR", "part of the run"} {
			if !strings.Contains(line, w) {
				t.Errorf("%s: refusal %q lacks %q", c.path, line, w)
			}
		}
	}
}

// The TUI over the budget takes the out-of-core path, not the refusal: the
// notice on the terminal before the screen is taken, then the screen with
// the run's Phase 1.
func TestMemLimitTUIOutOfCore(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 400,000-row trend.db")
	}
	db := filepath.Join(t.TempDir(), "big.trend.db")
	if err := synth.WriteLargeTrendDB(db, 400_000, 4); err != nil {
		t.Fatal(err)
	}
	spillDir := t.TempDir()
	t.Setenv("SPIKESCOPE_SPILL_DIR", spillDir)
	// above the out-of-core floor (base + 8 MiB), below the rows' estimate
	// (400,000 × TrendDBPeakBytesPerRow ≈ 10 MB)
	p := startPTYTUI(t, db, "--mem-limit", sizeArg(memlimit.BaseBytes+9<<20))
	notice := p.waitFor(0, "reading through a temporary file in "+spillDir)
	at := p.waitFor(notice, altScreenOn)
	p.waitFor(at, "Phase 1")
	p.signal(syscall.SIGTERM)
	if code, _ := p.wait(); code != 143 {
		t.Errorf("exit %d after SIGTERM, want 143", code)
	}
	if strings.Contains(p.output(), "not read") {
		t.Errorf("refused: %q", tail(p.output(), 300))
	}
}
