package wire

import (
	"crypto/sha256"
	"encoding/hex"
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
// version, v1beta, to the base URL they are given). The schema is package
// llm/gemini's, shared with the live driver.
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

func (geminiFormat) DecodeRequest(r *http.Request, body []byte) (*Request, error) {
	model, stream, _ := gemini.ParsePath(r.URL.Path)
	if stream && r.URL.Query().Get("alt") != "sse" {
		return nil, fmt.Errorf("streamGenerateContent without alt=sse asks for a JSON array stream, which agentsnap does not serve; ask for server-sent events with ?alt=sse, as the official SDKs do")
	}
	call, err := gemini.DecodeRequest(body)
	if err != nil {
		return nil, err
	}
	set, err := settings(call.Settings)
	if err != nil {
		return nil, fmt.Errorf("reading the request's settings: %w", err)
	}
	return &Request{Model: model, System: call.System, Messages: call.Messages, Tools: call.Tools, Stream: stream, Settings: set}, nil
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
