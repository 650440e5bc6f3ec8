package nodetest

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
)

// Call is one tool call of a scripted answer.
type Call struct{ ID, Name, Args string }

// Answer is one scripted answer: text, or tool calls.
type Answer struct {
	Text  string
	Calls []Call
}

// Model is an OpenAI-compatible streaming endpoint that answers from its
// script, keyed by the request's last message: a user message by
// "user:" and its text, a tool result by "tool:" and the id of the call it
// answers. Sessions call it at the same time.
type Model struct {
	answers map[string]Answer

	mu       sync.Mutex
	requests int
	models   map[string]bool // model names it was asked for
	auth     map[string]bool // Authorization headers it got
	unknown  []string        // last messages it had no answer for
}

// NewModel is a Model answering from answers.
func NewModel(answers map[string]Answer) *Model {
	return &Model{answers: answers, models: map[string]bool{}, auth: map[string]bool{}}
}

// Seen returns how many requests the model got, the model names and the
// Authorization headers they carried, and the keys it had no answer for.
func (m *Model) Seen() (requests int, models, auth map[string]bool, unknown []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests, maps.Clone(m.models), maps.Clone(m.auth), slices.Clone(m.unknown)
}

// ServeHTTP answers one Chat Completions request, streamed.
func (m *Model) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model    string `json:"model"`
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
		} `json:"messages"`
		Stream bool `json:"stream"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || !body.Stream || len(body.Messages) == 0 || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	last := body.Messages[len(body.Messages)-1]
	key := "tool:" + last.ToolCallID
	if last.Role == "user" {
		var text string
		_ = json.Unmarshal(last.Content, &text)
		key = "user:" + text
	}
	m.mu.Lock()
	m.requests++
	m.models[body.Model] = true
	m.auth[r.Header.Get("Authorization")] = true
	a, ok := m.answers[key]
	if !ok {
		m.unknown = append(m.unknown, key)
	}
	m.mu.Unlock()
	if !ok {
		http.Error(w, `{"error":{"message":"no scripted answer"}}`, http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(frame string) {
		fmt.Fprintf(w, "data: %s\n\n", frame)
		w.(http.Flusher).Flush()
	}
	StreamAnswer(send, a)
}

// StreamAnswer sends a as chat.completion.chunk frames: text word by word,
// each tool call's arguments in two pieces, as a model streams them.
func StreamAnswer(send func(string), a Answer) {
	finish := "stop"
	if len(a.Calls) > 0 {
		finish = "tool_calls"
	} else {
		send(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`)
		for _, word := range strings.SplitAfter(a.Text, " ") {
			p, _ := json.Marshal(word)
			send(fmt.Sprintf(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":%s}}]}`, p))
		}
	}
	for i, c := range a.Calls {
		send(fmt.Sprintf(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":%d,"id":%q,"type":"function","function":{"name":%q,"arguments":""}}]}}]}`, i, c.ID, c.Name))
		half := len(c.Args) / 2
		for _, piece := range []string{c.Args[:half], c.Args[half:]} {
			p, _ := json.Marshal(piece)
			send(fmt.Sprintf(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,"function":{"arguments":%s}}]}}]}`, i, p))
		}
	}
	send(fmt.Sprintf(`{"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":%q}]}`, finish))
	send(`{"object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":90,"completion_tokens":12,"total_tokens":102}}`)
	send(`[DONE]`)
}
