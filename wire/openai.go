package wire

import (
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/session"
)

// ChatCompletions is OpenAI's Chat Completions format (POST
// .../chat/completions), streamed as server-sent events or answered whole,
// as the official SDKs (openai-go, the openai npm package) and every
// OpenAI-compatible server speak it. Reasoning goes out as
// reasoning_content, as DeepSeek sends it. The schema is package
// llm/openai's, the live driver's too.
var ChatCompletions Format = chatCompletions{}

type chatCompletions struct{}

func (chatCompletions) Name() string { return "OpenAI Chat Completions (POST /v1/chat/completions)" }

func (chatCompletions) API() string { return openai.API }

func (chatCompletions) Match(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/chat/completions")
}

func (f chatCompletions) DecodeRequest(r *http.Request, body []byte) (*Request, error) {
	return f.decodeNext(r, body, nil)
}

// chatState is what a Chat Completions request leaves to read the next
// one against: the request read, and its settings.
type chatState struct {
	d        *openai.Decoded
	settings json.RawMessage
}

// chatRequest is a request read and the state it leaves, in one
// allocation.
type chatRequest struct {
	req   Request
	state chatState
}

func (chatCompletions) decodeNext(_ *http.Request, body []byte, prev any) (*Request, error) {
	last, _ := prev.(*chatState)
	var against *openai.Decoded
	if last != nil {
		against = last.d
	}
	d, err := openai.DecodeNext(against, body)
	if err != nil {
		return nil, err
	}
	call := d.Call
	set := json.RawMessage(nil)
	if last != nil && d.SameRest {
		set = last.settings
	} else if set, err = chatSettings(call); err != nil {
		return nil, fmt.Errorf("reading the request's settings: %w", err)
	}
	cr := &chatRequest{state: chatState{d: d, settings: set}}
	req := &cr.req
	*req = Request{Model: call.Model, System: call.System, Messages: call.Messages, Tools: call.Tools, Stream: call.Stream, Settings: set, state: &cr.state}
	if call.Media != nil {
		req.Forward = &openai.Forward{Media: call.Media}
	}
	if last != nil && d.Reused > 0 {
		req.base, req.reused = last, d.Reused
	}
	return req, nil
}

// chatSettings is call's settings: its members but Known, and its tools
// as sent when they say more than agentsnap's terms (Call.ToolsSetting).
func chatSettings(call *openai.Call) (json.RawMessage, error) {
	if call.ToolsSetting == nil {
		return settings(call.Members, openai.Known...)
	}
	return settings(call.Members, chatKnownButTools...)
}

// chatKnownButTools is openai.Known without "tools".
var chatKnownButTools = slices.DeleteFunc(slices.Clone(openai.Known), func(k string) bool { return k == "tools" })

func (chatCompletions) WriteStream(w http.ResponseWriter, req *Request, chunks iter.Seq[llm.Chunk]) error {
	flush := startStream(w)
	return openai.ServeStream(w, flush, req.Model, chunks)
}

func (f chatCompletions) WriteMessage(w http.ResponseWriter, req *Request, msg session.Message, usage *session.Usage, finish *session.FinishReason) error {
	kind := session.FinishStop
	if finish != nil {
		kind = finish.Kind
	}
	if kind == session.FinishError {
		status, code, text := live.ServedFailure(finish)
		f.WriteError(w, status, code, text)
		return nil
	}
	return f.writeJSON(w, http.StatusOK, openai.Whole(req.Model, msg, usage, kind))
}

func (f chatCompletions) WriteError(w http.ResponseWriter, status int, code, message string) {
	_ = f.writeJSON(w, status, openai.NewErrorBody(code, message, openai.ErrorTypeServe))
}

// writeJSON answers with v as JSON, HTML-escaped as Chat Completions
// answers always were.
func (chatCompletions) writeJSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	return json.NewEncoder(w).Encode(v)
}
