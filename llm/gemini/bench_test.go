package gemini

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// discardResponse is an http.ResponseWriter that keeps nothing, so a
// benchmark measures the writer, not a recorder's buffer.
type discardResponse struct{ h http.Header }

func (d *discardResponse) Header() http.Header         { return d.h }
func (d *discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardResponse) WriteHeader(int)             {}
func (d *discardResponse) Flush()                      {}

// BenchmarkWriteStream measures writing one streamed answer: a text of 46
// deltas with usage, and a text then two function calls.
func BenchmarkWriteStream(b *testing.B) {
	usage := &session.Usage{InputTokens: 900, OutputTokens: 120}
	words := strings.Fields(strings.Repeat("The answer is near: check the <conf> & the logs, then run it again. ", 4))
	text := llm.StreamMessage(session.Message{Role: session.RoleAssistant, Content: []session.Part{
		session.TextPart(strings.Join(words[:46], " ")),
	}}, usage, "")
	if n := len(text) - 4; n != 46 { // less the block start and end, the usage and the finish
		b.Fatalf("%d text deltas, want 46", n)
	}
	calls := llm.StreamMessage(session.Message{Role: session.RoleAssistant, Content: []session.Part{
		session.TextPart("Let me look."),
		{Type: session.PartToolCall, ID: "call_1", Name: "get_weather", Arguments: `{"city": "Paris", "unit": "C"}`},
		{Type: session.PartToolCall, ID: "call_2", Name: "search", Arguments: `{"query":"a < b","limit":10,"tags":["x","y"]}`},
	}}, usage, "")
	for _, bc := range []struct {
		name   string
		chunks []session.Chunk
	}{{"text", text}, {"calls", calls}} {
		b.Run(bc.name, func(b *testing.B) {
			w := &discardResponse{h: http.Header{}}
			seq := slices.Values(bc.chunks)
			a := Answer{Model: "gemini-2.5-flash", ResponseID: "resp-0123456789"}
			b.ReportAllocs()
			for b.Loop() {
				if err := WriteStream(w, a, seq); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
