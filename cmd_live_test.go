//go:build linux

package main

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"spikescope/model"
	"spikescope/pipeline"
)

// detect and the TUI's load on a trend.db that a writer process appends to
// (one commit per rank and optimizer step of the demo run, in WAL and
// rollback-journal mode): every load succeeds and equals a detect of the
// database at one commit — the one its row count names.

// liveFirstSteps are the demo run's steps in the file before the writer
// starts appending.
const liveFirstSteps = 20

// TestLiveTrendDBWriterProcess is the writer process (not a test):
// SPIKESCOPE_TEST_LIVE=JOURNAL:SRC:DST. It builds DST from SRC's tables
// with the steps below liveFirstSteps, prints "ready", then commits the
// rows of one (step, rank) of SRC at a time, every 10 ms, until stdin
// closes.
func TestLiveTrendDBWriterProcess(t *testing.T) {
	spec := os.Getenv("SPIKESCOPE_TEST_LIVE")
	if spec == "" {
		t.Skip("the writer process of the live trend.db tests")
	}
	parts := strings.SplitN(spec, ":", 3)
	journal, src, dst := parts[0], parts[1], parts[2]
	db, err := sql.Open("sqlite", dst)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	must := func(q string, args ...any) {
		if _, err := db.Exec(q, args...); err != nil {
			fmt.Fprintln(os.Stderr, q, err)
			os.Exit(3)
		}
	}
	must(`PRAGMA busy_timeout=60000`)
	must(`PRAGMA journal_mode=` + journal)
	must(`ATTACH DATABASE ? AS s`, src)
	rows, err := db.Query(`SELECT name, sql FROM s.sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables, ddl []string
	for rows.Next() {
		var n, q string
		rows.Scan(&n, &q)
		tables, ddl = append(tables, n), append(ddl, q)
	}
	rows.Close()
	for i, n := range tables {
		must(ddl[i])
		if n == "trend_data" {
			must(`INSERT INTO main.trend_data SELECT * FROM s.trend_data WHERE step < ?`, liveFirstSteps)
		} else {
			must(`INSERT INTO main.` + n + ` SELECT * FROM s.` + n)
		}
	}
	stop := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(stop) }()
	fmt.Println("ready")
	for _, c := range liveCommits(t, db) {
		select {
		case <-stop:
			db.Close()
			os.Exit(0)
		case <-time.After(10 * time.Millisecond):
		}
		must(`INSERT INTO main.trend_data SELECT * FROM s.trend_data WHERE step = ? AND rank = ?`, c.step, c.rank)
	}
	<-stop
	db.Close()
	os.Exit(0)
}

// liveCommit is one commit of the writer and the rows after it.
type liveCommit struct{ step, rank, rows int }

// liveCommits lists the writer's commits in order, from the source
// attached as s.
func liveCommits(t *testing.T, db *sql.DB) []liveCommit {
	var base int
	if err := db.QueryRow(`SELECT count(*) FROM s.trend_data WHERE step < ?`, liveFirstSteps).Scan(&base); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT step, rank, count(*) FROM s.trend_data WHERE step >= ? GROUP BY step, rank ORDER BY step, rank`, liveFirstSteps)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := []liveCommit{{step: -1, rank: -1, rows: base}} // the state before the first commit
	for rows.Next() {
		var c liveCommit
		rows.Scan(&c.step, &c.rank, &c.rows)
		c.rows += out[len(out)-1].rows
		out = append(out, c)
	}
	return out
}

// startLiveWriter runs the writer process until the test ends.
func startLiveWriter(t *testing.T, journal, src, dst string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLiveTrendDBWriterProcess$")
	cmd.Env = append(os.Environ(), "SPIKESCOPE_TEST_LIVE="+journal+":"+src+":"+dst)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() || sc.Text() != "ready" {
		t.Fatal("the writer did not start")
	}
	go io.Copy(io.Discard, stdout)
}

// phase1Of is a Phase 1 result as JSON fields, without its path and
// warnings (the live read's "as of" line).
func phase1Of(t *testing.T, p1 any) map[string]any {
	t.Helper()
	b, err := json.Marshal(p1)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "db_path")
	delete(m, "warnings")
	return m
}

func TestDetectAndTUILoadOfATrendDBBeingWritten(t *testing.T) {
	src, err := filepath.Abs(demoTrendDB)
	if err != nil {
		t.Fatal(err)
	}
	sdb, err := sql.Open("sqlite", "file:"+src+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	sdb.SetMaxOpenConns(1)
	if _, err := sdb.Exec(`ATTACH DATABASE ? AS s`, "file:"+src+"?mode=ro&immutable=1"); err != nil {
		t.Fatal(err)
	}
	commits := liveCommits(t, sdb)
	sdb.Close()
	// the reference: a copy of the source at commit k, and detect on it
	want := map[int]map[string]any{}
	reference := func(rows int) map[string]any {
		if m, ok := want[rows]; ok {
			return m
		}
		k := -1
		for i, c := range commits {
			if c.rows == rows {
				k = i
			}
		}
		if k < 0 {
			t.Fatalf("%d rows is the state after no commit of the writer", rows)
		}
		cp := filepath.Join(t.TempDir(), "at.trend.db")
		writeFile(t, cp, readFileT(t, src))
		db, err := sql.Open("sqlite", cp)
		if err != nil {
			t.Fatal(err)
		}
		if k+1 < len(commits) { // else: the writer's last commit, the whole source
			next := commits[k+1] // the first commit not in the state
			if _, err := db.Exec(`DELETE FROM trend_data WHERE step > ? OR (step = ? AND rank >= ?)`, next.step, next.step, next.rank); err != nil {
				t.Fatal(err)
			}
		}
		db.Close()
		code, out, stderr := runArgs("detect", cp)
		if code != 0 {
			t.Fatalf("detect of the copy: %d %s", code, stderr)
		}
		var p1 model.Phase1Result
		if err := json.Unmarshal([]byte(out), &p1); err != nil {
			t.Fatal(err)
		}
		want[rows] = phase1Of(t, &p1)
		return want[rows]
	}
	for _, journal := range []string{"wal", "delete"} {
		t.Run(journal, func(t *testing.T) {
			dst := filepath.Join(t.TempDir(), "live.trend.db")
			startLiveWriter(t, journal, src, dst)
			const loads = 20
			states := map[int]bool{}
			for i := 0; i < loads; i++ {
				var p1 *model.Phase1Result
				face := "detect"
				if i%2 == 0 {
					code, out, stderr := runArgs("detect", dst)
					if code != 0 {
						t.Fatalf("detect %d of %d: exit %d: %s", i+1, loads, code, stderr)
					}
					p1 = &model.Phase1Result{}
					if err := json.Unmarshal([]byte(out), p1); err != nil {
						t.Fatal(err)
					}
				} else {
					face = "the TUI's load"
					s, err := pipeline.Load(context.Background(), pipeline.Inputs{Path: dst}, nil)
					if err != nil {
						t.Fatalf("the TUI's load %d of %d: %v", i+1, loads, err)
					}
					p1 = s.P1
				}
				n := p1.Summary.TotalRows
				states[n] = true
				if got, w := phase1Of(t, p1), reference(n); !reflect.DeepEqual(got, w) {
					var diff []string
					for k := range w {
						if !reflect.DeepEqual(got[k], w[k]) {
							g, _ := json.Marshal(got[k])
							x, _ := json.Marshal(w[k])
							diff = append(diff, fmt.Sprintf("%s: %.300s, want %.300s", k, g, x))
						}
					}
					t.Fatalf("%s (load %d, %d rows) differs from detect of the database at that commit: %s", face, i+1, n, strings.Join(diff, "; "))
				}
			}
			t.Logf("%d loads, %d states of the database", loads, len(states))
			if len(states) < 2 {
				t.Errorf("every load read the same state: the writer did not commit between them")
			}
		})
	}
}
