package llm

import (
	"context"
	"iter"
	"time"

	"github.com/agentsnap/agentsnap/internal/wait"
	"github.com/agentsnap/agentsnap/session"
)

// Paced returns a driver that waits pause before each chunk of d's streams,
// so an offline stream takes as long as a live one would. A cancelled
// context ends the wait at once and the stream with an aborted finish.
// It counts tokens as d does (TokenCounter), at once.
func Paced(d Driver, pause time.Duration) Driver {
	if pause <= 0 {
		return d
	}
	return paced{d, pause}
}

type paced struct {
	d     Driver
	pause time.Duration
}

func (p paced) Stream(ctx context.Context, req *Request) (iter.Seq[Chunk], error) {
	seq, err := p.d.Stream(ctx, req)
	if err != nil {
		return nil, err
	}
	return func(yield func(Chunk) bool) {
		for c := range seq {
			if wait.Sleep(ctx, p.pause) != nil {
				yield(session.Finish(session.FinishAborted))
				return
			}
			if !yield(c) {
				return
			}
		}
	}, nil
}

// CountTokens implements TokenCounter: d's count, or ErrCannotCount.
func (p paced) CountTokens(ctx context.Context, req *Request) (int64, error) {
	return CountTokens(ctx, p.d, req)
}
