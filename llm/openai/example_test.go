package openai_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/session"
)

// Example points a driver at a local server that streams a short answer
// the way an OpenAI-compatible endpoint does, and prints the chunks.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Hello"},"finish_reason":null}]}`+"\n\n")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":", world"},"finish_reason":"stop"}]}`+"\n\n")
		io.WriteString(w, `data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":3}}`+"\n\n")
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()

	d, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "gpt-4o-mini"})
	if err != nil {
		fmt.Println(err)
		return
	}
	seq, err := d.Stream(context.Background(), &llm.Request{
		Session:  llm.SessionRef{ID: "root"},
		Turn:     1,
		Step:     1,
		System:   "Be brief.",
		Messages: []llm.Message{{Role: session.RoleUser, Content: []session.Part{session.TextPart("Say hello.")}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for c := range seq {
		fmt.Println(string(c.AppendJSON(nil)))
	}
	// Output:
	// {"type":"block-start","index":0,"blockType":"text"}
	// {"type":"text-delta","index":0,"text":"Hello"}
	// {"type":"text-delta","index":0,"text":", world"}
	// {"type":"block-end","index":0,"block":{"type":"text","text":"Hello, world"}}
	// {"type":"usage","usage":{"inputTokens":9,"outputTokens":3}}
	// {"type":"finish","reason":{"kind":"stop"}}
}

// ExampleKeyFromEnv shows which variable wins when several are set.
func ExampleKeyFromEnv() {
	env := map[string]string{"OPENAI_API_KEY": "sk-from-openai", "DEEPSEEK_API_KEY": "sk-from-deepseek"}
	_, name := openai.KeyFromEnv(func(v string) string { return env[v] })
	fmt.Println(name)
	// Output: OPENAI_API_KEY
}

// ExampleRetryable shows how a runtime decides whether to try a failed step
// again.
func ExampleRetryable() {
	for _, code := range []string{openai.CodeRateLimit, openai.CodeAuth} {
		fmt.Println(code, openai.Retryable(code))
	}
	// Output:
	// RATE_LIMIT true
	// AUTH false
}
