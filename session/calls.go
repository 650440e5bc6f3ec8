package session

import (
	"slices"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// ModelCall is one model call of a session: one attempt, so a retry is
// another call. ModelCalls finds them.
type ModelCall struct {
	Turn, Step int
	// Attempt counts from 1; it is 0 when the log records none (dsh).
	Attempt int
	// At is the index, in the events ModelCalls was given, of the event
	// that opened the call: its request/header, else (a log without
	// them) its first chunk, else its assistant/message.
	At int
}

// ModelCalls returns the model calls the events record, in order. It is
// the one definition of a model call that inspect, check, report, the
// budget, the recorder, the judge and the tree matchers all count.
//
// A call is its request/header (CONTRACT.md, sections 3 and 5): one per
// attempt, written before the request is sent, so a call the driver
// refused (a header, no chunks), a call that failed or was aborted, and a
// call a user's cancel cut short (chunks, no finish) count once each. The
// first chunk after a request/header is its call's, and so are the chunks
// after it that carry the same turn, step and attempt, up to the finish.
//
// A log written without them is counted by its streams: dsh's logs, whose
// request/header events hold a configuration with no turn or step and are
// no calls. There an assistant/chunk that is not the open call's opens a
// call (a chunk after a finish is a retry's), and an assistant/message of
// a turn and step without a call stands for one (a log that records the
// answer without its stream). An assistant/message ends its call.
//
// Events whose payload cannot be read open no call.
func ModelCalls(events []Event) []ModelCall {
	var c callCounter
	for i := range events {
		c.event(&events[i], i)
	}
	return c.calls
}

// ModelCalls returns the session's own model calls: those of its events
// from SeedLength on (a fork child's inherited prefix holds its parent's
// calls, which the parent counts). At indexes l.Own().
func (l *Log) ModelCalls() []ModelCall { return ModelCalls(l.Own()) }

// CountModelCalls returns len(ModelCalls(events)) without building the
// calls: what check and the judge show, for a log that may hold thousands.
func CountModelCalls(events []Event) int {
	c := callCounter{count: true}
	for i := range events {
		c.event(&events[i], i)
	}
	return c.n
}

// CountModelCalls returns len(l.ModelCalls()): the session's own calls,
// counted without building them.
func (l *Log) CountModelCalls() int { return CountModelCalls(l.Own()) }

// callCounter is ModelCalls' state: the calls so far and the open one.
// With count set it keeps only their number, n.
type callCounter struct {
	count bool
	n     int
	calls []ModelCall
	// few and made are the turns and steps of calls: the first ones in
	// few, without an allocation (most sessions make a handful of calls),
	// every one in made once few is full.
	few  [8][2]int
	nFew int
	made map[[2]int]bool
	open bool // the last call may take more chunks
	// chunks, key and finished describe the open call's stream: whether
	// it has chunks, the turn, step and attempt its first chunk carried,
	// whether one was a finish.
	chunks   bool
	key      [3]int
	finished bool
}

func (c *callCounter) event(e *Event, i int) {
	switch e.Type {
	case TypeRequestHeader:
		if turn, step, attempt, ok := headerKey(e.Data); ok {
			c.start(ModelCall{Turn: turn, Step: step, Attempt: attempt, At: i})
		}
	case TypeAssistantChunk:
		if key, finish, ok := chunkKey(e.Data); ok {
			c.chunk(key, finish, i)
		}
	case TypeAssistantMessage:
		turn, step, ok := TurnStep(e)
		if !ok {
			return
		}
		if !c.has(turn, step) {
			c.start(ModelCall{Turn: turn, Step: step, At: i})
		}
		c.open = false
	}
}

// chunk counts an assistant/chunk of key (turn, step, attempt) at index i.
func (c *callCounter) chunk(key [3]int, finish bool, i int) {
	if !c.joins(key) {
		c.start(ModelCall{Turn: key[0], Step: key[1], Attempt: key[2], At: i})
	}
	if !c.chunks {
		c.chunks, c.key = true, key
	}
	c.finished = c.finished || finish
}

// CallCounter numbers a session's model calls as [ModelCalls] finds them,
// one event at a time, for a reader that streams the log: the number of a
// call is the one inspect, drift, record --only-changed and the report
// give it. The zero value counts from the first event.
type CallCounter struct{ c callCounter }

// Add counts e and returns how many calls the events so far hold: for an
// event of a call (its request/header, a chunk of its stream), that call's
// number, from 1. chunk, when not nil, is e's payload, an assistant/chunk
// the caller has decoded already.
func (c *CallCounter) Add(e *Event, chunk *ChunkData) int {
	c.c.count = true
	if chunk != nil {
		c.c.chunk([3]int{chunk.Turn, chunk.Step, chunk.Attempt}, chunk.Chunk.IsFinish(), 0)
	} else {
		c.c.event(e, 0)
	}
	return c.c.n
}

func (c *callCounter) start(m ModelCall) {
	c.n++
	if !c.count {
		c.calls = append(c.calls, m)
	}
	k := [2]int{m.Turn, m.Step}
	switch {
	case c.made != nil:
		c.made[k] = true
	case c.nFew < len(c.few):
		c.few[c.nFew] = k
		c.nFew++
	default:
		c.made = make(map[[2]int]bool, 2*len(c.few))
		for _, f := range c.few {
			c.made[f] = true
		}
		c.made[k] = true
	}
	c.open, c.chunks, c.finished = true, false, false
}

// joins reports whether a chunk of key (turn, step, attempt) belongs to
// the open call: its first chunk, or one more of its stream (the same key
// as its first) before the finish.
func (c *callCounter) joins(key [3]int) bool {
	return c.open && !c.finished && (!c.chunks || key == c.key)
}

// has reports whether some call of (turn, step) was made.
func (c *callCounter) has(turn, step int) bool {
	k := [2]int{turn, step}
	if c.made != nil {
		return c.made[k]
	}
	return slices.Contains(c.few[:c.nFew], k)
}

// chunkKey reads what a call needs of an assistant/chunk payload: its
// turn, step and attempt, and whether it is a finish; ok is false when
// DecodeChunkData cannot read it. The layout AppendJSON writes is only
// checked, no string of it decoded (its check accepts exactly what
// DecodeChunkData's one-pass decoder does); any other goes through
// DecodeChunkData.
func chunkKey(data []byte) (key [3]int, finish, ok bool) {
	var d ChunkData
	if !d.canonical(&cursor{b: data, check: true}) {
		var err error
		if d, err = DecodeChunkData(data); err != nil {
			return key, false, false
		}
	}
	return [3]int{d.Turn, d.Step, d.Attempt}, d.Chunk.IsFinish(), true
}

// headerKey reads the turn, step and attempt of a request/header payload;
// ok is false for a payload that names no turn and step (dsh's, which
// records a configuration rather than a call).
func headerKey(data []byte) (turn, step, attempt int, ok bool) {
	if len(data) == 0 || data[0] != '{' {
		return 0, 0, 0, false
	}
	var sawTurn, sawStep bool
	_ = jsonscan.Members(data, func(key []byte, _ bool, val []byte) error {
		switch string(key) {
		case "turn", "step", "attempt":
		default:
			return nil // the digests and names: no number read, no error made
		}
		n, err := jsonscan.Int(val)
		if err != nil {
			return nil
		}
		switch string(key) {
		case "turn":
			turn, sawTurn = int(n), true
		case "step":
			step, sawStep = int(n), true
		case "attempt":
			attempt = int(n)
		}
		return nil
	})
	return turn, step, attempt, sawTurn && sawStep
}
