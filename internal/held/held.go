// Package held counts what the code promises to hold in memory only a few
// of at once, so a spec can hold it to the promise: the recording's logs
// a verdict reads (agentsnap serve's verdict holds one per processor, not
// the whole recording).
package held

import "sync"

// Gauge counts things held now, and the most held at once since Reset.
// It is safe for concurrent use.
type Gauge struct {
	mu              sync.Mutex
	now, peak, base int
}

// Take counts n more things held.
func (g *Gauge) Take(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.now += n
	g.peak = max(g.peak, g.now)
}

// Drop counts n things let go.
func (g *Gauge) Drop(n int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.now -= n
}

// Peak returns the most things held at once since Reset, beyond those
// held then.
func (g *Gauge) Peak() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.peak - g.base
}

// Reset starts a new count: Peak counts from what is held now.
func (g *Gauge) Reset() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.peak, g.base = g.now, g.now
}

// RecordingLogs counts the fixture logs in memory that were read from
// their files: fixture.ReadLogs's stay counted (the fixture holds them),
// fixture.EachLog's while its callback has them, and those a verdict reads
// again (judge's, of the sessions that differ) while it compares them.
var RecordingLogs Gauge
