package wire

import (
	"net/http"
	"time"
)

// CallKey exposes callKey to the specs.
var CallKey = callKey

// TransportServers returns how many server goroutines rt (a Transport) has
// started, how many run and how many of those wait for a request.
func TransportServers(rt http.RoundTripper) (started, running, idle int) {
	t := rt.(*transport)
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.started, t.running, len(t.idle)
}

// SetIdleTimeout sets how long the server goroutines of rt (a Transport)
// wait for their next request.
func SetIdleTimeout(rt http.RoundTripper, d time.Duration) {
	t := rt.(*transport)
	t.mu.Lock()
	defer t.mu.Unlock()
	t.idleTimeout = d
}
