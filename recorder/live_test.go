package recorder_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/recorder"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// fakeProvider is an OpenAI-compatible streaming endpoint that answers the
// fork/codeword scenario the way a model would, choosing its answer from the
// last message of each request.
type fakeProvider struct {
	mu       sync.Mutex
	requests int
	auth     []string
}

func (f *fakeProvider) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
		Stream bool `json:"stream"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || !body.Stream {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.requests++
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	last := body.Messages[len(body.Messages)-1]
	text, _ := last.Content.(string)
	w.Header().Set("Content-Type", "text/event-stream")
	flusher := w.(http.Flusher)
	send := func(v string) {
		fmt.Fprintf(w, "data: %s\n\n", v)
		flusher.Flush()
	}
	switch {
	case last.Role == "tool":
		streamText(send, "The codeword is MARMALADE.")
	case strings.Contains(text, "Use subagent_fork"):
		send(`{"choices":[{"index":0,"delta":{"role":"assistant","reasoning_content":"I will fork."}}]}`)
		send(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_live_1","type":"function","function":{"name":"subagent_fork","arguments":""}}]}}]}`)
		send(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"description\":\"Recall\","}}]}}]}`)
		send(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"prompt\":\"What is the project codeword?\"}"}}]}}]}`)
		send(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
		send(`{"choices":[],"usage":{"prompt_tokens":120,"completion_tokens":30,"total_tokens":150}}`)
		send(`[DONE]`)
	case strings.Contains(text, "What is the project codeword?"):
		streamText(send, "MARMALADE")
	default:
		streamText(send, "OK")
	}
}

func streamText(send func(string), text string) {
	send(`{"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}`)
	for _, word := range strings.SplitAfter(text, " ") {
		b, _ := json.Marshal(word)
		send(fmt.Sprintf(`{"choices":[{"index":0,"delta":{"content":%s}}]}`, b))
	}
	send(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	send(`{"choices":[],"usage":{"prompt_tokens":50,"completion_tokens":5,"total_tokens":55}}`)
	send(`[DONE]`)
}

var _ = Describe("recording from a live OpenAI-compatible endpoint", func() {
	It("records over HTTP and then replays offline", func() {
		provider := &fakeProvider{}
		server := httptest.NewServer(provider)
		const key = "sk-live-0123456789abcdef"
		driver, err := openai.New(openai.Config{BaseURL: server.URL + "/v1", APIKey: key, Model: "fake-model"})
		Expect(err).NotTo(HaveOccurred())

		dir := scaffold("fork/codeword")
		res, err := record(context.Background(), dir, driver, func(o *recorder.Options) {
			o.Provider, o.Model = "openai-compatible", "fake-model"
			o.Secrets = map[string]string{"OPENAI_API_KEY": key}
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Sessions).To(Equal(2))
		Expect(provider.requests).To(Equal(4))
		Expect(provider.auth).To(HaveEach("Bearer " + key))

		// Offline from here on: the endpoint is gone.
		server.Close()
		o := replayPasses(dir)
		Expect(o.Transcript).To(ContainSubstring("assistant: The codeword is MARMALADE."))
		Expect(o.Transcript).To(ContainSubstring("== session 1: fork of root via call_live_1, depth 1 =="))
		for _, content := range tree(dir) {
			Expect(content).NotTo(ContainSubstring(key))
		}
	})
})
