package journal

// Appending events to the session's log, and flushing them to the store.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentsnap/agentsnap/session"
)

// Emit appends an event of any type with payload (encoded as JSON; a
// json.RawMessage is kept as is, copied). Use it for event types of your own;
// readers keep them verbatim and derivation ignores them.
func (j *Journal) Emit(typ string, payload any) error {
	if raw, ok := payload.(json.RawMessage); ok {
		payload = json.RawMessage(bytes.Clone(raw)) // the caller may reuse it; the log's bytes are never written again
	}
	e, err := session.NewEvent(typ, payload)
	if err != nil {
		return fmt.Errorf("journal: session %s: %w", j.header.ID, err)
	}
	j.append(e)
	return nil
}

// emit appends an event whose payload is one of this package's own types,
// which always encode.
func (j *Journal) emit(typ string, payload any) {
	if err := j.Emit(typ, payload); err != nil {
		panic(err)
	}
}

// emitOwn appends an event whose payload is one of the types session
// encodes by hand (session.AppendData), into the arena: an event costs no
// allocation of its own. payload does not escape, so boxing it costs none
// either.
func (j *Journal) emitOwn(typ string, payload any) {
	b, ok := session.AppendData(j.scratch[:0], payload)
	if !ok {
		panic("journal: the payload of a " + typ + " event is not one session encodes by hand")
	}
	j.scratch = b
	j.append(session.Event{Type: typ, Data: j.keep(b)})
}

func (j *Journal) append(e session.Event) {
	e.Time = j.cfg.Clock().UnixMilli()
	j.mu.Lock()
	e.Seq = int64(j.stored + j.events.len()) // seqs count the released events too
	j.events.add(e)
	j.mu.Unlock()
}

// Flush appends the events not yet stored and returns when they are
// durable. It ignores ctx's cancellation, so an aborted turn still records
// how it ended. The writing calls that end a phase (BeginCall, ToolCalls,
// EndStep, EndTurn) flush on their own.
func (j *Journal) Flush(ctx context.Context) error {
	if !j.inTurn {
		j.writeRecords("", true) // what came after the turn ended
	}
	j.mu.Lock()
	batch := j.events.slice(0, j.events.len())
	from := j.stored
	j.mu.Unlock()
	if len(batch) == 0 {
		return nil
	}
	// A store in memory copies the payloads into blocks of its own, dense;
	// the journal lets its copy go once they are stored, so each chunk is
	// held once.
	if err := j.cfg.Store.Append(uncancelled(ctx), j.header.ID, batch); err != nil {
		return fmt.Errorf("journal: session %s: storing events %d-%d: %w", j.header.ID, from, from+len(batch)-1, err)
	}
	// Durable: the store has them, so the journal lets them go. Only the
	// session's goroutine appends, and it is here: the batch is every
	// event held.
	j.mu.Lock()
	j.stored += len(batch)
	j.events.release(!j.inTurn)
	j.mu.Unlock()
	if !j.inTurn {
		// Between turns a session may be done: a finished subagent's journal
		// holds no block of its payloads (the store copied them).
		j.arena = nil
	}
	return nil
}

// uncancelled is ctx without its cancellation: ctx itself when it has none
// (a nil Done: it can never be cancelled), saving an allocation per flush.
func uncancelled(ctx context.Context) context.Context {
	if ctx.Done() == nil {
		return ctx
	}
	return context.WithoutCancel(ctx)
}
