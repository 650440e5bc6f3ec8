package gemini_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/llm/gemini"
	"github.com/agentsnap/agentsnap/session"
)

// Example points a driver at a local server that streams an answer the
// way the Gemini API does — a thought, text, a function call without an
// id, which gets call_TURN_STEP_BLOCK — and prints the chunks.
func Example() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println(r.URL.Path, r.Header.Get("X-Goog-Api-Key") != "")
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Look it up.","thought":true}]}}]}`+"\n\n")
		io.WriteString(w, `data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"lookup","args":{"key":"release"}},"thoughtSignature":"c2ln"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":3,"totalTokenCount":12}}`+"\n\n")
	}))
	defer srv.Close()

	d, err := gemini.New(gemini.Config{BaseURL: srv.URL, APIKey: "AIza-example", Model: "gemini-2.5-flash"})
	if err != nil {
		fmt.Println(err)
		return
	}
	seq, err := d.Stream(context.Background(), &llm.Request{
		Session:  llm.SessionRef{ID: "root"},
		Turn:     1,
		Step:     1,
		Messages: []llm.Message{{Role: session.RoleUser, Content: []session.Part{session.TextPart("Which release?")}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for c := range seq {
		fmt.Println(string(c.AppendJSON(nil)))
	}
	// Output:
	// /v1beta/models/gemini-2.5-flash:streamGenerateContent true
	// {"type":"block-start","index":0,"blockType":"reasoning"}
	// {"type":"reasoning-delta","index":0,"text":"Look it up."}
	// {"type":"block-end","index":0,"block":{"type":"reasoning","text":"Look it up."}}
	// {"type":"block-start","index":1,"blockType":"tool-call"}
	// {"type":"tool-call-delta","index":1,"id":"call_1_1_1","name":"lookup","argumentsDelta":"{\"key\":\"release\"}"}
	// {"type":"block-end","index":1,"block":{"type":"tool-call","id":"call_1_1_1","name":"lookup","arguments":"{\"key\":\"release\"}","meta":{"gemini":{"thoughtSignature":"c2ln"}}}}
	// {"type":"usage","usage":{"inputTokens":9,"outputTokens":3}}
	// {"type":"finish","reason":{"kind":"tool-calls"}}
}
