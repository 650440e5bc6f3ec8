package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// Deltas returns n assistant/chunk text-delta events from seq on — the bulk
// of a real log, about 110 bytes a line — for benchmarks.
func Deltas(seq int64, n int) []session.Event {
	out := make([]session.Event, n)
	for i := range out {
		d := session.ChunkData{Turn: 1, Step: 1, Attempt: 1, Chunk: session.Chunk{
			Type: session.ChunkTextDelta, Text: fmt.Sprintf("token %d of a streamed answer ", i),
		}}
		out[i] = session.Event{Type: session.TypeAssistantChunk, Seq: seq + int64(i), Time: T0 + int64(i), Data: d.AppendJSON(nil)}
	}
	return out
}

// Renumber sets the seqs of events from seq on, in place, and returns them.
func Renumber(seq int64, events []session.Event) []session.Event {
	for i := range events {
		events[i].Seq = seq + int64(i)
	}
	return events
}

// BenchAppend appends batches of batch Deltas to one new session of s, once
// per benchmark iteration, and reports events/s and ns/event (returned, so
// a benchmark can compare two runs).
func BenchAppend(b *testing.B, s persistence.Store, batch int) float64 {
	ctx := context.Background()
	if err := s.Create(ctx, RootHeader("root"), nil); err != nil {
		b.Fatal(err)
	}
	events := Deltas(0, batch)
	var seq int64
	for b.Loop() {
		if err := s.Append(ctx, "root", Renumber(seq, events)); err != nil {
			b.Fatal(err)
		}
		seq += int64(batch)
	}
	return ReportRate(b, b.N*batch)
}

// BenchLoad stores one session of n Deltas in s and loads it once per
// benchmark iteration, reporting events/s and ns/event.
func BenchLoad(b *testing.B, s persistence.Store, n int) {
	ctx := context.Background()
	if err := s.Create(ctx, RootHeader("root"), nil); err != nil {
		b.Fatal(err)
	}
	if err := s.Append(ctx, "root", Deltas(0, n)); err != nil {
		b.Fatal(err)
	}
	var l *session.Log
	var err error
	for b.Loop() {
		if l, err = s.Load(ctx, "root"); err != nil {
			b.Fatal(err)
		}
	}
	if len(l.Events) != n {
		b.Fatalf("loaded %d events, want %d", len(l.Events), n)
	}
	ReportRate(b, b.N*n)
}

// ReportRate reports events/s and ns/event for events handled in the
// benchmark's timed part, and returns the ns per event.
func ReportRate(b *testing.B, events int) float64 {
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	ns := float64(b.Elapsed().Nanoseconds()) / float64(events)
	b.ReportMetric(ns, "ns/event")
	return ns
}
