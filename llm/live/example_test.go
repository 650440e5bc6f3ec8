package live_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/live"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/session"
)

// ExampleNew makes a live driver of one API (here Chat Completions, whose
// client side is openai.Chat) and streams a call from a local server that
// is busy at first: the driver retries the 429 by itself, after the delay
// the server asks for, since nothing was streamed yet. Config.Sleep stands
// in for the wait.
func ExampleNew() {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		fmt.Println("server:", r.Method, r.URL.Path, "attempt", calls)
		if calls == 1 {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"message":"slow down"}}`)
			return
		}
		live.StreamHeaders(w.Header())
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"Jupiter"},"finish_reason":"stop"}]}`+"\n\n")
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()

	d, err := live.New(openai.Chat{}, live.Config{
		BaseURL: srv.URL + "/v1",
		Model:   "gpt-4o-mini",
		Sleep: func(_ context.Context, d time.Duration) error {
			fmt.Println("driver: waits", d)
			return nil
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	seq, err := d.Stream(context.Background(), &llm.Request{
		Session:  llm.SessionRef{ID: "root"},
		Turn:     1,
		Step:     1,
		Messages: []llm.Message{{Role: session.RoleUser, Content: []session.Part{session.TextPart("Which planet is the largest?")}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	var a llm.Assembler
	for c := range seq {
		a.Add(c)
	}
	fmt.Println(a.Finish().Kind, a.Message().Content[0].Text)
	// Output:
	// server: POST /v1/chat/completions attempt 1
	// driver: waits 2s
	// server: POST /v1/chat/completions attempt 2
	// stop Jupiter
}

// ExampleDriver_Stream shows a failure once the call was sent: not a Go
// error but an error finish, with the code the runtime decides on
// (Retryable), the HTTP status and a message that says what to check —
// scrubbed of the key, which this server echoes.
func ExampleDriver_Stream() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, `{"error":{"message":"invalid key: `+r.Header.Get("Authorization")+`"}}`)
	}))
	defer srv.Close()

	d, err := live.New(openai.Chat{}, live.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-example-0123456789", Model: "gpt-4o-mini"})
	if err != nil {
		fmt.Println(err)
		return
	}
	seq, err := d.Stream(context.Background(), &llm.Request{Session: llm.SessionRef{ID: "root"}, Turn: 1, Step: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for c := range seq {
		f := c.Reason.Failure
		fmt.Println(c.Reason.Kind, f.Code, f.Status, live.Retryable(f.Code))
		fmt.Println(f.Message)
	}
	// Output:
	// error AUTH 401 false
	// openai: HTTP 401 Unauthorized: invalid key: [REDACTED]; check the API key
}
