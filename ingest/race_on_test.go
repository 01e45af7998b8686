//go:build race

package ingest

// raceDetector: the race detector is on (sync.Pool then drops items at
// random, so allocation counts do not hold).
const raceDetector = true
