package wire

import (
	"net/http"
	"sync/atomic"
)

// countingResponses is the Responses format, counting the requests it
// reads against the session's last one that reuse its messages: a spec
// sees that the handler takes the incremental path.
type countingResponses struct {
	*responsesFormat
	reused *atomic.Int64
}

func (f countingResponses) decodeNext(r *http.Request, body []byte, prev any) (*Request, error) {
	req, err := f.responsesFormat.decodeNext(r, body, prev)
	if err == nil && req.base != nil && req.reused > 0 {
		f.reused.Add(1)
	}
	return req, err
}

// CountingResponses returns a new Responses format and how many requests
// it has read reusing the messages of its session's last one.
func CountingResponses() (Format, func() int64) {
	n := new(atomic.Int64)
	return countingResponses{responsesFormat: Responses().(*responsesFormat), reused: n}, n.Load
}
