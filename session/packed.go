package session

import (
	"fmt"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// packedRow is the decoded data of a packed row.
type packedRow struct {
	d     ChunkData // turn, step, attempt, chunk type, index, id, name
	dt    []int64
	texts []string
}

// expandPacked turns one packed row into the logical assistant/chunk events
// it stands for. next is the seq the row must start at.
//
// A row {seq0, time0, data{turn, step, attempt?, index, dt[], texts[]|args[],
// id?, name?}} stands for len(texts) deltas with seqs seq0, seq0+1, ...; the
// first is at time0 and dt[i] is the gap between delta i and delta i+1.
// tool-call-chunks put id and name on the first delta only, as a provider
// stream does.
func expandPacked(raw *rawLine, next int64) ([]Event, error) {
	if raw.seq0 != next {
		return nil, fmt.Errorf("%w: packed row %s starts at seq0 %d, expected %d (seq counts logical events from 0)", ErrSeqGap, raw.ev.Type, raw.seq0, next)
	}
	if len(raw.ev.Extra) > 0 || raw.ev.SourceEventSeqs != nil || raw.ev.SurfaceOp != nil ||
		raw.hasSeq || raw.hasTime || raw.ev.Ignorable {
		return nil, fmt.Errorf("packed row %s has members this reader cannot keep when it expands the row (only type, seq0, time0 and data are allowed)", raw.ev.Type)
	}
	row, err := decodePacked(raw.ev.Type, raw.ev.Data)
	if err != nil {
		return nil, err
	}
	d := row.d
	id, name := d.Chunk.ID, d.Chunk.Name
	evs := make([]Event, len(row.texts))
	t := raw.time0
	// One buffer for every delta's data; each event's Data is a capped
	// window of it, so the row costs one allocation, not one per delta.
	size := 0
	for _, s := range row.texts {
		size += len(s) + 96
	}
	buf := make([]byte, 0, size+len(id)+len(name))
	for i, s := range row.texts {
		if i > 0 {
			t += row.dt[i-1]
		}
		if d.Chunk.Type == ChunkToolCallDelta {
			d.Chunk.ArgumentsDelta = s
			d.Chunk.ID, d.Chunk.Name = "", ""
			if i == 0 {
				d.Chunk.ID, d.Chunk.Name = id, name
			}
		} else {
			d.Chunk.Text = s
		}
		start := len(buf)
		buf = d.AppendJSON(buf)
		evs[i] = Event{Type: TypeAssistantChunk, Seq: next + int64(i), Time: t, Data: buf[start:len(buf):len(buf)]}
	}
	return evs, nil
}

// decodePacked decodes and checks the data of a packed row of type typ.
// Every member must be understood: a row is expanded, never kept verbatim, so
// a member it cannot place would be lost.
func decodePacked(typ string, data []byte) (*packedRow, error) {
	row := &packedRow{}
	textKey := "texts"
	row.d.Chunk.Type = ChunkTextDelta
	switch typ {
	case TypeReasoningChunks:
		row.d.Chunk.Type = ChunkReasoningDelta
	case TypeToolCallChunks:
		row.d.Chunk.Type = ChunkToolCallDelta
		textKey = "args"
	}
	if len(data) == 0 || data[0] != '{' {
		return nil, fmt.Errorf(`packed row %s needs an object in "data"`, typ)
	}
	var sawTurn, sawStep, sawIndex, sawTexts bool
	err := jsonscan.Members(data, func(key []byte, esc bool, val []byte) error {
		var err error
		k := jsonscan.Key(key, esc)
		switch {
		case k == "turn":
			sawTurn = true
			row.d.Turn, err = intMember(val)
		case k == "step":
			sawStep = true
			row.d.Step, err = intMember(val)
		case k == "attempt":
			row.d.Attempt, err = intMember(val)
		case k == "index":
			sawIndex = true
			row.d.Chunk.Index, err = intMember(val)
		case k == "dt":
			row.dt, err = jsonscan.Ints(val)
		case k == textKey:
			sawTexts = true
			row.texts, err = jsonscan.Strings(val)
		case k == "id" && typ == TypeToolCallChunks:
			row.d.Chunk.ID, err = optString(val)
		case k == "name" && typ == TypeToolCallChunks:
			row.d.Chunk.Name, err = optString(val)
		default:
			err = fmt.Errorf("unknown member; this reader cannot expand the row without losing it")
		}
		if err != nil {
			return fmt.Errorf("packed row %s, data member %q: %w", typ, k, err)
		}
		return nil
	})
	switch {
	case err != nil:
		return nil, err
	case !sawTurn || !sawStep || !sawIndex:
		return nil, fmt.Errorf(`packed row %s needs "turn", "step" and "index" in data`, typ)
	case !sawTexts:
		return nil, fmt.Errorf("packed row %s has no %q in data", typ, textKey)
	case len(row.dt) != max(len(row.texts)-1, 0):
		return nil, fmt.Errorf("packed row %s has %d dt entries for %d %s; expected %d (the gaps between deltas)",
			typ, len(row.dt), len(row.texts), textKey, max(len(row.texts)-1, 0))
	}
	return row, nil
}

func intMember(val []byte) (int, error) {
	n, err := jsonscan.Int(val)
	return int(n), err
}
