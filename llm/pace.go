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
			for c := range seq {
				if wait.Sleep(ctx, pause) != nil {
					yield(session.Finish(session.FinishAborted))
					return
				}
				if !yield(c) {
					return
				}
			}
		}, nil
	})
}
