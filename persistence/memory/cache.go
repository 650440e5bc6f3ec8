package memory

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/agentsnap/agentsnap/session"
)

// eventLog is a log kept as events: what reading its bytes gives back.
type eventLog struct {
	kept  [][]kept                 // in blocks that never move
	count int                      // events kept
	types []string                 // the event types kept events name
	whole map[int64]*session.Event // events kept whole, by seq
}

// kept is one event as Read gives it back, in a form without pointers,
// which the garbage collector need not scan: the type by number, the data
// by where it is in the backend's arena. The seq is the event's index.
// Events with sourceEventSeqs, surfaceOp or extra members are kept whole
// beside.
type kept struct {
	time  int64
	data  span
	typ   uint16 // index in eventLog.types
	flags uint8
	_     uint8
}

const (
	hasData = 1 << iota
	ignorable
	whole
)

// Blocks of kept events double with the log up to a fixed size: a short
// log allocates little, a long one few blocks.
const (
	firstEvents = 64
	maxEvents   = 1024
)

// keep adds e as the reader would give it back from e's line, its data
// copied into data. The
// coordinator validated e, so its raw members read back byte for byte; a
// type or member name that is not UTF-8 (read back with U+FFFD) or a seq
// out of order does not, and keep refuses it: the log is then kept as
// bytes.
func (l *eventLog) keep(e *session.Event, data *arena) bool {
	typ, ok := l.typeIndex(e.Type)
	if !ok || e.Seq != int64(l.count) || !validKeys(e) {
		return false
	}
	k := kept{time: e.Time, typ: typ}
	if e.Ignorable {
		k.flags |= ignorable
	}
	switch {
	case e.SourceEventSeqs != nil || e.SurfaceOp != nil || len(e.Extra) > 0:
		k.flags |= whole
		if l.whole == nil {
			l.whole = map[int64]*session.Event{}
		}
		l.whole[e.Seq] = cloneEvent(e)
	case e.Data != nil:
		k.flags |= hasData
		k.data = data.add(e.Data)
	}
	l.add(k)
	return true
}

func (l *eventLog) add(k kept) {
	n := len(l.kept)
	if n == 0 || len(l.kept[n-1]) == cap(l.kept[n-1]) {
		l.kept = append(l.kept, make([]kept, 0, min(max(firstEvents, l.count), maxEvents)))
		n++
	}
	l.kept[n-1] = append(l.kept[n-1], k)
	l.count++
}

// share keeps the leading events of a new log that its parent's log holds
// at the same seqs — a fork's seed — by sharing the parent's data instead
// of copying it, and returns how many it kept. Equal here means the same
// line: the same type, time, data and members.
func (l *eventLog) share(parent *eventLog, data *arena, events []session.Event) int {
	n := 0
	for _, blk := range parent.kept {
		for _, k := range blk {
			if n == len(events) || !sameEvent(&events[n], n, k, parent.types, data) {
				return n
			}
			typ, _ := l.typeIndex(events[n].Type) // UTF-8: the parent kept it
			k.typ = typ
			l.add(k)
			n++
		}
	}
	return n
}

// sameEvent reports whether e, at seq, is the event k keeps (whole events
// never count: they are rare enough to copy).
func sameEvent(e *session.Event, seq int, k kept, types []string, data *arena) bool {
	switch {
	case k.flags&whole != 0 || e.SourceEventSeqs != nil || e.SurfaceOp != nil || len(e.Extra) > 0:
		return false
	case e.Seq != int64(seq) || e.Time != k.time || e.Ignorable != (k.flags&ignorable != 0) || types[k.typ] != e.Type:
		return false
	case k.flags&hasData == 0:
		return e.Data == nil
	}
	return e.Data != nil && bytes.Equal(data.bytes(k.data), e.Data)
}

// typeIndex numbers an event type that reads back as itself (UTF-8).
func (l *eventLog) typeIndex(t string) (uint16, bool) {
	for i := len(l.types) - 1; i >= 0; i-- {
		if l.types[i] == t {
			return uint16(i), true
		}
	}
	if !utf8.ValidString(t) || len(l.types) > 1<<16-1 {
		return 0, false
	}
	l.types = append(l.types, t)
	return uint16(len(l.types) - 1), true
}

// all returns the kept events as new Events, which the caller may change:
// slices and maps are its own; Data and SurfaceOp bytes are shared and must
// not be written to.
func (l *eventLog) all(data *arena) []session.Event {
	if l.count == 0 {
		return nil
	}
	out := make([]session.Event, l.count)
	i := 0
	for _, blk := range l.kept {
		for _, k := range blk {
			e := &out[i]
			if k.flags&whole != 0 {
				w := l.whole[int64(i)]
				*e = *w
				e.SourceEventSeqs = slices.Clone(w.SourceEventSeqs)
				e.Extra = maps.Clone(w.Extra)
			} else {
				e.Type, e.Seq, e.Time, e.Ignorable = l.types[k.typ], int64(i), k.time, k.flags&ignorable != 0
				if k.flags&hasData != 0 {
					e.Data = data.bytes(k.data)
				}
			}
			i++
		}
	}
	return out
}

func validKeys(e *session.Event) bool {
	for k := range e.Extra {
		if !utf8.ValidString(k) {
			return false
		}
	}
	return true
}

// cloneEvent copies e with raw members of its own.
func cloneEvent(e *session.Event) *session.Event {
	c := &session.Event{Type: e.Type, Seq: e.Seq, Time: e.Time, Ignorable: e.Ignorable,
		Data: cloneRaw(e.Data), SurfaceOp: cloneRaw(e.SurfaceOp)}
	if e.SourceEventSeqs != nil {
		c.SourceEventSeqs = append([]int64{}, e.SourceEventSeqs...)
	}
	for name, v := range e.Extra {
		if c.Extra == nil {
			c.Extra = make(map[string]json.RawMessage, len(e.Extra))
		}
		c.Extra[name] = cloneRaw(v)
	}
	return c
}

// cloneRaw copies a raw member, keeping nil (absent) apart from empty.
func cloneRaw(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}
