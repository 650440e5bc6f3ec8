package journal

import "github.com/agentsnap/agentsnap/session"

// Unstored returns a copy of the events j holds: those not yet stored.
func Unstored(j *Journal) []session.Event {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.events.appendTo(nil, 0, j.events.len())
}
