package recorder_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap/llm/openai"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// reply is what the scripted model answers: a text, or one tool call.
type reply struct {
	text          string
	call, name    string // the tool call's id and tool
	args          string // its arguments, JSON
	input, output int    // the usage it reports (at least 100 and 10)
}

// scripted is a live OpenAI-compatible endpoint that answers by the last
// message of a request: a user message's text picks its reply from
// answers, a tool result gets "Result: " and the result. It counts every
// request it answers and keeps the last message of each.
type scripted struct {
	*httptest.Server
	mu      sync.Mutex
	answers map[string]reply
	asked   []string // the last message of each request, in order
	leak    string   // added to every text answer, when set
	fail    bool     // every request gets a 500
}

// newScripted starts a scripted endpoint with answers.
func newScripted(answers map[string]reply) *scripted {
	s := &scripted{answers: answers}
	s.Server = httptest.NewServer(s)
	DeferCleanup(s.Close)
	return s
}

// driver returns a live driver for the endpoint.
func (s *scripted) driver() *openai.Driver {
	d, err := openai.New(openai.Config{BaseURL: s.URL + "/v1", APIKey: "sk-scripted-0123456789abcdef", Model: "scripted-model", MaxRetries: -1})
	Expect(err).NotTo(HaveOccurred())
	return d
}

// requests returns how many requests the endpoint answered, and resets
// the count.
func (s *scripted) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.asked
	s.asked = nil
	return out
}

func (s *scripted) set(f func(s *scripted)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	last := body.Messages[len(body.Messages)-1]
	text, _ := last.Content.(string)
	s.mu.Lock()
	s.asked = append(s.asked, last.Role+": "+text)
	a, ok := s.answers[text]
	leak, fail := s.leak, s.fail
	s.mu.Unlock()
	switch {
	case fail:
		http.Error(w, `{"error":{"message":"the server is down"}}`, http.StatusInternalServerError)
		return
	case last.Role == "tool":
		a = reply{text: "Result: " + text}
	case !ok:
		a = reply{text: "I was not told what to say to " + text}
	}
	if a.text != "" {
		a.text += leak
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(v string) {
		fmt.Fprintf(w, "data: %s\n\n", v)
		w.(http.Flusher).Flush()
	}
	finish := "stop"
	if a.call != "" {
		finish = "tool_calls"
		args, _ := json.Marshal(a.args)
		send(fmt.Sprintf(`{"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":%q,"type":"function","function":{"name":%q,"arguments":%s}}]}}]}`, a.call, a.name, args))
	} else {
		for _, word := range strings.SplitAfter(a.text, " ") {
			b, _ := json.Marshal(word)
			send(fmt.Sprintf(`{"choices":[{"index":0,"delta":{"role":"assistant","content":%s}}]}`, b))
		}
	}
	send(fmt.Sprintf(`{"choices":[{"index":0,"delta":{},"finish_reason":%q}]}`, finish))
	send(fmt.Sprintf(`{"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d}}`, max(a.input, 100), max(a.output, 10)))
	send(`[DONE]`)
}
