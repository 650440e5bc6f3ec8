package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/session"
)

// Gemini is Google's Gemini API (POST .../models/{model}:generateContent,
// and :streamGenerateContent?alt=sse for a stream), as the official SDKs
// (google.golang.org/genai, @google/genai) speak it. The model and whether
// to stream are in the URL, under any prefix (the SDKs add the API
// version, v1beta, to the base URL they are given). Token counts
// (.../models/{model}:countTokens) are served beside them (see Handler).
// The schema is package llm/gemini's, shared with the live driver.
var Gemini Format = geminiFormat{}

type geminiFormat struct{}

func (geminiFormat) Name() string {
	return "Gemini (POST /v1beta/models/{model}:generateContent, :streamGenerateContent?alt=sse)"
}

func (geminiFormat) API() string { return gemini.API }

func (geminiFormat) Match(r *http.Request) bool {
	_, _, ok := gemini.ParsePath(r.URL.Path)
	return r.Method == http.MethodPost && ok
}

func (f geminiFormat) DecodeRequest(r *http.Request, body []byte) (*Request, error) {
	return f.decodeNext(r, body, nil)
}

// geminiState is what a Gemini request leaves to read the next one
// against: the body read, and its settings. The model and whether to
// stream are the URL's, read afresh for every request: a session may
// switch models with the same body.
type geminiState struct {
	d        *gemini.Decoded
	settings json.RawMessage
}

// geminiRequest is a request read and the state it leaves, in one
// allocation.
type geminiRequest struct {
	req   Request
	state geminiState
}

func (geminiFormat) decodeNext(r *http.Request, body []byte, prev any) (*Request, error) {
	model, stream, _ := gemini.ParsePath(r.URL.Path)
	if stream && r.URL.Query().Get("alt") != "sse" {
		return nil, unserved{fmt.Errorf("streamGenerateContent without alt=sse asks for a JSON array stream, which agentsnap does not serve; ask for server-sent events with ?alt=sse, as the official SDKs do")}
	}
	return decodeGemini(model, stream, body, prev)
}

// decodeGemini reads a generateContent body of model against what the
// session's last request left (prev), or afresh with prev nil.
func decodeGemini(model string, stream bool, body []byte, prev any) (*Request, error) {
	last, _ := prev.(*geminiState)
	var against *gemini.Decoded
	if last != nil {
		against = last.d
	}
	d, err := gemini.DecodeNext(against, body)
	if err != nil {
		return nil, err
	}
	call := d.Call
	set := json.RawMessage(nil)
	if last != nil && d.SameRest {
		set = last.settings // the settings are the body's alone
	} else if set, err = settings(call.Settings); err != nil {
		return nil, fmt.Errorf("reading the request's settings: %w", err)
	}
	gr := &geminiRequest{state: geminiState{d: d, settings: set}}
	req := &gr.req
	*req = Request{Model: model, System: call.System, Messages: call.Messages, Tools: call.Tools, Stream: stream, Settings: set, state: &gr.state}
	if call.Media != nil {
		req.Forward = &gemini.Forward{Media: call.Media}
	}
	if last != nil && d.Reused > 0 {
		req.base, req.reused = last, d.Reused
	}
	return req, nil
}

// geminiAnswer names the answer to req: its response id is derived from the
// call's key, the same in the recording and every replay.
func geminiAnswer(req *Request) gemini.Answer {
	sum := sha256.Sum256([]byte(req.Key))
	return gemini.Answer{Model: req.Model, ResponseID: "agentsnap-" + hex.EncodeToString(sum[:8])}
}

func (geminiFormat) WriteStream(w http.ResponseWriter, req *Request, chunks iter.Seq[llm.Chunk]) error {
	return gemini.WriteStream(w, geminiAnswer(req), chunks)
}

func (geminiFormat) WriteMessage(w http.ResponseWriter, req *Request, msg session.Message, usage *session.Usage, finish *session.FinishReason) error {
	return gemini.WriteMessage(w, geminiAnswer(req), msg, usage, finish)
}

func (geminiFormat) WriteError(w http.ResponseWriter, status int, code, message string) {
	_ = gemini.WriteError(w, status, code, message)
}
