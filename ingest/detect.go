package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"spikescope/model"
)

// walkRoot is the folder to walk for path: filepath.WalkDir does not
// descend into a root that is a symbolic link, so a linked data folder is
// resolved first.
func walkRoot(path string) string {
	if st, err := os.Lstat(path); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		if r, err := filepath.EvalSymlinks(path); err == nil {
			return r
		}
	}
	return path
}

// regularFile reports whether a walked entry is a regular file, following
// a symbolic link to a file (linked folders are not followed: no cycles).
func regularFile(p string, e fs.DirEntry) (os.FileInfo, bool) {
	if e.Type().IsRegular() {
		fi, err := e.Info()
		return fi, err == nil
	}
	if e.Type()&fs.ModeSymlink != 0 {
		fi, err := os.Stat(p)
		return fi, err == nil && fi.Mode().IsRegular()
	}
	return nil, false
}

// errStopWalk ends a directory walk early once the answer is known.
var errStopWalk = errors.New("stop walk")

// DetectFormat tells what path holds:
//   - a file with the SQLite header → trenddb (whatever its extension);
//     a .csv file → csv; a file named dump.json → dump;
//   - a folder: monitor CSVs anywhere below → csv; else a trend database
//     (*.trend.db, trend.db, monitor_metrics.db, any *.db) → trenddb; else a
//     dump.json anywhere below (step*/rank*/…, rank/, proc*/ or directly) →
//     dump. Monitor CSVs win over a trend.db built from them because they
//     keep the optimizer-step boundaries.
//
// Every failure is an *InputError with its own problem: path does not
// exist, empty folder, folder with no recognised file, 0-byte file,
// unreadable file, unrecognised file.
func DetectFormat(path string) (model.Format, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", statError(path, err)
	}
	if !st.IsDir() {
		return detectFile(path)
	}
	return detectFolder(path)
}

func detectFile(path string) (model.Format, error) {
	head, err := checkFileReadable(path)
	if err != nil {
		return "", err
	}
	base := strings.ToLower(filepath.Base(path))
	if kind := compressedKind(head); kind != "" {
		return "", inputErr(path, nil, "%s-compressed file: decompress it first", kind)
	}
	switch {
	case isSQLiteHead(head):
		return model.FormatTrendDB, nil
	case strings.HasSuffix(base, ".db"):
		return "", inputErr(path, nil, "not an SQLite database (file header is not %q)", strings.TrimRight(sqliteMagic, "\x00"))
	case strings.HasSuffix(base, ".csv"):
		return model.FormatCSV, nil
	case base == "dump.json":
		return model.FormatDump, nil
	}
	return "", inputErr(path, nil, "unrecognised file: expected a trend.db, a monitor CSV, a dump.json or a folder of them")
}

// compressedKind names the compression of a file from its first bytes, or
// "" (users pass dump.json.gz or a zipped run folder as they got it).
func compressedKind(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return "gzip"
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		return "zip"
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return "zstd"
	case bytes.HasPrefix(head, []byte("BZh")):
		return "bzip2"
	case bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return "xz"
	}
	return ""
}

// isCompressedName reports whether a file name ends like an archive.
func isCompressedName(base string) bool {
	b := strings.ToLower(base)
	for _, ext := range []string{".gz", ".tgz", ".zip", ".zst", ".bz2", ".xz", ".tar"} {
		if strings.HasSuffix(b, ext) {
			return true
		}
	}
	return false
}

// isTrendDBName reports whether a file name looks like a trend database.
func isTrendDBName(base string) bool {
	return strings.HasSuffix(strings.ToLower(base), ".db")
}

// Dump tree levels LoadDumpTree accepts above dump.json:
// [graph|pynative/] [step<N>/] rank<N>|rank|proc<pid>/ (or none at all).
var (
	dumpModeDirRE = regexp.MustCompile(`^(graph|pynative)$`)
	dumpStepDirRE = regexp.MustCompile(`^step\d+$`)
	dumpRankDirRE = regexp.MustCompile(`^(rank\d*|proc\d+)$`)
)

// dumpLayoutRoot strips the dump tree levels from the end of rel (the
// folders between the given path and a dump.json) and returns what is
// left: nothing when the given path is a dump root LoadDumpTree reads.
func dumpLayoutRoot(rel []string) []string {
	n := len(rel)
	switch {
	case n > 0 && dumpRankDirRE.MatchString(rel[n-1]):
		n--
	case n > 1 && dumpStepDirRE.MatchString(rel[n-1]) && dumpStepDirRE.MatchString(rel[n-2]):
		n-- // msprobe's own step1/step1/ test layout: the inner step stands for a rank
	}
	if n > 0 && dumpStepDirRE.MatchString(rel[n-1]) {
		n--
	}
	if n > 0 && dumpModeDirRE.MatchString(rel[n-1]) {
		n--
	}
	return rel[:n]
}

func detectFolder(path string) (model.Format, error) {
	var seen, subdirs, others, unreadable, compressed int
	var sawDB, sawDump bool
	var deepDump string // a dump.json whose tree root lies below path
	var sawTensorBoard bool
	root := walkRoot(path)
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, werr error) error {
		if werr != nil {
			if p == root {
				return openError(p, werr)
			}
			unreadable++
			if e != nil && e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			if p != root {
				subdirs++
			}
			return nil
		}
		if _, ok := regularFile(p, e); !ok {
			others++
			return nil
		}
		seen++
		base := e.Name()
		if _, _, _, _, ok := parseCSVNameIn(base, filepath.Base(filepath.Dir(p))); ok {
			return errStopWalk
		}
		switch {
		case strings.HasPrefix(base, "events.out.tfevents"):
			sawTensorBoard = true
		case base == "dump.json":
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			var parts []string
			if rel != "." {
				parts = strings.Split(filepath.ToSlash(rel), "/")
			}
			if root := dumpLayoutRoot(parts); len(root) == 0 {
				sawDump = true
			} else if deepDump == "" {
				deepDump = filepath.Join(path, filepath.Join(root...))
			}
		case isTrendDBName(base):
			sawDB = true
		case isCompressedName(base):
			compressed++
		}
		return nil
	})
	switch {
	case err == errStopWalk:
		return model.FormatCSV, nil
	case err != nil:
		return "", err
	case sawDB:
		return model.FormatTrendDB, nil
	case sawDump:
		return model.FormatDump, nil
	case seen == 0 && subdirs+others+unreadable == 0:
		return "", inputErr(path, nil, "empty folder")
	case seen == 0:
		return "", inputErr(path, nil, "no files to read here (%s)", folderContents(subdirs, others, unreadable))
	case sawTensorBoard:
		return "", inputErr(path, nil, "only TensorBoard event files here (monitor format \"tensorboard\"), which spikescope does not read: rerun the monitor with \"format\": \"csv\"")
	case compressed > 0:
		return "", inputErr(path, nil, "no monitor CSV, trend.db or dump.json here, but %d compressed file(s) (.gz, .zip, …): decompress them first", compressed)
	case deepDump != "":
		return "", inputErr(path, nil, "no monitor data here, and the dump.json files lie deeper than a dump tree (step<N>/rank<N>/dump.json): open %s instead", deepDump)
	}
	return "", inputErr(path, nil, "no monitor CSV, trend.db or dump.json in this folder (%d file(s) looked at)", seen)
}

// folderContents words what a folder without readable files holds.
func folderContents(subdirs, others, unreadable int) string {
	var parts []string
	if subdirs > 0 {
		parts = append(parts, fmt.Sprintf("%d subfolder(s) without files", subdirs))
	}
	if others > 0 {
		parts = append(parts, fmt.Sprintf("%d entries that are not files (links to folders, broken links, pipes or devices)", others))
	}
	if unreadable > 0 {
		parts = append(parts, fmt.Sprintf("%d entries that cannot be read", unreadable))
	}
	return strings.Join(parts, ", ")
}

// trendDBPreference ranks database file names: msprobe data2db's output
// first, then the MSA name, then Gen A, then any other .db.
func trendDBPreference(base string) int {
	b := strings.ToLower(base)
	switch {
	case b == "monitor_data.trend.db":
		return 0
	case strings.HasSuffix(b, ".trend.db") && b != "dump_data.trend.db":
		return 1
	case b == "trend.db":
		return 2
	case b == "monitor_metrics.db":
		return 3
	case b == "dump_data.trend.db":
		return 5
	}
	return 4
}

// findTrendDBFile picks the database to read inside a folder, with a warning
// when there was a choice.
func findTrendDBFile(dir string) (string, []model.Reason, error) {
	var found []string
	root := walkRoot(dir)
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, werr error) error {
		if werr != nil {
			if p == root {
				return openError(p, werr)
			}
			if e != nil && e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if e.IsDir() || !isTrendDBName(e.Name()) {
			return nil
		}
		if _, ok := regularFile(p, e); ok {
			found = append(found, p)
		}
		return nil
	})
	if err != nil {
		return "", nil, err
	}
	if len(found) == 0 {
		return "", nil, inputErr(dir, nil, "no trend database (*.db) in this folder")
	}
	sort.SliceStable(found, func(i, j int) bool {
		pi, pj := trendDBPreference(filepath.Base(found[i])), trendDBPreference(filepath.Base(found[j]))
		if pi != pj {
			return pi < pj
		}
		return found[i] < found[j]
	})
	var warn []model.Reason
	if len(found) > 1 {
		warn = append(warn, model.TrendSeveralDBs{Dir: dir, Read: found[0], Others: found[1:]})
	}
	return found[0], warn, nil
}
