package ingest

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkForeignWAL is the -wal check every trend.db open now makes:
// without a log, beside the database's own log (header only), and beside
// a renamed-over file (header, then the frames up to the first commit:
// here the first CREATE TABLE, a few frames of a 1.1 MB log).
func BenchmarkForeignWAL(b *testing.B) {
	dir := b.TempDir()
	// a WAL database whose rows all sit in its log: copied while the
	// writer holds it open (nothing is being written then)
	src := filepath.Join(dir, "src.trend.db")
	db, err := sql.Open("sqlite", src)
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA journal_mode=WAL", "PRAGMA wal_autocheckpoint=0"} {
		if _, err := db.Exec(q); err != nil {
			b.Fatal(err)
		}
	}
	if err := fillLiveDB(db); err != nil {
		b.Fatal(err)
	}
	copyFile := func(from, to string) {
		buf, err := os.ReadFile(from)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(to, buf, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	own := filepath.Join(dir, "own.trend.db")
	copyFile(src, own)
	copyFile(src+"-wal", own+"-wal")
	stale := filepath.Join(dir, "stale.trend.db")
	writeReplacement(b, stale, false, 4096)
	copyFile(src+"-wal", stale+"-wal")
	db.Close()
	none := filepath.Join(dir, "none.trend.db")
	writeReplacement(b, none, true, 4096)
	for _, c := range []struct {
		name, path string
		foreign    bool
	}{{"no-wal", none, false}, {"own-wal", own, false}, {"foreign-wal", stale, true}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got := foreignWAL(c.path) != ""; got != c.foreign {
					b.Fatalf("foreign %v", got)
				}
			}
		})
	}
}
