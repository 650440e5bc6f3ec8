package fakellm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentsnap/agentsnap/session"
)

// ErrContract marks recorded or authored chunks that break the
// session-log contract (CONTRACT.md, "assistant/chunk: the chunks"): an
// unknown chunk type or finish kind, a block index out of order, a delta
// for a block that was never started, a member the type needs missing. The
// replay serves chunks as they are, so it refuses them before it starts
// rather than hand a runtime a stream no provider sends.
var ErrContract = errors.New("chunk breaks the session-log contract")

// callCheck checks the chunks of one model call, in order, against the
// contract. It holds the call's started blocks only; reset it at the start
// of the next call.
type callCheck struct {
	blocks []startedBlock // by index: block-start indices run 0, 1, 2, ...
}

type startedBlock struct {
	typ   string
	ended bool
}

func (c *callCheck) reset() { c.blocks = c.blocks[:0] }

// deltaBlock is the block type each delta chunk belongs to.
func deltaBlock(typ string) string {
	switch typ {
	case session.ChunkTextDelta:
		return session.BlockText
	case session.ChunkReasoningDelta:
		return session.BlockReasoning
	case session.ChunkToolCallDelta:
		return session.BlockToolCall
	}
	return ""
}

func knownBlock(t string) bool {
	return t == session.BlockText || t == session.BlockReasoning || t == session.BlockToolCall
}

func knownFinish(k string) bool {
	switch k {
	case session.FinishStop, session.FinishToolCalls, session.FinishMaxTokens, session.FinishAborted, session.FinishError:
		return true
	}
	return false
}

// add checks ch, the call's next chunk. The error names the chunk's
// member, what it holds and what the contract wants there.
func (c *callCheck) add(ch *session.Chunk) error {
	switch ch.Type {
	case session.ChunkBlockStart:
		return c.start(ch)
	case session.ChunkTextDelta, session.ChunkReasoningDelta, session.ChunkToolCallDelta:
		_, err := c.started(ch, deltaBlock(ch.Type))
		return err
	case session.ChunkBlockEnd:
		if ch.Block == nil {
			return errors.New(`a block-end chunk needs its "block" (the complete block: {"type","text"} or {"type":"tool-call","id","name","arguments"})`)
		}
		b, err := c.started(ch, ch.Block.Type)
		if err == nil {
			b.ended = true
		}
		return err
	case session.ChunkUsage:
		return checkUsage(ch.Usage)
	case session.ChunkFinish:
		switch {
		case ch.Reason == nil:
			return errors.New(`a finish chunk needs its "reason" ({"kind": ...})`)
		case !knownFinish(ch.Reason.Kind):
			return fmt.Errorf(`finish member "reason.kind" is %q; want "stop", "tool-calls", "max-tokens", "aborted" or "error"`, ch.Reason.Kind)
		}
		return nil
	}
	return fmt.Errorf(`chunk member "type" is %q; want block-start, text-delta, reasoning-delta, tool-call-delta, block-end, usage or finish`, ch.Type)
}

// start checks a block-start: a known block type, at the next index.
func (c *callCheck) start(ch *session.Chunk) error {
	if !knownBlock(ch.BlockType) {
		return fmt.Errorf(`block-start member "blockType" is %q; want "text", "reasoning" or "tool-call"`, ch.BlockType)
	}
	next := len(c.blocks)
	switch {
	case ch.Index >= 0 && ch.Index < next:
		return fmt.Errorf(`block-start member "index" is %d, a block this call started already (as %s); each block starts once`, ch.Index, c.blocks[ch.Index].typ)
	case ch.Index != next:
		return fmt.Errorf(`block-start member "index" is %d; the call's blocks start in order from 0, so want %d`, ch.Index, next)
	}
	c.blocks = append(c.blocks, startedBlock{typ: ch.BlockType})
	return nil
}

// started returns the started block a delta or block-end of block type
// want names, which must still be open.
func (c *callCheck) started(ch *session.Chunk, want string) (*startedBlock, error) {
	if ch.Index < 0 || ch.Index >= len(c.blocks) {
		return nil, fmt.Errorf(`%s member "index" is %d, a block this call has not started (it started %s); a block-start comes first`, ch.Type, ch.Index, startedList(len(c.blocks)))
	}
	b := &c.blocks[ch.Index]
	switch {
	case b.typ != want && ch.Type == session.ChunkBlockEnd:
		return nil, fmt.Errorf(`block-end member "block.type" is %q; block %d started as %q`, want, ch.Index, b.typ)
	case b.typ != want:
		return nil, fmt.Errorf(`%s member "index" is %d, a %s block; a %s belongs to a %s block`, ch.Type, ch.Index, b.typ, ch.Type, want)
	case b.ended:
		return nil, fmt.Errorf(`%s member "index" is %d, a block that has ended; nothing follows a block's block-end`, ch.Type, ch.Index)
	}
	return b, nil
}

func startedList(n int) string {
	switch n {
	case 0:
		return "none"
	case 1:
		return "block 0"
	}
	return fmt.Sprintf("blocks 0-%d", n-1)
}

// checkUsage checks a usage chunk's accounting: present, no count below 0.
func checkUsage(u *session.Usage) error {
	if u == nil {
		return errors.New(`a usage chunk needs its "usage" ({"inputTokens", "outputTokens"})`)
	}
	for _, n := range []struct {
		name string
		v    *int
	}{{"inputTokens", &u.InputTokens}, {"outputTokens", &u.OutputTokens}, {"cacheReadTokens", u.CacheReadTokens}, {"reasoningTokens", u.ReasoningTokens}} {
		if n.v != nil && *n.v < 0 {
			return fmt.Errorf(`usage member "usage.%s" is %d; a token count is 0 or more`, n.name, *n.v)
		}
	}
	return nil
}

// checkChunks checks the chunks of one entry, a whole call or the prefix
// a throw or hang entry serves; the error names the chunk by its position.
func checkChunks(chunks []session.Chunk) error {
	var c callCheck
	for i := range chunks {
		if err := c.add(&chunks[i]); err != nil {
			return fmt.Errorf("chunk %d: %w", i, err)
		}
	}
	return nil
}

// contractError locates a contract error of a recorded chunk: where is
// "file:line" (or the log's name), and the message ends with what to do.
func contractError(where, session string, seq int64, k callKey, err error, opts *DeriveOptions) error {
	return fmt.Errorf("fakellm: derive %s: %w: session %s, turn %d step %d%s, assistant/chunk seq %d: %v — %s",
		where, ErrContract, session, k.turn, k.step, attemptSuffix(k.attempt), seq, strings.TrimSuffix(err.Error(), "."),
		opts.fix("re-record the scenario (a recording writes chunks as CONTRACT.md describes them); a hand-edited log must keep to it too"))
}
