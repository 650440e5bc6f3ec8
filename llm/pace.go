package llm

import (
	"context"
	"iter"
	"time"

	"github.com/agentsnap/agentsnap/session"
)

// Paced returns a driver that waits pause before each chunk of d's streams,
// so an offline stream takes as long as a live one would. A cancelled
// context ends the wait at once and the stream with an aborted finish.
func Paced(d Driver, pause time.Duration) Driver {
	if pause <= 0 {
		return d
	}
	return DriverFunc(func(ctx context.Context, req *Request) (iter.Seq[Chunk], error) {
		seq, err := d.Stream(ctx, req)
		if err != nil {
			return nil, err
		}
		return func(yield func(Chunk) bool) {
			t := time.NewTimer(pause)
			defer t.Stop()
			for c := range seq {
				t.Reset(pause)
				select {
				case <-ctx.Done():
					yield(Chunk{Type: session.ChunkFinish, Reason: &session.FinishReason{Kind: session.FinishAborted}})
					return
				case <-t.C:
				}
				if !yield(c) {
					return
				}
			}
		}, nil
	})
}
