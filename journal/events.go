package journal

import "github.com/agentsnap/agentsnap/session"

// eventList is the events a journal has yet to store, in blocks that never
// move once allocated: appending copies no earlier event, where one growing
// slice would copy each event several times over a long stream. A Flush
// hands the store a capped view of them and, once they are stored, the
// list lets them go (release); the events after them are appended into the
// rest of the last block, so a view handed to the store is never written
// again, as chunk payloads are not (see Journal.encodeChunk).
type eventList struct {
	blocks [][]session.Event // blocks of unstored events, the last being filled
	n      int               // events held
	added  int               // events added since all were let go, which sizes new blocks
	turn   int               // events added between the last two times all were let go
}

// Block sizes in events: the first block of a list, and the largest. A
// journal holds at most one block of stored events — the part before the
// unstored ones in the block being filled — so the largest is small. The
// first is small too: most sessions of a scenario set are a subagent's few
// turns, and an event is 120 bytes (64 of them made a check of the repo's
// fixtures allocate 3.5 % more).
const (
	firstBlock = 16
	maxBlock   = 256
)

func (l *eventList) len() int { return l.n }

func (l *eventList) add(e session.Event) {
	last := len(l.blocks) - 1
	if last < 0 || len(l.blocks[last]) == cap(l.blocks[last]) {
		// A turn's first block holds what the last turn added; a block
		// filled up is followed by one as large as what came before it.
		l.blocks = append(l.blocks, make([]session.Event, 0, min(max(l.added, l.turn, firstBlock), maxBlock)))
		last++
	}
	l.blocks[last] = append(l.blocks[last], e)
	l.n++
	l.added++
}

// release lets every event held go: the store has them. What is left of
// the last block's room takes the next events, unless all: the block then
// goes too (it holds the stored events, and through them their payloads).
func (l *eventList) release(all bool) {
	var room []session.Event
	if last := len(l.blocks) - 1; last >= 0 && !all {
		b := l.blocks[last]
		room = b[len(b):]
	}
	clear(l.blocks) // the blocks go with the stored events in them
	l.blocks = l.blocks[:0]
	if cap(room) > 0 {
		l.blocks = append(l.blocks, room)
	}
	l.n = 0
	if all && l.added > 0 {
		// Sized by every event ever added, a session's blocks grew to the
		// largest after a few turns, and each turn after that took one
		// for its few dozen events: five times the events' bytes.
		l.turn, l.added = l.added, 0
	}
}

// slice returns the held events [from, to): a capped view when they lie in
// one block, else a copy.
func (l *eventList) slice(from, to int) []session.Event {
	start := 0
	for _, b := range l.blocks {
		if from >= start && to <= start+len(b) {
			return b[from-start : to-start : to-start]
		}
		start += len(b)
	}
	return l.appendTo(nil, from, to)
}

// appendTo appends the held events [from, to) to dst.
func (l *eventList) appendTo(dst []session.Event, from, to int) []session.Event {
	if dst == nil && to > from {
		dst = make([]session.Event, 0, to-from)
	}
	start := 0
	for _, b := range l.blocks {
		end := start + len(b)
		if lo, hi := max(from, start), min(to, end); lo < hi {
			dst = append(dst, b[lo-start:hi-start]...)
		}
		start = end
	}
	return dst
}
