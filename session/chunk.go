package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/agentsnap/agentsnap/internal/jsonscan"
)

// Chunk types: the units of one model stream.
const (
	ChunkBlockStart     = "block-start"
	ChunkTextDelta      = "text-delta"
	ChunkReasoningDelta = "reasoning-delta"
	ChunkToolCallDelta  = "tool-call-delta"
	ChunkBlockEnd       = "block-end"
	ChunkUsage          = "usage"
	ChunkFinish         = "finish"
)

// Block types of a streamed content block.
const (
	BlockText      = "text"
	BlockReasoning = "reasoning"
	BlockToolCall  = "tool-call"
)

// Finish kinds. Every stream ends with exactly one finish chunk.
const (
	FinishStop      = "stop"
	FinishToolCalls = "tool-calls"
	FinishMaxTokens = "max-tokens"
	FinishAborted   = "aborted"
	FinishError     = "error"
)

// Chunk is one unit of a model stream, as recorded in assistant/chunk events
// and as served by every llm.Driver. Which fields are meaningful depends on
// Type; the JSON encoding writes exactly the members of that type.
type Chunk struct {
	Type           string
	Index          int           // block chunks
	BlockType      string        // block-start
	Text           string        // text-delta, reasoning-delta
	ID             string        // tool-call-delta (usually the first only)
	Name           string        // tool-call-delta (usually the first only)
	ArgumentsDelta string        // tool-call-delta
	Block          *Block        // block-end
	Usage          *Usage        // usage
	Reason         *FinishReason // finish

	// Extra holds members this package does not know, verbatim.
	Extra map[string]json.RawMessage
}

// Block is a completed content block, carried by block-end.
type Block struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	// Meta is what a model API hands out with the block and wants back
	// verbatim in the next request (see Part.Meta).
	Meta json.RawMessage `json:"meta,omitempty"`
}

// MarshalJSON writes the members of the block's type in a fixed order.
func (b Block) MarshalJSON() ([]byte, error) { return b.appendJSON(nil), nil }

// appendJSON appends what MarshalJSON writes to out: a chunk's encoding
// writes its block in place, without a slice of its own.
func (b *Block) appendJSON(out []byte) []byte {
	out = append(out, `{"type":`...)
	out = jsonscan.AppendString(out, b.Type)
	if b.Type == BlockToolCall {
		out = append(out, `,"id":`...)
		out = jsonscan.AppendString(out, b.ID)
		out = append(out, `,"name":`...)
		out = jsonscan.AppendString(out, b.Name)
		out = append(out, `,"arguments":`...)
		out = jsonscan.AppendString(out, b.Arguments)
	} else {
		out = append(out, `,"text":`...)
		out = jsonscan.AppendString(out, b.Text)
	}
	if len(b.Meta) > 0 {
		if m, err := jsonscan.AppendCompact(append(out, `,"meta":`...), b.Meta); err == nil {
			out = m
		} else {
			out = out[:len(out)-len(`,"meta":`)]
		}
	}
	return append(out, '}')
}

// decodeBlock decodes the block of a block-end chunk. It is on the hot path
// of derivation (the block repeats the whole text of its deltas), so it
// reads the members itself rather than through encoding/json. Unknown
// members are ignored, as they are by encoding/json; null is no block.
func decodeBlock(val []byte) (*Block, error) {
	if jsonscan.IsNull(val) {
		return nil, nil
	}
	b := &Block{}
	err := jsonscan.Members(val, func(key []byte, esc bool, v []byte) error {
		if esc {
			key = []byte(jsonscan.Key(key, esc))
		}
		var err error
		switch string(key) {
		case "type":
			b.Type, err = internString(knownChunkTypes, v)
		case "text":
			b.Text, err = optString(v)
		case "id":
			b.ID, err = optString(v)
		case "name":
			b.Name, err = optString(v)
		case "arguments":
			b.Arguments, err = optString(v)
		case "meta":
			if !jsonscan.IsNull(v) {
				b.Meta = append(json.RawMessage(nil), v...)
			}
		}
		if err != nil {
			return fmt.Errorf("block member %q: %w", key, err)
		}
		return nil
	})
	return b, err
}

// Usage is the token accounting of one model call.
type Usage struct {
	InputTokens     int  `json:"inputTokens"`
	OutputTokens    int  `json:"outputTokens"`
	CacheReadTokens *int `json:"cacheReadTokens,omitempty"`
	ReasoningTokens *int `json:"reasoningTokens,omitempty"`
}

// FinishReason says why a stream ended.
type FinishReason struct {
	Kind    string   `json:"kind"`
	Failure *Failure `json:"failure,omitempty"`
}

// Failure describes an error finish.
type Failure struct {
	Message string `json:"message"`
	Code    string `json:"code,omitempty"`
	Status  int    `json:"status,omitempty"`
}

// Finish returns a finish chunk of the given kind.
func Finish(kind string) Chunk { return Chunk{Type: ChunkFinish, Reason: &FinishReason{Kind: kind}} }

// ErrorFinish returns an error finish chunk.
func ErrorFinish(code, message string) Chunk {
	return Chunk{Type: ChunkFinish, Reason: &FinishReason{Kind: FinishError, Failure: &Failure{Code: code, Message: message}}}
}

// IsFinish reports whether c ends a stream.
func (c *Chunk) IsFinish() bool { return c.Type == ChunkFinish }

// AppendJSON appends the chunk's JSON encoding.
func (c *Chunk) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"type":`...)
	dst = jsonscan.AppendString(dst, c.Type)
	switch c.Type {
	case ChunkBlockStart:
		dst = appendIndex(dst, c.Index)
		dst = append(dst, `,"blockType":`...)
		dst = jsonscan.AppendString(dst, c.BlockType)
	case ChunkTextDelta, ChunkReasoningDelta:
		dst = appendIndex(dst, c.Index)
		dst = append(dst, `,"text":`...)
		dst = jsonscan.AppendString(dst, c.Text)
	case ChunkToolCallDelta:
		dst = appendIndex(dst, c.Index)
		dst = appendOptString(dst, "id", c.ID)
		dst = appendOptString(dst, "name", c.Name)
		dst = append(dst, `,"argumentsDelta":`...)
		dst = jsonscan.AppendString(dst, c.ArgumentsDelta)
	case ChunkBlockEnd:
		dst = appendIndex(dst, c.Index)
		if c.Block != nil {
			dst = append(dst, `,"block":`...)
			dst = c.Block.appendJSON(dst)
		}
	case ChunkUsage:
		if c.Usage != nil {
			dst = append(dst, `,"usage":`...)
			dst = appendUsage(dst, c.Usage) // MarshalData's bytes, in place
		}
	case ChunkFinish:
		if c.Reason != nil {
			dst = append(dst, `,"reason":`...)
			dst = appendFinishReason(dst, c.Reason)
		}
	}
	dst = appendExtra(dst, c.Extra)
	return append(dst, '}')
}

func appendIndex(dst []byte, i int) []byte {
	dst = append(dst, `,"index":`...)
	return strconv.AppendInt(dst, int64(i), 10)
}

// MarshalJSON encodes the chunk with the members of its type only.
func (c Chunk) MarshalJSON() ([]byte, error) { return c.AppendJSON(nil), nil }

// UnmarshalJSON decodes a chunk; unknown members go to Extra.
func (c *Chunk) UnmarshalJSON(b []byte) error {
	if err := jsonscan.Object(b, nil); err != nil {
		return describeLineError(err, "a chunk object")
	}
	return c.decode(b)
}

// decode fills c from a chunk object already known to be valid JSON.
// Members the chunk's type does not encode go to Extra, so a chunk of a type
// this package does not know (or a known type with an unusual member)
// re-encodes without loss.
func (c *Chunk) decode(b []byte) error {
	*c = Chunk{}
	typ, err := chunkType(b)
	if err != nil {
		return err
	}
	c.Type = typ
	err = jsonscan.Members(b, func(key []byte, esc bool, val []byte) error {
		if esc {
			key = []byte(jsonscan.Key(key, esc))
		}
		if string(key) == "type" {
			return nil
		}
		if !chunkOwns(typ, key) {
			if c.Extra == nil {
				c.Extra = map[string]json.RawMessage{}
			}
			c.Extra[jsonscan.Key(key, false)] = slices.Clone(val)
			return nil
		}
		if err := c.decodeMember(key, val); err != nil {
			return fmt.Errorf("%s chunk member %q: %w", typ, key, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if c.Type == ChunkFinish && c.Reason == nil {
		return fmt.Errorf(`finish chunk has no "reason"`)
	}
	return nil
}

// errFound stops a member walk early.
var errFound = errors.New("found")

// chunkType returns the "type" member of a chunk object.
func chunkType(b []byte) (string, error) {
	var typ string
	var err error
	walkErr := jsonscan.Members(b, func(key []byte, esc bool, val []byte) error {
		if esc {
			key = []byte(jsonscan.Key(key, esc))
		}
		if string(key) != "type" {
			return nil
		}
		if typ, err = internString(knownChunkTypes, val); err != nil {
			err = fmt.Errorf(`chunk member "type": %w`, err)
		}
		return errFound
	})
	switch {
	case walkErr == nil:
		return "", fmt.Errorf(`chunk has no "type"`)
	case walkErr != errFound:
		return "", walkErr
	}
	return typ, err
}

// knownChunkTypes holds one copy of each chunk type (see knownTypes).
var knownChunkTypes = map[string]string{}

func init() {
	for _, t := range []string{ChunkBlockStart, ChunkTextDelta, ChunkReasoningDelta, ChunkToolCallDelta,
		ChunkBlockEnd, ChunkUsage, ChunkFinish, BlockText, BlockReasoning, BlockToolCall} {
		knownChunkTypes[t] = t
	}
}

// chunkOwns reports whether the encoding of chunk type typ writes member key.
func chunkOwns(typ string, key []byte) bool {
	switch string(key) {
	case "index":
		switch typ {
		case ChunkBlockStart, ChunkTextDelta, ChunkReasoningDelta, ChunkToolCallDelta, ChunkBlockEnd:
			return true
		}
	case "blockType":
		return typ == ChunkBlockStart
	case "text":
		return typ == ChunkTextDelta || typ == ChunkReasoningDelta
	case "id", "name", "argumentsDelta":
		return typ == ChunkToolCallDelta
	case "block":
		return typ == ChunkBlockEnd
	case "usage":
		return typ == ChunkUsage
	case "reason":
		return typ == ChunkFinish
	}
	return false
}

// decodeMember decodes one member the chunk's type owns.
func (c *Chunk) decodeMember(key []byte, val []byte) error {
	var err error
	switch string(key) {
	case "index":
		var n int64
		n, err = jsonscan.Int(val)
		c.Index = int(n)
	case "blockType":
		c.BlockType, err = internString(knownChunkTypes, val)
	case "text":
		c.Text, err = jsonscan.String(val)
	case "id":
		c.ID, err = optString(val)
	case "name":
		c.Name, err = optString(val)
	case "argumentsDelta":
		c.ArgumentsDelta, err = jsonscan.String(val)
	case "block":
		c.Block, err = decodeBlock(val)
	case "usage":
		c.Usage = &Usage{}
		err = json.Unmarshal(val, c.Usage)
	case "reason":
		c.Reason = &FinishReason{}
		err = json.Unmarshal(val, c.Reason)
	}
	return err
}

// ChunkData is the payload of an assistant/chunk event.
type ChunkData struct {
	Turn    int
	Step    int
	Attempt int // 0: not recorded (dsh logs); agentsnap numbers attempts from 1
	Chunk   Chunk
}

// AppendJSON appends the payload's JSON encoding.
func (d *ChunkData) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"turn":`...)
	dst = strconv.AppendInt(dst, int64(d.Turn), 10)
	dst = append(dst, `,"step":`...)
	dst = strconv.AppendInt(dst, int64(d.Step), 10)
	if d.Attempt != 0 {
		dst = append(dst, `,"attempt":`...)
		dst = strconv.AppendInt(dst, int64(d.Attempt), 10)
	}
	dst = append(dst, `,"chunk":`...)
	dst = d.Chunk.AppendJSON(dst)
	return append(dst, '}')
}

// MarshalJSON encodes the payload.
func (d ChunkData) MarshalJSON() ([]byte, error) { return d.AppendJSON(nil), nil }

// UnmarshalJSON decodes the payload.
func (d *ChunkData) UnmarshalJSON(b []byte) error {
	if err := jsonscan.Object(b, nil); err != nil {
		return describeLineError(err, "an assistant/chunk payload")
	}
	return d.decode(b)
}

// DecodeChunkData decodes the data of an assistant/chunk event read by this
// package (whose data is already validated JSON). It is the fast path of
// script derivation.
func DecodeChunkData(data json.RawMessage) (ChunkData, error) {
	var d ChunkData
	if len(data) == 0 {
		return d, fmt.Errorf("assistant/chunk event has no data")
	}
	err := d.decode(data)
	return d, err
}

func (d *ChunkData) decode(b []byte) error {
	*d = ChunkData{}
	if d.decodeCanonical(b) {
		return nil
	}
	*d = ChunkData{}
	return d.decodeMembers(b)
}

// decodeMembers decodes a payload member by member, in any layout.
func (d *ChunkData) decodeMembers(b []byte) error {
	var sawTurn, sawStep, sawChunk bool
	err := jsonscan.Members(b, func(key []byte, _ bool, val []byte) error {
		var err error
		var n int64
		switch string(key) {
		case "turn":
			sawTurn = true
			n, err = jsonscan.Int(val)
			d.Turn = int(n)
		case "step":
			sawStep = true
			n, err = jsonscan.Int(val)
			d.Step = int(n)
		case "attempt":
			n, err = jsonscan.Int(val)
			d.Attempt = int(n)
		case "chunk":
			sawChunk = true
			err = d.Chunk.decode(val)
		}
		if err != nil {
			return fmt.Errorf("member %q: %w", key, err)
		}
		return nil
	})
	switch {
	case err != nil:
		return err
	case !sawTurn || !sawStep:
		return fmt.Errorf(`assistant/chunk data needs "turn" and "step"`)
	case !sawChunk:
		return fmt.Errorf(`assistant/chunk data has no "chunk"`)
	}
	return nil
}
