package journal

// Creating a child session: a spawn child's empty log, or a fork child's seed
// (the parent's completed turns), under the next free id.

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
)

// Child creates the session that this session's tool call callID delegates
// to. A spawn child starts with an empty log. A fork child starts with this
// session's balanced completed-turn prefix (session.CompletedPrefix) and
// its header's seedLength is stamped from that prefix — the events handed
// over, never inferred later; the prefix is read back from the store (a
// Store.Load of this session), followed by what a failed Flush left
// unstored. The child's header carries parentSession,
// parentCallId, mode, origin "subagent" and delegationDepth one more than
// this session's. Child is safe to call from several goroutines at once.
func (j *Journal) Child(ctx context.Context, callID string, mode session.Mode) (*Journal, error) {
	if mode != session.ModeSpawn && mode != session.ModeFork {
		return nil, fmt.Errorf(`journal: session %s: child mode %q; want "spawn" or "fork"`, j.header.ID, mode)
	}
	if callID == "" {
		return nil, fmt.Errorf("journal: session %s: a child needs the id of the tool call that creates it", j.header.ID)
	}
	h := session.Header{
		CreatedAt:       j.cfg.Clock().UnixMilli(),
		Cwd:             j.cfg.Cwd,
		ParentSession:   j.header.ID,
		Origin:          session.OriginSubagent,
		DelegationDepth: j.header.DelegationDepth + 1,
		AgentPreset:     j.cfg.Preset,
		ParentCallID:    callID,
		Mode:            mode,
	}
	var seed []session.Event
	var msgs []session.Message
	var digests []string
	if mode == session.ModeFork {
		var err error
		if seed, msgs, digests, err = j.forkSeed(ctx); err != nil {
			return nil, err
		}
		h.SeedLength = len(seed)
	}
	j.mu.Lock()
	digester := j.digester.Fork() // the child's calls usually send the same system prompt and tools
	j.mu.Unlock()
	if err := j.createChild(ctx, &h, seed); err != nil {
		return nil, err
	}
	// The seed is the store's from here: the child holds none of it.
	c := &Journal{cfg: j.cfg, header: h, messages: msgs, digests: digests, stored: len(seed), digester: digester}
	for _, d := range digests {
		c.chain.Add(d)
	}
	c.completed, c.completedMsgs, c.completedDigests = len(seed), msgs, digests
	c.turn = LastTurn(seed)
	return c, nil
}

// forkSeed returns what a fork child inherits: the log up to the end of
// the last completed turn, with the conversation and digests there (the
// parent's, shared rather than rebuilt). The stored part of the prefix is
// read back from the store; the part a failed Flush left unstored comes
// from memory. Counts and the unstored events are taken at one instant, so
// a Flush of the session's goroutine meanwhile changes nothing: the store
// then holds more, which the prefix cuts off.
func (j *Journal) forkSeed(ctx context.Context) ([]session.Event, []session.Message, []string, error) {
	j.mu.Lock()
	completed, stored := j.completed, j.stored
	var unstored []session.Event
	if completed > stored {
		unstored = j.events.appendTo(nil, 0, completed-stored)
	}
	msgs, digests := j.completedMsgs, j.completedDigests
	j.mu.Unlock()
	seed, err := j.loadPrefix(ctx, min(completed, stored))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("journal: fork a child of session %s: %w", j.header.ID, err)
	}
	return append(seed, unstored...), msgs, digests, nil
}

// createChild stores the child's header under the next free id. A resumed
// parent's ids start counting afresh, so an id its earlier children took
// is skipped rather than refused.
func (j *Journal) createChild(ctx context.Context, h *session.Header, seed []session.Event) error {
	for range 1000 {
		h.ID = j.cfg.IDs.Child(j.header.ID, h.ParentCallID)
		err := j.cfg.Store.Create(ctx, *h, seed)
		if !errors.Is(err, persistence.ErrSessionExists) {
			if err != nil {
				return fmt.Errorf("journal: create session %s: %w", h.ID, err)
			}
			return nil
		}
	}
	return fmt.Errorf("journal: create a child of %s for call %s: every id tried exists already", j.header.ID, h.ParentCallID)
}
