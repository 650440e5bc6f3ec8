package anthropic

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// DecodeBody decodes body as the event stream of a 200 answer from a
// driver holding these secrets, and returns every chunk it yields.
func DecodeBody(ctx context.Context, body io.Reader, secrets ...string) []session.Chunk {
	var out []session.Chunk
	sc := live.NewScrubber("anthropic", secrets...)
	live.DecodeStream(ctx, body, newDecoder(sc), sc, func(c session.Chunk) bool {
		out = append(out, c)
		return true
	})
	return out
}

// protoBlock is a block as CheckProtocol follows it.
type protoBlock struct {
	typ, id, name string
	text          strings.Builder
	deltas, ended bool
}

// CheckProtocol returns an error naming the first way chunks break the
// stream protocol of the package doc, or nil: blocks numbered in start
// order, deltas and a block-end only for a started block of their type,
// a block-end agreeing with the deltas, a tool call's id and name on its
// first delta, usage after the blocks, exactly one finish, last, whose
// kind agrees with the content.
func CheckProtocol(chunks []session.Chunk) error {
	var blocks []*protoBlock
	usage := false
	for i, c := range chunks {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("chunk %d (%s): %s", i, c.Type, fmt.Sprintf(format, args...))
		}
		b, err := openBlockOf(&c, blocks, usage)
		if err != nil {
			return fail("%v", err)
		}
		switch c.Type {
		case session.ChunkBlockStart:
			if c.Index != len(blocks) || usage {
				return fail("index %d, want %d, before any usage", c.Index, len(blocks))
			}
			blocks = append(blocks, &protoBlock{typ: c.BlockType})
		case session.ChunkTextDelta, session.ChunkReasoningDelta:
			want := map[string]string{session.ChunkTextDelta: session.BlockText, session.ChunkReasoningDelta: session.BlockReasoning}[c.Type]
			if b.typ != want || c.Text == "" {
				return fail("an empty delta, or in a %s block", b.typ)
			}
			b.text.WriteString(c.Text)
		case session.ChunkToolCallDelta:
			if b.typ != session.BlockToolCall || (b.deltas && (c.ID != "" || c.Name != "")) || (!b.deltas && (c.ID == "" || c.Name == "")) {
				return fail("a tool-call delta whose id and name are not on the first delta only, or in a %s block", b.typ)
			}
			if !b.deltas {
				b.id, b.name = c.ID, c.Name
			}
			b.deltas = true
			b.text.WriteString(c.ArgumentsDelta)
		case session.ChunkBlockEnd:
			if err := checkEnd(&c, b); err != nil {
				return fail("%v", err)
			}
		case session.ChunkUsage:
			if usage || c.Usage == nil {
				return fail("a second or empty usage")
			}
			usage = true
		case session.ChunkFinish:
			if i != len(chunks)-1 || c.Reason == nil {
				return fail("not last, or without a reason")
			}
			if err := checkFinish(c.Reason, blocks); err != nil {
				return fail("%v", err)
			}
			return nil
		default:
			return fail("unknown chunk type")
		}
	}
	return errors.New("no finish chunk")
}

// openBlockOf is the open block a delta or block-end names (nil for
// other chunks), or why there is none.
func openBlockOf(c *session.Chunk, blocks []*protoBlock, usage bool) (*protoBlock, error) {
	switch c.Type {
	case session.ChunkBlockStart, session.ChunkUsage, session.ChunkFinish:
		return nil, nil
	}
	switch {
	case c.Index < 0 || c.Index >= len(blocks):
		return nil, fmt.Errorf("block %d never started", c.Index)
	case blocks[c.Index].ended:
		return nil, fmt.Errorf("block %d already ended", c.Index)
	case usage:
		return nil, errors.New("after the usage")
	}
	return blocks[c.Index], nil
}

func checkEnd(c *session.Chunk, b *protoBlock) error {
	if c.Block == nil || c.Block.Type != b.typ {
		return fmt.Errorf("a block-end without a block of type %s", b.typ)
	}
	got := c.Block.Text
	if b.typ == session.BlockToolCall {
		got = c.Block.Arguments
		if c.Block.ID != b.id || c.Block.Name != b.name || !b.deltas {
			return fmt.Errorf("tool call %s %s, its deltas say %s %s", c.Block.ID, c.Block.Name, b.id, b.name)
		}
	}
	if got != b.text.String() {
		return fmt.Errorf("block says %q, its deltas %q", got, b.text.String())
	}
	b.ended = true
	return nil
}

// checkFinish checks a finish against the blocks: every block ended
// unless the call failed, tool-calls exactly when there are tool calls
// (for stop and tool-calls), a code and message on an error.
func checkFinish(r *session.FinishReason, blocks []*protoBlock) error {
	calls := false
	for _, b := range blocks {
		calls = calls || b.typ == session.BlockToolCall
		if !b.ended && r.Kind != session.FinishError && r.Kind != session.FinishAborted {
			return fmt.Errorf("%s finish with an open block", r.Kind)
		}
	}
	switch r.Kind {
	case session.FinishStop, session.FinishToolCalls:
		if calls != (r.Kind == session.FinishToolCalls) {
			return fmt.Errorf("%s finish, tool calls present: %v", r.Kind, calls)
		}
	case session.FinishError:
		if f := r.Failure; f == nil || f.Code == "" || f.Message == "" {
			return errors.New("error finish without code and message")
		}
	case session.FinishMaxTokens, session.FinishAborted:
	default:
		return fmt.Errorf("unknown finish kind %q", r.Kind)
	}
	return nil
}

// Compact is compact, for its spec.
var Compact = compact

// ResultParts is resultContent: a tool result's content as parts.
func ResultParts(c Content) ([]session.Part, error) {
	var media llm.Media
	parts, _, err := resultContent(c, 0, 0, &media)
	return parts, err
}
