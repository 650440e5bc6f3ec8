package wire

import (
	"net/http"
	"sync/atomic"
)

// countingAnthropic is the Messages format, counting the requests it
// reads and those it reads against the session's last one, reusing its
// messages: a spec sees when the handler reads a request whole.
type countingAnthropic struct {
	anthropicMessages
	read, reused *atomic.Int64
}

func (f countingAnthropic) decodeNext(r *http.Request, body []byte, prev any) (*Request, error) {
	req, err := f.anthropicMessages.decodeNext(r, body, prev)
	if err == nil {
		f.read.Add(1)
		if req.base != nil && req.reused > 0 {
			f.reused.Add(1)
		}
	}
	return req, err
}

// CountingAnthropic returns a new Messages format and a func that says how
// many requests it has read, and how many of them it read against their
// session's last one.
func CountingAnthropic() (Format, func() (read, reused int64)) {
	f := countingAnthropic{read: new(atomic.Int64), reused: new(atomic.Int64)}
	return f, func() (int64, int64) { return f.read.Load(), f.reused.Load() }
}
