package wire

import (
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/responses"
	"github.com/agentsnap/agentsnap/session"
)

// Responses returns OpenAI's Responses format (POST .../responses),
// streamed or answered whole, as openai-go's Responses client, the openai
// npm package and the Vercel AI SDK speak it, with its stateful chains:
// the format keeps every response it serves, so previous_response_id and
// item_reference resolve against them — a fork child may name its
// parent's responses — and the ids it hands out are derived from each
// call's Key, so a replay hands back the recorded ones. Each call returns
// a new format with nothing kept: give each Handler its own.
func Responses() Format { return &responsesFormat{served: responses.NewServed()} }

type responsesFormat struct{ served *responses.Served }

func (*responsesFormat) Name() string { return "OpenAI Responses (POST /v1/responses)" }

func (*responsesFormat) API() string { return responses.API }

func (*responsesFormat) Match(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/responses")
}

func (f *responsesFormat) DecodeRequest(r *http.Request, body []byte) (*Request, error) {
	return f.decodeNext(r, body, nil)
}

// responsesState is what a Responses request leaves to read the next one
// against: the request read, and its settings.
type responsesState struct {
	n        *responses.Next
	settings json.RawMessage
}

// responsesRequest is a request read and the state it leaves, in one
// allocation.
type responsesRequest struct {
	req   Request
	state responsesState
}

// decodeNext reads body against prev (responses.Served.DecodeNext: an
// agent that sends its items back, or one that chains by
// previous_response_id, whose conversation the format keeps). The
// request's Private stays its Decoded, whose Previous and Store the
// writers answer by.
func (f *responsesFormat) decodeNext(_ *http.Request, body []byte, prev any) (*Request, error) {
	last, _ := prev.(*responsesState)
	var against *responses.Next
	if last != nil {
		against = last.n
	}
	n, err := f.served.DecodeNext(against, body)
	if err != nil {
		return nil, err
	}
	d := n.Decoded
	set := json.RawMessage(nil)
	// The settings are the members but the transport: the same bytes, the
	// same settings, without marshaling them again.
	if last != nil && n.SameRest {
		set = last.settings
	} else if set, err = settings(d.Settings); err != nil {
		return nil, fmt.Errorf("reading the request's settings: %w", err)
	}
	rr := &responsesRequest{state: responsesState{n: n, settings: set}}
	req := &rr.req
	*req = Request{Model: d.Model, System: d.System, Messages: d.Messages, Tools: d.Tools, Stream: d.Stream, Settings: set, Private: d, state: &rr.state}
	if fw := d.Forward(); fw != nil {
		req.Forward = fw
	}
	if last != nil && n.Reused > 0 {
		req.base, req.reused = last, n.Reused
	}
	return req, nil
}

// answer is what the writers need of req.
func (*responsesFormat) answer(req *Request) (responses.Answer, bool) {
	a := responses.Answer{Key: req.Key, Model: req.Model, Instructions: req.System, Tools: req.Tools}
	d, _ := req.Private.(*responses.Decoded)
	if d == nil {
		return a, true
	}
	a.Previous = d.Previous
	return a, d.Store
}

func (f *responsesFormat) WriteStream(w http.ResponseWriter, req *Request, chunks iter.Seq[llm.Chunk]) error {
	a, store := f.answer(req)
	res, err := responses.WriteStream(w, a, chunks)
	f.keep(req, res, store)
	return err
}

func (f *responsesFormat) WriteMessage(w http.ResponseWriter, req *Request, msg session.Message, usage *session.Usage, finish *session.FinishReason) error {
	a, store := f.answer(req)
	res, err := responses.WriteMessage(w, a, msg, usage, finish)
	f.keep(req, res, store)
	return err
}

// keep remembers an answer a later request may continue.
func (f *responsesFormat) keep(req *Request, res responses.Result, store bool) {
	if !res.Kept {
		return
	}
	if st, ok := req.state.(*responsesState); ok && st.n != nil {
		f.served.PutNext(res.ID, st.n, res.Output, res.ItemIDs, store) // its messages are req's
		return
	}
	f.served.Put(res.ID, req.Messages, res.Output, res.ItemIDs, store)
}

func (*responsesFormat) WriteError(w http.ResponseWriter, status int, code, message string) {
	responses.WriteError(w, status, code, message)
}
