package session

import (
	"fmt"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

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
	if len(raw.ev.Extra) > 0 || raw.ev.SourceEventSeqs != nil || raw.ev.SurfaceOp != nil || raw.hasSeq {
		return nil, fmt.Errorf("packed row %s has members this reader cannot keep when it expands the row (only type, seq0, time0 and data are allowed)", raw.ev.Type)
	}
	var d ChunkData
	var dt []int64
	var texts []string
	var sawTexts bool
	textKey := "texts"
	chunkType := ChunkTextDelta
	switch raw.ev.Type {
	case TypeReasoningChunks:
		chunkType = ChunkReasoningDelta
	case TypeToolCallChunks:
		chunkType = ChunkToolCallDelta
		textKey = "args"
	}
	if len(raw.ev.Data) == 0 || raw.ev.Data[0] != '{' {
		return nil, fmt.Errorf("packed row %s needs an object in \"data\"", raw.ev.Type)
	}
	err := jsonscan.Members(raw.ev.Data, func(key []byte, esc bool, val []byte) error {
		var err error
		var n int64
		k := jsonscan.Key(key, esc)
		switch k {
		case "turn":
			n, err = jsonscan.Int(val)
			d.Turn = int(n)
		case "step":
			n, err = jsonscan.Int(val)
			d.Step = int(n)
		case "attempt":
			n, err = jsonscan.Int(val)
			d.Attempt = int(n)
		case "index":
			n, err = jsonscan.Int(val)
			d.Chunk.Index = int(n)
		case "dt":
			dt, err = jsonscan.Ints(val)
		case textKey:
			sawTexts = true
			texts, err = jsonscan.Strings(val)
		case "id":
			if chunkType == ChunkToolCallDelta {
				d.Chunk.ID, err = optString(val)
				break
			}
			fallthrough
		case "name":
			if chunkType == ChunkToolCallDelta {
				d.Chunk.Name, err = optString(val)
				break
			}
			fallthrough
		default:
			err = fmt.Errorf("unknown member; this reader cannot expand the row without losing it")
		}
		if err != nil {
			return fmt.Errorf("packed row %s, data member %q: %w", raw.ev.Type, k, err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !sawTexts {
		return nil, fmt.Errorf("packed row %s has no %q in data", raw.ev.Type, textKey)
	}
	if len(texts) > 0 && len(dt) != len(texts)-1 {
		return nil, fmt.Errorf("packed row %s has %d dt entries for %d %s; expected %d (the gaps between deltas)", raw.ev.Type, len(dt), len(texts), textKey, len(texts)-1)
	}
	d.Chunk.Type = chunkType
	id, name := d.Chunk.ID, d.Chunk.Name
	evs := make([]Event, len(texts))
	t := raw.time0
	var buf []byte
	for i, s := range texts {
		if i > 0 {
			t += dt[i-1]
		}
		if chunkType == ChunkToolCallDelta {
			d.Chunk.ArgumentsDelta = s
			if i > 0 {
				d.Chunk.ID, d.Chunk.Name = "", ""
			} else {
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
