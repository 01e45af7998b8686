package ingest

import (
	"sync"

	"spikescope/model"
)

// csvTargets finds the file-local index of each row's (name, vpp_stage)
// without hashing in the common case. A monitor CSV lists its targets in
// one order, once per micro step, and the next file of the same metric
// lists them in the same order again, so a row's target is almost always
// the one after the previous row's, or — the first time it appears — the
// next one of the previous file's list (whose name string is then shared,
// not copied). Only when both guesses fail is a map built; it holds the
// file's targets from then on.
type csvTargets struct {
	list  []model.Target
	prev  []model.Target // the previous file's targets in first-seen order
	own   []model.Target // the parser's own array for prev when the list is recycled
	last  int            // index of the previous row's target
	byKey map[targetKey]int32
}

// csvNames interns target names across files and readers: a name is one
// string however many files list it. Consulted only for a target new to a
// file that the guesses missed.
//
// It lives for the process, on purpose, and is bounded. What it keeps
// beyond the data is a map entry per name (80 B measured, the name's bytes
// are the data's) and the names of data no longer held; at the bound that
// is at most about 140 MB, reached only by a million distinct names, and
// then it starts over (names interned before stay valid, later copies are
// merely not shared). A follower running for days holds every name it
// ever read in its own data (targets are only added), so the table costs
// it at most 80 B per name on top of that, and a tree read again after a
// replaced file finds its names here instead of copying them again. A
// per-load table would free the dead names of a finished load, but every
// process reads one input set and keeps it, so there is nothing to free;
// unique.Make's weak entries would drop a name's sharing at each GC.
var csvNames struct {
	sync.Mutex
	m map[string]string
}

// csvNamesMax bounds the names kept (a tree with more starts over).
const csvNamesMax = 1 << 20

func internName(b []byte) string {
	csvNames.Lock()
	defer csvNames.Unlock()
	if s, ok := csvNames.m[string(b)]; ok {
		return s
	}
	if csvNames.m == nil || len(csvNames.m) >= csvNamesMax {
		csvNames.m = map[string]string{}
	}
	s := string(b)
	csvNames.m[s] = s
	return s
}

func (t *csvTargets) reset(prev []model.Target) {
	t.list, t.prev, t.last, t.byKey = nil, prev, -1, nil
}

// find returns the index of (name, vpp), adding it when new. name is
// copied (or interned) when kept.
func (t *csvTargets) find(name []byte, vpp int) int32 {
	n := len(t.list)
	if n > 0 {
		p := t.last + 1
		if p == n {
			p = 0
		}
		if g := &t.list[p]; g.VPPStage == vpp && g.Name == string(name) {
			t.last = p
			return int32(p)
		}
	}
	if t.byKey == nil {
		// in step with prev so far: list == prev[:n], and prev has no
		// repeats, so prev[n] is not in list yet
		if n < len(t.prev) {
			if g := t.prev[n]; g.VPPStage == vpp && g.Name == string(name) {
				t.list = append(t.list, g)
				t.last = n
				return int32(n)
			}
		}
		t.byKey = make(map[targetKey]int32, max(n, 64))
		for i, g := range t.list {
			t.byKey[targetKey{g.Name, g.VPPStage}] = int32(i)
		}
	}
	if i, ok := t.byKey[targetKey{string(name), vpp}]; ok {
		t.last = int(i)
		return i
	}
	s := internName(name)
	t.list = append(t.list, model.Target{Name: s, VPPStage: vpp})
	t.byKey[targetKey{s, vpp}] = int32(n)
	t.last = n
	return int32(n)
}
