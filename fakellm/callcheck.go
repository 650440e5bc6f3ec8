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
	// then, for this attempt — a retried call's retry shows the header
	// before its own chunks, also in a log without attempt numbers (dsh
	// v0). nil when the log holds none for the call (an entry of the
	// override, a log without request headers), the driver was built from
	// files rather than logs in memory ([New] keeps them), or a Deriver of
	// one's own derived a script whose call's attempts share their turn,
	// step and attempt (then it cannot tell which header is the call's).
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

// checkCall runs the call check, if any, on r's entry e, its next, for
// req. The caller holds d.mu.
func (d *Driver) checkCall(r *replay, e Entry, req *llm.Request) error {
	if d.opts.callCheck == nil {
		return nil
	}
	c := RecordedCall{Lineage: r.lineage, Number: r.cursor + 1, Entry: e, Request: r.request(r.cursor, e)}
	return d.opts.callCheck(c, req)
}

// request returns the recorded request/header of entry i of r, e, or nil:
// the one its derivation found before the call's chunks (Script.asked) —
// a retried call's own attempt's, also where the log numbers no attempts —
// when its turn, step and attempt are e's. Without that (a Deriver of
// one's own, an override's replace), the one header of e's (turn, step,
// attempt) among the own events, events[seedLength:], or nil when the
// attempts of a retried call share it. The headers are indexed at the
// first ask.
func (r *replay) request(i int, e Entry) *session.RequestHeaderData {
	if r.log == nil || e.Turn == 0 && e.Step == 0 {
		return nil
	}
	if r.requests == nil {
		r.requests = map[int64]*session.RequestHeaderData{}
		r.byCall = map[callKey][]*session.RequestHeaderData{}
		own := int64(-1)
		if o := r.log.Own(); len(o) > 0 {
			own = o[0].Seq
		}
		for _, ev := range r.log.Events {
			if ev.Type != session.TypeRequestHeader {
				continue
			}
			var h session.RequestHeaderData
			if ev.Decode(&h) != nil {
				continue
			}
			r.requests[ev.Seq] = &h
			if own >= 0 && ev.Seq >= own {
				k := callKey{h.Turn, h.Step, h.Attempt}
				r.byCall[k] = append(r.byCall[k], &h)
			}
		}
	}
	k := callKey{e.Turn, e.Step, e.Attempt}
	if asked := r.script.asked; len(asked) == len(r.script.Entries) && i < len(asked) {
		h := r.requests[asked[i]-1]
		if h == nil || (callKey{h.Turn, h.Step, h.Attempt}) != k {
			return nil
		}
		return h
	}
	if hs := r.byCall[k]; len(hs) == 1 {
		return hs[0]
	}
	return nil
}
