package journal

import "github.com/agentsnap/agentsnap/session"

// Unstored returns a copy of the events j holds: those not yet stored.
func Unstored(j *Journal) []session.Event {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.events.appendTo(nil, 0, j.events.len())
}

// HeldBlocks is how many blocks of events and bytes of chunk arena j holds.
func HeldBlocks(j *Journal) (blocks, arena int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.events.blocks), cap(j.arena)
}
