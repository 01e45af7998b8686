//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"spikescope/ingest"
)

// shellRun runs `spikescope ARGS` through bash, the arguments expanded by
// the shell (so `<(cat FILE)` is a pipe /dev/fd/N): this test binary as
// TestTUIProcess with the arguments after "--". It returns the exit code,
// stdout and stderr.
func shellRun(t *testing.T, args string, env ...string) (int, string, string) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash:", err)
	}
	cmd := exec.Command(bash, "-c", `exec "$0" -test.run='^TestTUIProcess$' -- `+args, os.Args[0])
	cmd.Env = append(append(os.Environ(), "SPIKESCOPE_TEST_TUI=@"), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// shq quotes s for bash.
func shq(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Saved results and layer mappings read from a pipe (`--phase1 <(…)`) give
// what the same file gives; monitor inputs and dumps still refuse pipes.
func TestResultFilesFromProcessSubstitution(t *testing.T) {
	dir := t.TempDir()
	p1 := filepath.Join(dir, "p1.json")
	if code, _, stderr := runArgs("detect", demoNPU, "-o", p1); code != 0 {
		t.Fatalf("detect: %d %s", code, stderr)
	}
	dump := filepath.Join(demoNPU, "dump")
	for _, c := range []struct{ name, file, piped string }{
		{"select --phase1", "select --phase1 " + shq(p1), "select --phase1 <(cat " + shq(p1) + ")"},
		{"select --phase1 --baseline", "select --phase1 " + shq(p1) + " --baseline " + shq(p1),
			"select --phase1 <(cat " + shq(p1) + ") --baseline <(cat " + shq(p1) + ")"},
		{"trace --phase1", "trace --phase1 " + shq(p1) + " --dump-a " + shq(dump), "trace --phase1 <(cat " + shq(p1) + ") --dump-a " + shq(dump)},
	} {
		fc, fo, fe := shellRun(t, c.file)
		pc, po, pe := shellRun(t, c.piped)
		if fc != 0 || pc != 0 || po != fo || len(po) < 100 {
			t.Errorf("%s: file: exit %d (%s); pipe: exit %d (%s); outputs equal %v (%d bytes)", c.name, fc, strings.TrimSpace(fe), pc, strings.TrimSpace(pe), po == fo, len(po))
		}
	}
	// an empty pipe and a pipe that is not JSON: one line, exit 2
	for _, c := range []struct{ args, problem string }{
		{"select --phase1 <(true)", "the pipe gave nothing (0 bytes), expected a Phase 1 JSON"},
		{"select --phase1 <(echo '{\"phase\": 2}')", "this is a Phase 2 result (select's output), not a Phase 1 result"},
		// monitor inputs and dumps: a pipe is refused at once
		{"detect <(cat " + shq(p1) + ")", "is a named pipe, not a regular file"},
		{"trace --phase1 " + shq(p1) + " --dump-a <(cat " + shq(filepath.Join(demoDumpDir, "dump.json")) + ")", "named pipe"},
	} {
		code, _, stderr := shellRun(t, c.args)
		if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.problem) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, stderr, c.problem)
		}
	}
}

// A layer-mapping YAML from a pipe aligns as the file does.
func TestLayerMappingFromProcessSubstitution(t *testing.T) {
	ms, pt := filepath.Join(layerMappingFixture, "mindspore"), filepath.Join(layerMappingFixture, "pytorch")
	yaml := "TopLayer:\n  network_with_loss: module\nParallelTransformerLayer:\n  attention: self_attention\n" +
		"ParallelAttention:\n  flash_attention_score: core_attention_flash.npu_fusion_attention\nFusedRMSNorm:\n  RmsNorm: npu_rms_norm\n"
	code, out, stderr := shellRun(t, "inspect "+shq(ms)+" --against "+shq(pt)+" --layer-mapping <(printf %s "+shq(yaml)+")")
	if code != 0 || !strings.Contains(out, "aligned:     1 of 1 records of A") || !strings.Contains(out, "/dev/fd/") {
		t.Errorf("exit %d, stderr %q, out %s", code, stderr, out)
	}
	// a pipe over the mapping's size limit is refused with the limit
	code, _, stderr = shellRun(t, "inspect "+shq(ms)+" --against "+shq(pt)+" --layer-mapping <(head -c 5000000 /dev/zero)")
	if code != 2 || !strings.Contains(stderr, "the pipe gave more than 4 MiB, too large for a layer-mapping YAML") {
		t.Errorf("big pipe: exit %d, stderr %q", code, stderr)
	}
}

// A named pipe that no program opens for writing is refused after
// PipeWriterWait instead of waiting forever.
func TestResultFIFOWithoutWriter(t *testing.T) {
	defer func(w time.Duration) { ingest.PipeWriterWait = w }(ingest.PipeWriterWait)
	ingest.PipeWriterWait = 300 * time.Millisecond
	fifo := filepath.Join(t.TempDir(), "p1.json")
	if err := mkfifoT(fifo); err != nil {
		t.Skip("mkfifo:", err)
	}
	code, _, stderr := runArgs("select", "--phase1", fifo)
	if code != 2 || !strings.Contains(stderr, "is a named pipe that no program wrote into within 300ms") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

func mkfifoT(p string) error { return syscall.Mkfifo(p, 0o644) }
