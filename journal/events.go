package journal

import "github.com/agentsnap/agentsnap/session"

// eventList is a session's events in blocks that never move once
// allocated: appending copies no earlier event, where one growing slice
// would copy each event several times over a long log.
type eventList struct {
	blocks [][]session.Event // full blocks, then the one being filled
	n      int
}

// Block sizes in events: the first block of a list, and the largest.
const (
	firstBlock = 64
	maxBlock   = 1024
)

// newEventList starts a list with events, which it never writes to.
func newEventList(events []session.Event) eventList {
	if len(events) == 0 {
		return eventList{}
	}
	return eventList{blocks: [][]session.Event{events[:len(events):len(events)]}, n: len(events)}
}

func (l *eventList) len() int { return l.n }

func (l *eventList) add(e session.Event) {
	last := len(l.blocks) - 1
	if last < 0 || len(l.blocks[last]) == cap(l.blocks[last]) {
		l.blocks = append(l.blocks, make([]session.Event, 0, min(max(l.n, firstBlock), maxBlock)))
		last++
	}
	l.blocks[last] = append(l.blocks[last], e)
	l.n++
}

// slice returns events [from, to): a capped view when they lie in one
// block, else a copy.
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

// appendTo appends events [from, to) to dst.
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
