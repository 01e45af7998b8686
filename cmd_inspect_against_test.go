package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/pipeline"
)

// layerMappingFixture holds msprobe's own MindSpore and PyTorch dumps of
// one model (testdata/msprobe/README.md): their dump.json files hold one
// record each, the word embedding's output, named
// Cell.network_with_loss.module.language_model.embedding.word_embeddings…
// and Module.module.module.language_model.embedding.word_embeddings….
const layerMappingFixture = "testdata/msprobe/test/msprobe_test/resources/layer_mapping"

func inspectAlignment(t *testing.T, args ...string) *pipeline.AlignReport {
	t.Helper()
	code, out, errs := runInspectArgs(append([]string{"--json"}, args...)...)
	if code != 0 {
		t.Fatalf("code %d stderr %q", code, errs)
	}
	var rep pipeline.InspectReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Alignment == nil {
		t.Fatalf("no alignment in %s", out)
	}
	return rep.Alignment
}

// The real MindSpore/PyTorch pair loads and aligns through the built-in
// map: its 1 record (of 1) aligns; with a layer-mapping file as msprobe's
// tests write it for this model, too.
func TestInspectAgainstMsprobeFixture(t *testing.T) {
	ms, pt := filepath.Join(layerMappingFixture, "mindspore"), filepath.Join(layerMappingFixture, "pytorch")
	al := inspectAlignment(t, ms, "--against", pt)
	if al.Records != 1 || al.Aligned != 1 || !strings.Contains(al.Note, "built-in map") {
		t.Errorf("built-in: %+v", al)
	}
	yaml := filepath.Join(t.TempDir(), "layer_mapping.yaml")
	os.WriteFile(yaml, []byte("TopLayer:\n  network_with_loss: module\nParallelTransformerLayer:\n  attention: self_attention\n"+
		"ParallelAttention:\n  flash_attention_score: core_attention_flash.npu_fusion_attention\nFusedRMSNorm:\n  RmsNorm: npu_rms_norm\n"), 0o644)
	al = inspectAlignment(t, ms, "--against", pt, "--layer-mapping", yaml)
	if al.Records != 1 || al.Aligned != 1 || !strings.Contains(al.Note, yaml) {
		t.Errorf("file: %+v", al)
	}
	// the other way round: PyTorch's record aligns with MindSpore's
	if al := inspectAlignment(t, pt, "--against", ms); al.Aligned != 1 {
		t.Errorf("reversed: %+v", al)
	}
	// text output
	code, out, _ := runInspectArgs(ms, "--against", pt)
	if code != 0 || !strings.Contains(out, "aligned:     1 of 1 records of A ("+ms+")") {
		t.Errorf("code %d text %s", code, out)
	}
}

// Bad input around --against and --layer-mapping: one line, exit 2.
func TestInspectAgainstBadInput(t *testing.T) {
	ms, pt := filepath.Join(layerMappingFixture, "mindspore"), filepath.Join(layerMappingFixture, "pytorch")
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("TopLayer: module\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{ms, "--layer-mapping", bad}, "--layer-mapping goes with --against"},
		{[]string{ms, "--against", pt, "--layer-mapping", bad}, bad + ": line 1: class TopLayer must hold"},
		{[]string{ms, "--against", filepath.Join(t.TempDir(), "none")}, "does not exist"},
	} {
		code, _, errs := runInspectArgs(c.args...)
		if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: code %d stderr %q", c.args, code, errs)
		}
	}
	// trace and report read the file the same way
	for _, cmd := range []string{"trace", "report"} {
		var out, errb bytes.Buffer
		code := run([]string{cmd, "--dump-a", ms, "--dump-b", pt, "--layer-mapping", bad}, &out, &errb)
		if code != 2 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), bad+": line 1:") {
			t.Errorf("%s: code %d stderr %q", cmd, code, errb.String())
		}
	}
}
