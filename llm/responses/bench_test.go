package responses

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// discard is a ResponseWriter that keeps nothing, so a benchmark measures
// the writer alone.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(p []byte) (int, error) { return len(p), nil }
func (d *discard) WriteHeader(int)             {}
func (d *discard) Flush()                      {}

// benchAnswers are a 46-delta text answer with usage, and a function call
// answer after a reasoning summary, as a replay serves them.
func benchAnswers() map[string][]session.Chunk {
	words := make([]string, 46)
	for i := range words {
		words[i] = "word"
	}
	usage := &session.Usage{InputTokens: 900, OutputTokens: 46, CacheReadTokens: ptr(512)}
	text := session.Message{Role: session.RoleAssistant, Content: []session.Part{session.TextPart(strings.Join(words, " "))}}
	call := session.Message{Role: session.RoleAssistant, Content: []session.Part{
		{Type: session.PartReasoning, Text: "Look the release up.", Meta: json.RawMessage(`{"openai-responses":{"id":"rs_1","encrypted_content":"RU5D"}}`)},
		{Type: session.PartToolCall, ID: "call_1", Name: "lookup", Arguments: `{"key":"release","version":"latest"}`},
	}}
	return map[string][]session.Chunk{
		"text":     llm.StreamMessage(text, usage, session.FinishStop),
		"toolcall": llm.StreamMessage(call, usage, session.FinishToolCalls),
	}
}

// BenchmarkWriteStream measures writing one streamed answer's events.
func BenchmarkWriteStream(b *testing.B) {
	a := Answer{Key: "root:1:1:1", Model: "gpt-test", Instructions: "Be brief.", Tools: []llm.ToolSpec{
		{Name: "lookup", Description: "Look up a fact.", Parameters: json.RawMessage(`{"type":"object","properties":{"key":{"type":"string"}}}`)}}}
	answers := benchAnswers()
	for _, name := range []string{"text", "toolcall"} {
		chunks := answers[name]
		b.Run(name, func(b *testing.B) {
			w := &discard{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := WriteStream(w, a, slices.Values(chunks)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
