package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"spikescope/model"
	"spikescope/pipeline"
	"spikescope/testdata/synth"
	"spikescope/words"
)

// runLang runs a command with args and --lang l ("" = no --lang) and
// returns its stdout.
func runLang(t *testing.T, l string, args ...string) []byte {
	t.Helper()
	if l != "" {
		args = append(args, "--lang", l)
	}
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errb.String())
	}
	return out.Bytes()
}

var (
	hanRun    = regexp.MustCompile(`\p{Han}`)
	numberRun = regexp.MustCompile(`\d+(?:\.\d+)?`)
)

// sameButSaid compares the JSON a command wrote with --lang en and with
// --lang zh: the same document — keys, numbers, names, paths — except the
// texts said from the run's reasons, where the Chinese text holds Chinese,
// no English sentence, and every number of the English one. It returns how
// many texts differ. Keys in skip (a time stamp) are not compared.
func sameButSaid(t *testing.T, what string, en, zh []byte, skip ...string) int {
	t.Helper()
	var a, b any
	for _, x := range []struct {
		doc []byte
		v   *any
	}{{en, &a}, {zh, &b}} {
		d := json.NewDecoder(bytes.NewReader(x.doc))
		d.UseNumber()
		if err := d.Decode(x.v); err != nil {
			t.Fatalf("%s: not JSON: %v\n%s", what, err, x.doc)
		}
	}
	said := 0
	var walk func(path string, a, b any)
	walk = func(path string, a, b any) {
		switch av := a.(type) {
		case map[string]any:
			bv, ok := b.(map[string]any)
			if !ok || len(av) != len(bv) {
				t.Errorf("%s %s: en %v, zh %v", what, path, a, b)
				return
			}
			for k, x := range av {
				if !slices.Contains(skip, k) {
					walk(path+"."+k, x, bv[k])
				}
			}
		case []any:
			bv, ok := b.([]any)
			if !ok || len(av) != len(bv) {
				t.Errorf("%s %s: en has %d values, zh %v", what, path, len(av), b)
				return
			}
			for i := range av {
				walk(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i])
			}
		case string:
			bs, ok := b.(string)
			switch {
			case !ok:
				t.Errorf("%s %s: en %q, zh %v", what, path, av, b)
			case bs != av:
				said++
				checkSaid(t, what+" "+path, av, bs)
			}
		default:
			if a != b {
				t.Errorf("%s %s: en %v, zh %v: a number or a flag differs", what, path, a, b)
			}
		}
	}
	walk("", a, b)
	return said
}

// dropInOnly: the JSON without --lang is --lang en's except the texts the
// reference scripts write in a mixed wording (the run's shape: Chinese in
// the drop-in JSON, plain English with --lang en).
func dropInOnly(t *testing.T, what string, def, en []byte) {
	t.Helper()
	var a, b any
	if json.Unmarshal(def, &a) != nil || json.Unmarshal(en, &b) != nil {
		t.Fatalf("%s: not JSON", what)
	}
	var walk func(path string, a, b any)
	walk = func(path string, a, b any) {
		switch av := a.(type) {
		case map[string]any:
			bv, _ := b.(map[string]any)
			if len(av) != len(bv) {
				t.Errorf("%s %s: keys differ", what, path)
			}
			for k, x := range av {
				walk(path+"."+k, x, bv[k])
			}
		case []any:
			bv, _ := b.([]any)
			if len(av) != len(bv) {
				t.Errorf("%s %s: lengths differ", what, path)
				return
			}
			for i := range av {
				walk(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i])
			}
		case string:
			if bs, _ := b.(string); bs != av && !hanRun.MatchString(av) {
				t.Errorf("%s %s: no --lang %q, --lang en %q: only a mixed drop-in text may differ", what, path, av, bs)
			}
		default:
			if fmt.Sprint(a) != fmt.Sprint(b) {
				t.Errorf("%s %s: %v against %v", what, path, a, b)
			}
		}
	}
	walk("", a, b)
}

// checkSaid: zh says en in Chinese with the same numbers.
func checkSaid(t *testing.T, what, en, zh string) {
	t.Helper()
	if !hanRun.MatchString(zh) {
		t.Errorf("%s: --lang zh %q holds no Chinese (en %q)", what, zh, en)
	}
	if s := words.EnglishSentence(zh); s != "" {
		t.Errorf("%s: --lang zh keeps English %q in %q", what, s, zh)
	}
	for _, n := range numberRun.FindAllString(en, -1) {
		if !strings.Contains(zh, n) {
			t.Errorf("%s: %s of the English text is not in the Chinese one:\nen %q\nzh %q", what, n, en, zh)
		}
	}
}

// detect, select and trace on the demo run: without --lang the JSON is
// --lang en's byte for byte (select: the reference scripts' languages);
// --lang zh says every text in Chinese with the same numbers and changes
// nothing else.
func TestLangJSONCommands(t *testing.T) {
	demo := "testdata/demo"
	npu, gpu := demoPhase1(t, "npu"), demoPhase1(t, "gpu")
	for _, c := range []struct {
		name string
		args []string
		// defIsEn: no --lang is English (select's default is the
		// reference scripts' mix)
		defIsEn bool
	}{
		{"detect", []string{"detect", filepath.Join(demo, "npu", "trend.db")}, true},
		{"select", []string{"select", "--npu", npu, "--gpu", gpu}, false},
		{"trace", []string{"trace", filepath.Join(demo, "npu", "trend.db"), "--baseline", filepath.Join(demo, "gpu", "trend.db"),
			"--dump-a", filepath.Join(demo, "npu", "dump"), "--dump-b", filepath.Join(demo, "gpu", "dump")}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			def, en, zh := runLang(t, "", c.args...), runLang(t, "en", c.args...), runLang(t, "zh", c.args...)
			if c.defIsEn {
				dropInOnly(t, c.name, def, en)
			}
			if m := hanRun.FindIndex(en); m != nil {
				t.Errorf("--lang en holds Chinese: %q", en[max(0, m[0]-80):min(len(en), m[1]+80)])
			}
			if n := sameButSaid(t, c.name, en, zh); n < 3 {
				t.Errorf("--lang zh changed %d texts, want the run's sentences said in Chinese", n)
			}
		})
	}
}

// inspect: the warnings and the stage layout's notes follow --lang, in the
// JSON and in the text; without --lang both are --lang en's.
func TestLangInspect(t *testing.T) {
	dir := t.TempDir()
	// a rank that misses a step: a warning
	tree := filepath.Join(dir, "monitor_output")
	copyTree(t, filepath.Join("testdata", "demo", "npu", "monitor_output"), tree)
	ranks, err := filepath.Glob(filepath.Join(tree, "*-rank2-*"))
	if err != nil || len(ranks) != 1 {
		t.Fatalf("rank 2 folder: %v %v", ranks, err)
	}
	for _, f := range []string{"grad_unreduced_3-3.csv", "grad_reduced_3-3.csv"} {
		if err := os.Remove(filepath.Join(ranks[0], f)); err != nil {
			t.Fatal(err)
		}
	}
	// two pipeline stages: the layout's method and note
	staged := filepath.Join(dir, "staged.trend.db")
	r := synth.GenerateStages(synth.StagesConfig{PP: 2, DP: 2, LayersPerStage: 4, Window: 4, OptSteps: 6, Seed: 7})
	if err := r.WriteTrendDB(staged); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{tree, staged} {
		def, en, zh := runLang(t, "", "inspect", path, "--json"), runLang(t, "en", "inspect", path, "--json"), runLang(t, "zh", "inspect", path, "--json")
		if !bytes.Equal(def, en) {
			t.Errorf("%s: no --lang differs from --lang en", path)
		}
		if n := sameButSaid(t, "inspect "+filepath.Base(path), en, zh); n == 0 {
			t.Errorf("%s: --lang zh changed no text", path)
		}
		var rep struct{ Warnings []string }
		if err := json.Unmarshal(zh, &rep); err != nil {
			t.Fatal(err)
		}
		defText, enText, zhText := runLang(t, "", "inspect", path), runLang(t, "en", "inspect", path), runLang(t, "zh", "inspect", path)
		if !bytes.Equal(defText, enText) {
			t.Errorf("%s: the text without --lang differs from --lang en", path)
		}
		for _, w := range rep.Warnings {
			if !bytes.Contains(zhText, []byte(w)) {
				t.Errorf("%s: the text with --lang zh lacks the warning %q:\n%s", path, w, zhText)
			}
		}
	}
	if !bytes.Contains(runLang(t, "zh", "inspect", tree), []byte("rank 2")) {
		t.Errorf("the missing step's warning is not in the zh text")
	}
}

// cancelOnStart is detect --follow's stdout that ends the follow once the
// first pass is written: the start line, its warnings, candidates and
// root come in one batch, then the stop line.
type cancelOnStart struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	cancel context.CancelFunc
}

func (w *cancelOnStart) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cancel()
	return w.buf.Write(p)
}

// detect --follow: every line's message follows --lang (the numbers the
// same); without --lang the lines are --lang en's.
func TestLangDetectFollow(t *testing.T) {
	follow := func(l string) [][]byte {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		w := &cancelOnStart{cancel: cancel}
		opt := pipeline.FollowOptions{Interval: time.Hour, Lang: pipeline.LangOf(l)}
		if code := detectFollowCtx(ctx, demoNPU+"/trend.db", model.FormatAuto, opt, w, io.Discard); code != 0 {
			t.Fatalf("--lang %q: exit %d", l, code)
		}
		return bytes.Split(bytes.TrimSpace(w.buf.Bytes()), []byte("\n"))
	}
	def, en, zh := follow(""), follow("en"), follow("zh")
	if len(en) < 3 || len(zh) != len(en) || len(def) != len(en) {
		t.Fatalf("lines: default %d, en %d, zh %d", len(def), len(en), len(zh))
	}
	said := 0
	for i := range en {
		var d, e map[string]any
		json.Unmarshal(def[i], &d)
		json.Unmarshal(en[i], &e)
		if d["message"] != e["message"] {
			t.Errorf("line %d: no --lang %q, --lang en %q", i, d["message"], e["message"])
		}
		said += sameButSaid(t, fmt.Sprintf("follow line %d", i), en[i], zh[i], "time")
	}
	if said < 2 {
		t.Errorf("--lang zh said %d messages in Chinese, want the start and stop lines at least", said)
	}
}

// --lang takes en or zh on every command that has it.
func TestLangBadValue(t *testing.T) {
	for _, cmd := range [][]string{
		{"detect", demoNPU + "/trend.db"},
		{"inspect", demoNPU + "/trend.db"},
		{"trace", "--dump-a", demoNPU + "/dump"},
		{"report"},
		{"plan", "-o", t.TempDir()},
	} {
		var out, errb bytes.Buffer
		code := run(append(cmd, "--lang", "fr"), &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), cmd[0]+`: --lang "fr": want en or zh`) {
			t.Errorf("%v --lang fr: exit %d, stderr %q", cmd, code, errb.String())
		}
	}
}
