package journal_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/agentsnap/agentsnap/journal"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// sink is a store that writes events away and keeps none, as one on disk
// does: what is left on the heap after a session is recorded into it is
// what the journal holds.
type sink struct{ events int }

func (s *sink) Create(context.Context, session.Header, []session.Event) error { return nil }

func (s *sink) Append(_ context.Context, id string, events []session.Event) error {
	if len(events) > 0 && events[0].Seq != int64(s.events) {
		return fmt.Errorf("sink: session %s: batch starts at seq %d, want %d", id, events[0].Seq, s.events)
	}
	s.events += len(events)
	return nil
}

func (s *sink) Load(_ context.Context, id string) (*session.Log, error) {
	return nil, fmt.Errorf("sink: session %s: a sink keeps nothing to load", id)
}

func (s *sink) List(context.Context) ([]session.Header, error) { return nil, nil }
func (s *sink) Close() error                                   { return nil }

// BenchmarkJournalHeld records a long session (turns of a streamed answer
// each) into a store that keeps nothing and reports the heap the journal
// still holds at the end: the conversation a next model call sends, not
// the events already stored (held-B/event is then far below an event's
// size and its chunk payload).
func BenchmarkJournalHeld(b *testing.B) {
	const turns = 200
	text := strings.Repeat("a word or two of the answer, streamed in pieces; ", 20)
	chunks := llm.StreamMessage(llm.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart(text)}}, nil, "")
	var held, events uint64
	for b.Loop() {
		store := &sink{}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		j, err := journal.NewRoot(context.Background(), journal.Config{Store: store, Clock: func() time.Time { return epoch }})
		if err != nil {
			b.Fatal(err)
		}
		for t := range turns {
			if err := recordTurn(j, fmt.Sprintf("question %d", t), chunks); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(j)
		held += after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
		events += uint64(store.events)
	}
	b.ReportMetric(float64(held)/float64(b.N), "held-B/session")
	b.ReportMetric(float64(held)/float64(events), "held-B/event")
	b.ReportMetric(float64(events)/float64(b.N), "events/session")
}

// recordTurn records a turn of one model call that streams chunks.
func recordTurn(j *journal.Journal, prompt string, chunks []llm.Chunk) error {
	ctx := context.Background()
	j.StartTurn(journal.TriggerUser, journal.UserText(prompt))
	j.StartStep()
	c, err := j.BeginCall(ctx, "prov", &llm.Request{Model: "m"})
	if err != nil {
		return err
	}
	for _, ch := range chunks {
		c.Chunk(ch)
	}
	c.End()
	if err := j.EndStep(ctx); err != nil {
		return err
	}
	return j.EndTurn(ctx, session.EndReason{Kind: session.TurnCompleted})
}
