package held_test

import (
	"testing"

	"github.com/agentsnap/agentsnap/internal/held"
)

func TestGaugePeakSinceReset(t *testing.T) {
	var g held.Gauge
	g.Take(5) // held before the count starts
	g.Reset()
	if p := g.Peak(); p != 0 {
		t.Fatalf("peak right after Reset: %d, want 0", p)
	}
	g.Take(1)
	g.Take(2)
	g.Drop(2)
	g.Take(1)
	if p := g.Peak(); p != 3 {
		t.Fatalf("peak: %d, want 3 (1, then 2 more at once)", p)
	}
	g.Reset()
	g.Drop(1)
	if p := g.Peak(); p != 0 {
		t.Fatalf("peak after letting go: %d, want 0", p)
	}
}
