package model

import "testing"

func TestAllDigits(t *testing.T) {
	for s, want := range map[string]bool{"0": true, "12": true, "": false, "1a": false, "-1": false, "+3": false, "١": false} {
		if got := AllDigits(s); got != want {
			t.Errorf("AllDigits(%q) = %v, want %v", s, got, want)
		}
	}
}
