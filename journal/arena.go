package journal

// The arena of payloads: events' payloads encoded one after another into
// shared blocks, so a model call's chunks cost a few allocations.

import (
	"bytes"
	"encoding/json"

	"github.com/agentsnap/agentsnap/session"
)

// keep returns a copy of b, a payload: a window of the arena when it is
// small, else its own.
func (j *Journal) keep(b []byte) json.RawMessage {
	if len(b) > arenaLarge {
		return bytes.Clone(b)
	}
	if cap(j.arena)-len(j.arena) < len(b) {
		j.arena = make([]byte, 0, min(max(2*cap(j.arena), arenaFirst), arenaBlock))
	}
	start := len(j.arena)
	j.arena = append(j.arena, b...)
	return j.arena[start:len(j.arena):len(j.arena)]
}

// Sizes of the arena of payloads: blocks double from arenaFirst to
// arenaBlock, so a short session allocates little and a long one few
// blocks; a new block is taken when less than arenaFree bytes are left (a
// larger chunk grows the block instead). A payload larger than arenaLarge
// has an allocation of its own.
const (
	arenaFirst = 2 << 10
	arenaBlock = 64 << 10
	arenaFree  = 512
	arenaLarge = 4 << 10
)

// encodeChunk returns the payload of an assistant/chunk event. Payloads are
// encoded one after another into a shared block, each event's Data a
// capped window of it: a model call's chunks cost a few allocations, not
// one or more per chunk. Windows are never written again.
func (j *Journal) encodeChunk(d *session.ChunkData) json.RawMessage {
	if cap(j.arena)-len(j.arena) < arenaFree {
		j.arena = make([]byte, 0, min(max(2*cap(j.arena), arenaFirst), arenaBlock))
	}
	start := len(j.arena)
	j.arena = d.AppendJSON(j.arena)
	return j.arena[start:len(j.arena):len(j.arena)]
}
