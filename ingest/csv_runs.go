package ingest

import (
	"path/filepath"
	"sort"
	"time"

	"spikescope/model"
)

// runTagLayout is msprobe's rank-folder time tag, strftime('%b%d_%H-%M-%S')
// (formats.md §1.2): "Mar03_14-02-16". It has no year.
const runTagLayout = "Jan02_15-04-05"

// runFolderOrder orders the run folders of every rank that has several (a
// run that crashed and was resumed writes a new "<time>-rank<R>-<uuid>"
// folder per rank) by their time tags, oldest first. A rank whose folders do
// not all carry a parseable, distinct tag is left out: its order is unknown.
// The tag has no year, so runs either side of a new year sort wrongly; that
// is the price of trusting the names msprobe writes rather than file times,
// which copying changes.
func runFolderOrder(runs map[int]map[string]bool) (order map[string]int, unordered []int) {
	order = map[string]int{}
	for _, r := range sortedIntKeys(runs) {
		if len(runs[r]) < 2 {
			continue
		}
		type run struct {
			dir string
			at  time.Time
		}
		var rs []run
		ok := true
		seen := map[time.Time]bool{}
		for d := range runs[r] {
			_, tag, isRank := rankOfDir(filepath.Base(d))
			at, err := time.Parse(runTagLayout, tag)
			if !isRank || err != nil || seen[at] {
				ok = false
				break
			}
			seen[at] = true
			rs = append(rs, run{d, at})
		}
		if !ok {
			unordered = append(unordered, r)
			continue
		}
		sort.Slice(rs, func(i, j int) bool { return rs[i].at.Before(rs[j].at) })
		for i, x := range rs {
			order[x.dir] = i
		}
	}
	return order, unordered
}

// rowKey is one (rank, metric, step) of monitor rows.
type rowKey struct {
	rank, step int32
	metric     uint8
}

// dropSupersededRuns keeps, for every (rank, metric, step) written by
// several run folders of one rank, only the rows of the latest run: a
// resumed run re-computes the steps after its checkpoint, and the crashed
// run's rows of those steps describe a trajectory that training abandoned.
// Keeping both would put two values at one coordinate and make every
// re-run step look like a jump. folderOrder[i] is row i's run position
// (oldest 0) or -1 for a rank with one folder. It returns the rows dropped
// per rank.
func dropSupersededRuns(rows *model.Rows, folderOrder []int16) map[int32]int {
	latest := map[rowKey]int16{}
	for i, o := range folderOrder {
		if o < 0 {
			continue
		}
		k := rowKey{rows.RankOf(i), rows.Step[i], rows.MetricOf(i)}
		if cur, ok := latest[k]; !ok || o > cur {
			latest[k] = o
		}
	}
	dropped := map[int32]int{}
	w := 0
	for i, o := range folderOrder {
		if o >= 0 && o < latest[rowKey{rows.RankOf(i), rows.Step[i], rows.MetricOf(i)}] {
			dropped[rows.RankOf(i)]++
			continue
		}
		if w != i {
			rows.Move(w, i)
		}
		w++
	}
	rows.Truncate(w)
	return dropped
}

// runsWarning says how a rank's several run folders were combined.
func runsWarning(rank int, dirs map[string]bool, ordered bool, dropped int) model.Reason {
	var names []string
	for d := range dirs {
		names = append(names, filepath.Base(d))
	}
	sort.Strings(names)
	if !ordered {
		dropped = 0
	}
	return model.CSVRuns{Rank: rank, Folders: names, Ordered: ordered, Dropped: dropped}
}
