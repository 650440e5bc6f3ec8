package wire

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/session"
)

// Gemini is Google's Gemini API (POST .../models/{model}:generateContent,
// and :streamGenerateContent?alt=sse for a stream), as the official SDKs
// (google.golang.org/genai, @google/genai) speak it. The model and whether
// to stream are in the URL, under any prefix (the SDKs add the API
// version, v1beta, to the base URL they are given). A stream asked for
// without alt=sse — alt=json or no alt, as the clients generated from the
// API's protos send it ($alt=json;enum-encoding=int: generative-ai-go, and
// langchaingo's googleai on it) — is answered as the API does, with the
// same responses as one JSON array. Token counts
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
	array    bool // the stream goes out as a JSON array, not as events
}

// geminiRequest is a request read and the state it leaves, in one
// allocation.
type geminiRequest struct {
	req   Request
	state geminiState
}

func (geminiFormat) decodeNext(r *http.Request, body []byte, prev any) (*Request, error) {
	model, stream, _ := gemini.ParsePath(r.URL.Path)
	array := false
	if stream {
		var err error
		if array, err = jsonArrayStream(r.URL.Query()); err != nil {
			return nil, err
		}
	}
	req, err := decodeGemini(model, stream, body, prev)
	if err == nil {
		req.state.(*geminiState).array = array
	}
	return req, err
}

// jsonArrayStream reports whether a streamGenerateContent request with
// query q asks for its responses as one JSON array rather than as
// server-sent events: alt (or $alt, as Google's APIs also read it) is sse
// for events, json (with options, such as ;enum-encoding=int, which
// changes nothing in what agentsnap writes) or absent for an array. Any
// other alt (proto, media) is refused.
func jsonArrayStream(q url.Values) (bool, error) {
	alt := q.Get("alt")
	if alt == "" {
		alt = q.Get("$alt")
	}
	format, _, _ := strings.Cut(alt, ";")
	switch format {
	case "sse":
		return false, nil
	case "", "json":
		return true, nil
	}
	return false, unserved{fmt.Errorf("streamGenerateContent with alt=%s asks for an encoding agentsnap does not serve; ask for server-sent events (alt=sse, as the official SDKs do) or JSON (alt=json)", alt)}
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
	if call.Media != nil || call.Responses != nil {
		req.Forward = &gemini.Forward{Media: call.Media, Responses: call.Responses}
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
	if st, _ := req.state.(*geminiState); st != nil && st.array {
		return gemini.WriteJSONStream(w, geminiAnswer(req), chunks)
	}
	return gemini.WriteStream(w, geminiAnswer(req), chunks)
}

func (geminiFormat) WriteMessage(w http.ResponseWriter, req *Request, msg session.Message, usage *session.Usage, finish *session.FinishReason) error {
	return gemini.WriteMessage(w, geminiAnswer(req), msg, usage, finish)
}

func (geminiFormat) WriteError(w http.ResponseWriter, status int, code, message string) {
	_ = gemini.WriteError(w, status, code, message)
}
