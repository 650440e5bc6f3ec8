package wire

import (
	"encoding/json"
	"fmt"
	"iter"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/anthropic"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/session"
)

// AnthropicMessages is Anthropic's Messages format (POST /v1/messages),
// streamed as named server-sent events or answered whole, as the official
// SDKs (anthropic-sdk-go, @anthropic-ai/sdk, anthropic for Python) speak
// it. They append v1/messages to their base URL: point them at the origin
// (http://agentsnap.invalid for Runtime, serve's printed URL without /v1).
// A path that ends in /v1/messages under any prefix is served, so a base
// URL that ends in /v1 works too (its calls go to /v1/v1/messages). Token
// counts (POST .../v1/messages/count_tokens) are served beside them (see
// Handler). The schema is package llm/anthropic's, the live side's too.
var AnthropicMessages Format = anthropicMessages{}

type anthropicMessages struct{}

func (anthropicMessages) Name() string { return "Anthropic Messages (POST /v1/messages)" }

func (anthropicMessages) API() string { return anthropic.API }

func (anthropicMessages) Match(r *http.Request) bool {
	return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/v1/messages")
}

func (f anthropicMessages) DecodeRequest(r *http.Request, body []byte) (*Request, error) {
	return f.decodeNext(r, body, nil)
}

// anthropicState is what a Messages request leaves to read the next one
// against: the request read, and its settings.
type anthropicState struct {
	d        *anthropic.Decoded
	settings json.RawMessage
}

// anthropicRequest is a request read and the state it leaves, in one
// allocation.
type anthropicRequest struct {
	req   Request
	state anthropicState
}

func (anthropicMessages) decodeNext(r *http.Request, body []byte, prev any) (*Request, error) {
	last, _ := prev.(*anthropicState)
	var against *anthropic.Decoded
	if last != nil {
		against = last.d
	}
	d, err := anthropic.DecodeNext(against, body)
	if err != nil {
		return nil, err
	}
	call := d.Call
	set := json.RawMessage(nil)
	// The settings are the members but Known: the same bytes, the same
	// settings, without marshaling them again.
	if last != nil && d.SameRest {
		set = last.settings
	} else if set, err = anthropicSettings(call); err != nil {
		return nil, fmt.Errorf("reading the request's settings: %w", err)
	}
	ar := &anthropicRequest{state: anthropicState{d: d, settings: set}}
	req := &ar.req
	*req = Request{Model: call.Model, System: call.System, Messages: call.Messages, Tools: call.Tools, Stream: call.Stream, Settings: set, state: &ar.state}
	var betas []string
	if r != nil {
		betas = slices.Clone(r.Header.Values(anthropic.BetaHeader))
	}
	if call.Cache != nil || len(betas) > 0 || call.Media != nil {
		req.Forward = &anthropic.Forward{Cache: call.Cache, Betas: betas, Media: call.Media}
	}
	if last != nil && d.Reused > 0 {
		req.base, req.reused = last, d.Reused
	}
	return req, nil
}

// anthropicSettings is call's settings: its members but Known, and its
// tools when they say more than agentsnap's terms (Call.ToolsSetting).
func anthropicSettings(call *anthropic.Call) (json.RawMessage, error) {
	if call.ToolsSetting == nil {
		return settings(call.Members, anthropic.Known...)
	}
	members := maps.Clone(call.Members)
	members["tools"] = call.ToolsSetting
	return settings(members, anthropicKnownButTools...)
}

// anthropicKnownButTools is anthropic.Known without "tools".
var anthropicKnownButTools = slices.DeleteFunc(slices.Clone(anthropic.Known), func(k string) bool { return k == "tools" })

func (anthropicMessages) WriteStream(w http.ResponseWriter, req *Request, chunks iter.Seq[llm.Chunk]) error {
	flush := startStream(w)
	return anthropic.ServeStream(w, flush, anthropic.MessageID(req.Key), req.Model, chunks)
}

func (f anthropicMessages) WriteMessage(w http.ResponseWriter, req *Request, msg session.Message, usage *session.Usage, finish *session.FinishReason) error {
	kind := session.FinishStop
	if finish != nil {
		kind = finish.Kind
	}
	if kind == session.FinishError || kind == session.FinishAborted {
		status, code, text := http.StatusInternalServerError, "", "the model call was aborted"
		if kind == session.FinishError {
			status, code, text = live.ServedFailure(finish)
		}
		f.WriteError(w, status, code, text)
		return nil
	}
	return f.writeJSON(w, http.StatusOK, anthropic.Whole(anthropic.MessageID(req.Key), req.Model, msg, usage, kind))
}

func (f anthropicMessages) WriteError(w http.ResponseWriter, status int, code, message string) {
	_ = f.writeJSON(w, status, anthropic.NewErrorBody(code, message))
}

// writeJSON answers with v as JSON, without HTML escaping: text reaches
// the agent as the model wrote it.
func (anthropicMessages) writeJSON(w http.ResponseWriter, status int, v any) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
