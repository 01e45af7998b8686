package ingest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"spikescope/model"
)

// Monitor output names (formats.md §1.2, §1.6, §5.1).
var (
	// rankDirV1RE is msprobe's OUTPUT_DIR_PATTERN: "<time tag>-rank<R>-<uuid>".
	rankDirV1RE = regexp.MustCompile(`([\w-]{0,20})-rank(\d{1,5})-`)
	// rankDirV2RE is monitor v2's "rank_<R>" and the plain "rank<R>".
	rankDirV2RE = regexp.MustCompile(`^rank_?(\d{1,5})$`)
	// csvV1NameRE is "<metric>_<a>-<b>[_part_<k>].csv".
	csvV1NameRE = regexp.MustCompile(`^([a-z_]+?)_(\d+)-(\d+)(?:_part_(\d+))?\.csv$`)
	// csvV2NameRE is monitor v2's "<slug>_step<a>-<b>[_part_<k>].csv" (a
	// slug as CSVWriterV2._safe_slug leaves it).
	csvV2NameRE = regexp.MustCompile(`^([A-Za-z0-9_.-]+?)_step(\d+)-(\d+)(?:_part_(\d+))?\.csv$`)
	// csvV2SlugRE is monitor v2's "<slug>.csv": the name CSVWriterV2 gives a
	// file when the step it is told is not an integer (its steps are only
	// in the rows). Taken only in a folder named as CSVWriterV2 names a
	// rank's (rank_<R>; a dump's rank<R> folders are not).
	csvV2SlugRE    = regexp.MustCompile(`^([A-Za-z0-9_.-]+)\.csv$`)
	rankDirWriteV2 = regexp.MustCompile(`^rank_\d{1,5}$`)
)

// parseCSVNameIn is parseCSVName for a file in the folder named dir (its
// own name): a "<slug>.csv" in a v2 rank folder (rank_<R>) is a monitor v2
// file too.
func parseCSVNameIn(base, dir string) (metric string, start, part int, v2, ok bool) {
	if metric, start, part, v2, ok = parseCSVName(base); ok {
		return
	}
	if rankDirWriteV2.MatchString(dir) {
		if m := csvV2SlugRE.FindStringSubmatch(base); m != nil {
			return m[1], 0, 0, true, true
		}
	}
	return "", 0, 0, false, false
}

// rankOfDir returns the rank encoded in a folder's own name (never in the
// rest of its path: /home/frank1/... is not rank 1), the run's time tag for
// v1 folders, and whether the name is a rank folder at all.
func rankOfDir(name string) (rank int, tag string, ok bool) {
	if m := rankDirV1RE.FindStringSubmatch(name); m != nil {
		r, err := strconv.Atoi(m[2])
		return r, m[1], err == nil
	}
	if m := rankDirV2RE.FindStringSubmatch(name); m != nil {
		r, err := strconv.Atoi(m[1])
		return r, "", err == nil
	}
	return 0, "", false
}

// csvFile is one monitor CSV found by discovery.
type csvFile struct {
	path    string
	rank    int
	rankDir string // the rank folder it lies in, "" if none
	metric  string // v1 file-name prefix ("grad_unreduced"), or v2 slug ("weight_grad")
	v2Name  bool   // file name in the v2 form <slug>_step<a>-<b>.csv
	start   int    // step range start from the file name (sorting only)
	part    int
	size    int64
}

// parseCSVName classifies a monitor CSV file name.
func parseCSVName(base string) (metric string, start, part int, v2, ok bool) {
	if m := csvV2NameRE.FindStringSubmatch(base); m != nil {
		start, _ = strconv.Atoi(m[2])
		part, _ = strconv.Atoi(m[4])
		return m[1], start, part, true, true
	}
	if m := csvV1NameRE.FindStringSubmatch(base); m != nil {
		start, _ = strconv.Atoi(m[2])
		part, _ = strconv.Atoi(m[4])
		return m[1], start, part, false, true
	}
	return "", 0, 0, false, false
}

// discovery is the outcome of looking for monitor CSVs under a path.
type discovery struct {
	files    []csvFile
	warnings []model.Reason
	seen     int  // regular files looked at
	single   bool // path was one file, not a folder tree
	// runs lists the run folders of every rank that has several; runOrder
	// orders them by time tag (oldest 0) where the tags allow it.
	runs     map[int]map[string]bool
	runOrder map[string]int
}

// findMonitorCSVs lists the monitor CSVs at path (a file or a folder tree),
// each with the rank of the nearest rank folder around it.
func findMonitorCSVs(path string) (*discovery, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, statError(path, err)
	}
	if !st.IsDir() {
		return singleCSV(path, st)
	}
	disc := &discovery{}
	type dirInfo struct {
		rank    int
		rankDir string
	}
	dirs := map[string]dirInfo{}
	runs := map[int]map[string]bool{} // rank → rank folders
	var noRank, ignored []string
	root := walkRoot(path)
	err = filepath.WalkDir(root, func(p string, e fs.DirEntry, werr error) error {
		if werr != nil {
			if p == root {
				return openError(p, werr)
			}
			disc.warnings = append(disc.warnings, model.CSVUnreadable{Path: p, Err: fmt.Sprint(unwrapPathError(werr))})
			if e != nil && e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			info := dirInfo{}
			name := e.Name()
			if p != root {
				info = dirs[filepath.Dir(p)]
			} else if filepath.Base(path) != name {
				name = filepath.Base(filepath.Clean(path)) // a linked root: the name the user gave
				if _, _, ok := rankOfDir(name); !ok {
					name = e.Name()
				}
			}
			if r, _, ok := rankOfDir(name); ok {
				info = dirInfo{rank: r, rankDir: p}
			}
			dirs[p] = info
			return nil
		}
		fi, ok := regularFile(p, e)
		if !ok {
			return nil
		}
		disc.seen++
		base := e.Name()
		if !strings.HasSuffix(strings.ToLower(base), ".csv") {
			return nil
		}
		metric, start, part, v2, ok := parseCSVNameIn(base, filepath.Base(filepath.Dir(p)))
		if !ok {
			ignored = append(ignored, base)
			return nil
		}
		info := dirs[filepath.Dir(p)]
		if info.rankDir == "" {
			noRank = append(noRank, p)
		} else {
			if runs[info.rank] == nil {
				runs[info.rank] = map[string]bool{}
			}
			runs[info.rank][info.rankDir] = true
		}
		disc.files = append(disc.files, csvFile{path: p, rank: info.rank, rankDir: info.rankDir, metric: metric, v2Name: v2, start: start, part: part, size: fi.Size()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Slice(disc.files, func(i, j int) bool {
		a, b := disc.files[i], disc.files[j]
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		if a.rankDir != b.rankDir {
			return a.rankDir < b.rankDir
		}
		if a.metric != b.metric {
			return a.metric < b.metric
		}
		if a.start != b.start {
			return a.start < b.start
		}
		if a.part != b.part {
			return a.part < b.part
		}
		return a.path < b.path
	})
	disc.runs = map[int]map[string]bool{}
	for r, dirs := range runs {
		if len(dirs) > 1 {
			disc.runs[r] = dirs
		}
	}
	var unordered []int
	disc.runOrder, unordered = runFolderOrder(disc.runs)
	for _, r := range unordered {
		disc.warnings = append(disc.warnings, runsWarning(r, disc.runs[r], false, 0))
	}
	if len(noRank) > 0 {
		disc.warnings = append(disc.warnings, model.CSVNoRankFolder{Count: len(noRank), Example: noRank[0]})
	}
	if len(ignored) > 0 {
		sort.Strings(ignored)
		disc.warnings = append(disc.warnings, model.CSVNotMonitor{Count: len(ignored), Example: ignored[0]})
	}
	return disc, nil
}

// singleCSV describes a CSV given directly: its rank comes from its own
// folder's name when that is a rank folder.
func singleCSV(path string, st os.FileInfo) (*discovery, error) {
	disc := &discovery{seen: 1, single: true}
	base := filepath.Base(path)
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	dir := filepath.Dir(abs)
	metric, start, part, v2, ok := parseCSVNameIn(base, filepath.Base(dir))
	if !ok {
		metric = strings.TrimSuffix(base, filepath.Ext(base))
		disc.warnings = append(disc.warnings, model.CSVFileName{Path: path, Metric: metric})
	}
	rank, _, isRank := rankOfDir(filepath.Base(dir))
	f := csvFile{path: path, rank: rank, metric: metric, v2Name: v2, start: start, part: part, size: st.Size()}
	if isRank {
		f.rankDir = dir
	} else {
		disc.warnings = append(disc.warnings, model.CSVNotRankFolder{Path: path})
	}
	disc.files = []csvFile{f}
	return disc, nil
}

func sortedIntKeys[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}
