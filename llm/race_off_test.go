//go:build !race

package llm_test

// raceEnabled: the race detector drops a share of what sync.Pool is given,
// so allocation counts of pooled paths vary under it.
const raceEnabled = false
