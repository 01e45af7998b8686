package model

// Trim gives every column with room to spare (a reader that appended
// grew them by doubling) an array of exactly its length, one column at a
// time: what a large load holds afterwards is the rows, not the slack of
// their growth. Columns without slack — mapped ones have none — stay.
func (r *Rows) Trim() {
	r.Rank, r.Step, r.micro, r.Target = trim(r.Rank), trim(r.Step), trim(r.micro), trim(r.Target)
	r.Metric, r.Norm, r.key = trim(r.Metric), trim(r.Norm), trim(r.key)
	for s := StatMin; s < NumStats; s++ {
		r.Stats[s] = trim(r.Stats[s])
	}
}

// Slack reports whether some column has room to spare that Trim would
// give up.
func (r *Rows) Slack() bool {
	if slack(r.Rank) || slack(r.Step) || slack(r.micro) || slack(r.Target) || slack(r.Metric) || slack(r.Norm) || slack(r.key) {
		return true
	}
	for _, c := range r.Stats {
		if slack(c) {
			return true
		}
	}
	return false
}

// slack: more spare room than 1/8 of the length. A copy costs a pass and,
// while it runs, the old and the new column at once: trimming the CSV
// merge's 5% growth room (about 1 byte a row) added 16 bytes a row to the
// load's peak while step, micro step and norm were copied. Only room far
// beyond an estimate (doubling, a row estimate far off) is worth that.
func slack[T any](s []T) bool { return cap(s)-len(s) > len(s)/8 }

// trim is s in an array of its length when it has slack.
func trim[T any](s []T) []T {
	if !slack(s) {
		return s
	}
	return append(make([]T, 0, len(s)), s...)
}
