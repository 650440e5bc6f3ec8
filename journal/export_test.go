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

// EventRoom runs an event list through turns of perTurn events each,
// stored every flushEvery events and all at each turn's end, as a journal
// does, and returns the events added and the room of every block it
// allocated for them.
func EventRoom(turns, perTurn, flushEvery int) (added, room int) {
	var l eventList
	for range turns {
		for i := range perTurn {
			var last *session.Event
			if n := len(l.blocks); n > 0 && cap(l.blocks[n-1]) > 0 {
				last = &l.blocks[n-1][:1][0]
			}
			l.add(session.Event{Seq: int64(added)})
			added++
			if b := l.blocks[len(l.blocks)-1]; &b[:1][0] != last {
				room += cap(b)
			}
			if (i+1)%flushEvery == 0 {
				l.release(false)
			}
		}
		l.release(true)
	}
	return added, room
}
