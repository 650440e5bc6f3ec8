package storetest

import (
	"fmt"

	"github.com/agentsnap/agentsnap/session"
)

// Deltas returns n assistant/chunk text-delta events from seq on — the bulk
// of a real log, about 110 bytes a line — for benchmarks. Unlike the other
// fixtures it needs no Gomega.
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
