package model

// AllDigits reports whether s is a non-empty run of ASCII digits: a layer
// index or call number segment of a module path ("layers.12", "forward.0").
// The name readers (ingest's operator keys, the analysis' alignment, the
// UI's shortener) ask the same question of the same names.
func AllDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
