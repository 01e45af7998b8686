package analysis

import (
	"fmt"
	"sort"

	"spikescope/model"
)

// AlignmentSummary says how many records of one dump have a comparable
// counterpart in another (`spikescope inspect A --against B`).
type AlignmentSummary struct {
	Records int `json:"records"` // records of A (every pass)
	Aligned int `json:"aligned"` // of them, paired with a record of B and comparable
	// Reasons: why the others are not, most frequent first.
	Reasons []ReasonCount `json:"reasons"`
	// Note says which name map was used ("" when both name alike).
	Note string `json:"note,omitempty"`
	// NoteReason is what Note says (words fills Note).
	NoteReason model.Reason `json:"-"`
}

// ReasonCount is one reason and how many records it holds back.
type ReasonCount struct {
	Reason string `json:"reason"`
	Count  int    `json:"count"`
	// Why is what Reason says (words fills Reason; ties in Count are then
	// ordered by it).
	Why model.Reason `json:"-"`
}

// AlignDumps pairs every record of a with b the way Phase 3 does (the same
// key alignment, name map and checks) and counts those that align.
func AlignDumps(a, b *model.Dump, lm *model.LayerMapping) AlignmentSummary {
	out := AlignmentSummary{Reasons: []ReasonCount{}}
	if a == nil || b == nil {
		return out
	}
	dumps := []*model.Dump{a, b}
	s := learnLayerScheme(dumps...)
	maps, note := nameMaps(lm, s.Word, dumps)
	var na, nb *nameMapper
	if maps != nil {
		s = learnLayerSchemeMapped(maps, dumps...)
		na, nb = maps[0], maps[1]
	}
	out.NoteReason = note
	xa, xb := indexDumpMapped(a, s, na), indexDumpMapped(b, s, nb)
	// reasons counted by their values (a NaN is not equal to itself: the
	// printed values are the key)
	why := map[string]*ReasonCount{}
	for i := range a.Ops {
		out.Records++
		j := pair(xa, int32(i), xb)
		if ok, r := checkPair(xa, int32(i), xb, j, "A", "B"); ok {
			out.Aligned++
		} else {
			k := fmt.Sprintf("%T %v", r, r)
			if why[k] == nil {
				why[k] = &ReasonCount{Why: r}
			}
			why[k].Count++
		}
	}
	keys := make([]string, 0, len(why))
	for k := range why {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out.Reasons = append(out.Reasons, *why[k])
	}
	sort.SliceStable(out.Reasons, func(i, j int) bool { return out.Reasons[i].Count > out.Reasons[j].Count })
	return out
}
