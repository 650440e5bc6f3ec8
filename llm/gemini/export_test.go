package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// DecodeBody decodes body as the event stream of a 200 answer from a
// driver holding these secrets, and returns every chunk it yields.
func DecodeBody(ctx context.Context, body io.Reader, secrets ...string) []session.Chunk {
	var out []session.Chunk
	sc := live.NewScrubber("gemini", secrets...)
	live.DecodeStream(ctx, body, newDecoder(sc), sc, func(c session.Chunk) bool {
		out = append(out, c)
		return true
	})
	return out
}

// CheckProtocol returns an error naming the first way chunks break the
// stream protocol of the package doc, or nil: blocks numbered in start
// order, deltas inside their open block, each block ended once, in order,
// agreeing with its deltas, a tool call with an id and an object of
// arguments, at most one usage, and exactly one finish, last, whose kind
// agrees with the content.
func CheckProtocol(chunks []session.Chunk) error {
	var p protocol
	for i, c := range chunks {
		if err := p.add(c, i == len(chunks)-1); err != nil {
			return fmt.Errorf("chunk %d (%s): %w", i, c.Type, err)
		}
	}
	if !p.finished {
		return errors.New("no finish chunk")
	}
	return nil
}

type protoBlock struct {
	typ   string
	text  strings.Builder
	ended bool
}

type protocol struct {
	blocks   []*protoBlock
	calls    bool
	usage    bool
	finished bool
}

func (p *protocol) add(c session.Chunk, last bool) error {
	if p.finished {
		return errors.New("after the finish")
	}
	if p.usage && c.Type != session.ChunkFinish {
		return errors.New("after the usage")
	}
	switch c.Type {
	case session.ChunkBlockStart:
		if c.Index != len(p.blocks) {
			return fmt.Errorf("index %d, want %d", c.Index, len(p.blocks))
		}
		for _, b := range p.blocks {
			if !b.ended {
				return errors.New("a block starts while another is open")
			}
		}
		p.blocks = append(p.blocks, &protoBlock{typ: c.BlockType})
		p.calls = p.calls || c.BlockType == session.BlockToolCall
	case session.ChunkTextDelta, session.ChunkReasoningDelta, session.ChunkToolCallDelta:
		typ := map[string]string{session.ChunkTextDelta: session.BlockText, session.ChunkReasoningDelta: session.BlockReasoning, session.ChunkToolCallDelta: session.BlockToolCall}[c.Type]
		b, err := p.open(c.Index, typ)
		if err != nil {
			return err
		}
		if typ != session.BlockToolCall && c.Text == "" {
			return errors.New("empty delta")
		}
		b.text.WriteString(c.Text + c.ArgumentsDelta)
	case session.ChunkBlockEnd:
		if c.Block == nil {
			return errors.New("no block")
		}
		b, err := p.open(c.Index, c.Block.Type)
		if err != nil {
			return err
		}
		got := c.Block.Text
		if b.typ == session.BlockToolCall {
			got = c.Block.Arguments
			if c.Block.ID == "" || c.Block.Name == "" || !strings.HasPrefix(got, "{") {
				return fmt.Errorf("tool call %+v without id, name or object arguments", *c.Block)
			}
		}
		if got != b.text.String() {
			return fmt.Errorf("block says %q, its deltas %q", got, b.text.String())
		}
		b.ended = true
	case session.ChunkUsage:
		if p.usage || c.Usage == nil {
			return errors.New("a second or empty usage")
		}
		p.usage = true
	case session.ChunkFinish:
		return p.finish(c, last)
	default:
		return errors.New("unknown chunk type")
	}
	return nil
}

func (p *protocol) open(i int, typ string) (*protoBlock, error) {
	switch {
	case i < 0 || i >= len(p.blocks):
		return nil, fmt.Errorf("block %d never started", i)
	case p.blocks[i].typ != typ:
		return nil, fmt.Errorf("block %d is %s, not %s", i, p.blocks[i].typ, typ)
	case p.blocks[i].ended:
		return nil, fmt.Errorf("block %d already ended", i)
	}
	return p.blocks[i], nil
}

func (p *protocol) finish(c session.Chunk, last bool) error {
	if !last || c.Reason == nil {
		return errors.New("finish is not the last chunk or has no reason")
	}
	p.finished = true
	switch c.Reason.Kind {
	case session.FinishError, session.FinishAborted:
		if f := c.Reason.Failure; c.Reason.Kind == session.FinishError && (f == nil || f.Code == "" || f.Message == "") {
			return errors.New("error finish without code and message")
		}
		return nil
	}
	for _, b := range p.blocks {
		if !b.ended {
			return fmt.Errorf("%s finish with an open block", c.Reason.Kind)
		}
	}
	if (c.Reason.Kind == session.FinishToolCalls) != p.calls && c.Reason.Kind != session.FinishMaxTokens {
		return fmt.Errorf("%s finish, tool calls present: %v", c.Reason.Kind, p.calls)
	}
	return nil
}

// AppendEvent appends the hand-written event of a stream whose one part
// is p, of the members a stream writes (text, thought, thoughtSignature,
// functionCall, whose args must be what CallArgs returns).
func AppendEvent(dst []byte, a Answer, p Part, finish string, u *UsageMetadata) []byte {
	op := outPart{thought: p.Thought, sig: p.ThoughtSignature}
	if p.Text != nil {
		op.text, op.hasText = *p.Text, true
	}
	if fc := p.FunctionCall; fc != nil {
		op.call, op.id, op.name, op.args = true, fc.ID, fc.Name, string(fc.Args)
	}
	return appendEvent(dst, &a, &op, finish, u)
}

// AppendErrorEvent appends the hand-written error event.
func AppendErrorEvent(dst []byte, status int, message string) []byte {
	return appendErrorEvent(dst, status, message)
}

// CallArgs is the stream's check of a tool call's arguments.
func CallArgs(arguments string) (string, bool) {
	var scratch []byte
	return callArgs(arguments, &scratch)
}

var (
	ArgsObject = argsObject // WriteMessage's check of a tool call's arguments
	StatusName = statusName
)

// ResultResponse is resultResponse: functionResponse.response for a tool
// result.
func ResultResponse(p session.Part) json.RawMessage { return resultResponse(p) }

// KeepsResponse tells whether a request's reader keeps raw, the
// functionResponse.response an agent sent for result, for the live model
// (Responses.keep): whether it says other than ResultResponse.
func KeepsResponse(raw json.RawMessage, result session.Part) bool {
	return Responses(nil).keep(0, &result, raw) != nil
}
