//go:build !race

package responses

const raceEnabled = false
