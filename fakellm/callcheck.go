package fakellm

import (
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// RecordedCall is a recorded model call a live call is about to replay,
// as [WithCallCheck] shows it.
type RecordedCall struct {
	Lineage string // the recorded session: "root", "root/call_1"
	Number  int    // 1-based among the session's replayed calls
	Entry   Entry
	// Request is the call's recorded request/header: what the agent sent
	// then. nil when the log holds none for the call (an entry of the
	// override, a log without request headers) or the driver was built
	// from files rather than logs in memory ([New] keeps them).
	Request *session.RequestHeaderData
}

// WithCallCheck has check look at every live call before it replays a
// recorded one, once the call is routed to its recorded session and found
// on the recording's path. A non-nil error refuses the call: Stream returns
// that error, serves nothing and leaves the session's cursor where it was,
// and [Driver.Check] lists it. A recorder that replays what still matches
// and records the rest live refuses a call whose request differs from the
// recorded one this way.
//
// check runs under the driver's lock: it must not call the driver.
func WithCallCheck(check func(c RecordedCall, req *llm.Request) error) Option {
	return func(o *options) { o.callCheck = check }
}

// checkCall runs the call check, if any, on r's entry e for req. The caller
// holds d.mu.
func (d *Driver) checkCall(r *replay, e Entry, req *llm.Request) error {
	if d.opts.callCheck == nil {
		return nil
	}
	c := RecordedCall{Lineage: r.lineage, Number: r.cursor + 1, Entry: e, Request: r.request(e)}
	return d.opts.callCheck(c, req)
}

// request returns the recorded request/header of entry e of r, or nil. The
// headers of r's own events are indexed at the first ask.
func (r *replay) request(e Entry) *session.RequestHeaderData {
	if r.log == nil || e.Turn == 0 && e.Step == 0 {
		return nil
	}
	if r.requests == nil {
		r.requests = map[callKey]*session.RequestHeaderData{}
		for _, ev := range r.log.Own() {
			if ev.Type != session.TypeRequestHeader {
				continue
			}
			var h session.RequestHeaderData
			if ev.Decode(&h) != nil {
				continue
			}
			k := callKey{h.Turn, h.Step, h.Attempt}
			if _, dup := r.requests[k]; !dup {
				r.requests[k] = &h
			}
		}
	}
	return r.requests[callKey{e.Turn, e.Step, e.Attempt}]
}
