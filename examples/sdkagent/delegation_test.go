package sdkagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/agentsnap/agentsnap/examples/sdkagent"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// toolResult returns the content of the tool message answering callID in
// a request.
func toolResult(r sentRequest, callID string) any {
	for _, m := range r.Messages {
		if m.Role == "tool" && m.ToolCallID == callID {
			return m.Content
		}
	}
	return nil
}

var _ = Describe("a delegation", func() {
	It("without a prompt starts no child and tells the model what it wants", func() {
		e := &endpoint{answers: []liveAnswer{
			{calls: []liveCall{{"call_1", "subagent_spawn", `{"prompt":""}`}}},
			{text: "done"},
		}}
		srv := httptest.NewServer(e)
		DeferCleanup(srv.Close)
		Expect(newAgent(srv).NewSession().Send(context.Background(), "Go.")).To(Equal("done"))
		sent := e.requests()
		Expect(sent).To(HaveLen(2), "no child called the model")
		Expect(toolResult(sent[1], "call_1")).To(Equal(`error: subagent_spawn wants {"prompt": "..."}, got {"prompt":""}`))
	})

	It("from a child at the depth limit is an unknown tool, not a grandchild", func() {
		e := &endpoint{answers: []liveAnswer{
			{calls: []liveCall{{"call_1", "subagent_spawn", `{"prompt":"look deeper"}`}}},
			{calls: []liveCall{{"call_2", "subagent_spawn", `{"prompt":"deeper still"}`}}},
			{text: "child done"},
			{text: "root done"},
		}}
		srv := httptest.NewServer(e)
		DeferCleanup(srv.Close)
		Expect(newAgent(srv).NewSession().Send(context.Background(), "Go.")).To(Equal("root done"))
		sent := e.requests()
		Expect(sent).To(HaveLen(4))
		Expect(toolResult(sent[2], "call_2")).To(Equal(`error: unknown tool "subagent_spawn" (tools: weather, calculator; delegation only above the depth limit)`))
		Expect(toolResult(sent[3], "call_1")).To(Equal("child done"))
	})

	It("whose child fails answers the model with the child's error, and the parent goes on", func() {
		e := &endpoint{answers: []liveAnswer{
			{calls: []liveCall{{"call_1", "subagent_fork", `{"prompt":"check"}`}}},
			{text: "done without help"},
		}}
		srv := httptest.NewServer(e)
		DeferCleanup(srv.Close)
		a := newAgent(srv)
		a.ChildContext = func(ctx context.Context, _ string, _ bool) context.Context {
			cctx, cancel := context.WithCancel(ctx)
			cancel() // the child's calls cannot start
			return cctx
		}
		Expect(a.NewSession().Send(context.Background(), "Go.")).To(Equal("done without help"))
		sent := e.requests()
		Expect(sent).To(HaveLen(2))
		Expect(toolResult(sent[1], "call_1")).To(And(
			HavePrefix("error: the subagent failed: sdkagent: model call: "),
			ContainSubstring("context canceled")))
	})
})

var _ = Describe("weather", func() {
	It("reads a city with spaces around it", func() {
		Expect(sdkagent.Weather("  Lisbon\n")).To(Equal("Lisbon: sunny, 24°C"))
	})
})

// meetingPoint answers the root's first call with two spawns, and each
// child only once both children have called: it serves them only if they
// run at the same time. The root's last call, which carries the results,
// gets text.
type meetingPoint struct {
	mu      sync.Mutex
	arrived int
	both    chan struct{}
	last    sentRequest // the root's call with the children's results
}

func (m *meetingPoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req sentRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return
	}
	last := req.Messages[len(req.Messages)-1]
	var answer liveAnswer
	switch {
	case last.Role == "tool":
		m.mu.Lock()
		m.last = req
		m.mu.Unlock()
		answer = liveAnswer{text: "both helped"}
	case last.Content == "Go.":
		answer = liveAnswer{calls: []liveCall{{"call_a", "subagent_spawn", `{"prompt":"A"}`}, {"call_b", "subagent_spawn", `{"prompt":"B"}`}}}
	default: // a child's task
		m.mu.Lock()
		if m.arrived++; m.arrived == 2 {
			close(m.both)
		}
		m.mu.Unlock()
		select {
		case <-m.both:
		case <-r.Context().Done():
			return
		}
		answer = liveAnswer{text: fmt.Sprint("did ", last.Content)}
	}
	w.Header().Set("Content-Type", "text/event-stream")
	streamAnswer(func(frame string) { fmt.Fprintf(w, "data: %s\n\n", frame) }, answer)
}

var _ = Describe("the children of one answer", func() {
	It("run at the same time, their results sent back in call order", func() {
		m := &meetingPoint{both: make(chan struct{})}
		srv := httptest.NewServer(m)
		DeferCleanup(srv.Close)
		// Children run one after another would hold the first at the
		// meeting point until this deadline, and it would fail.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		Expect(newAgent(srv).NewSession().Send(ctx, "Go.")).To(Equal("both helped"))
		m.mu.Lock()
		defer m.mu.Unlock()
		var results []string
		for _, msg := range m.last.Messages {
			if msg.Role == "tool" {
				results = append(results, fmt.Sprint(msg.ToolCallID, ": ", msg.Content))
			}
		}
		Expect(results).To(Equal([]string{"call_a: did A", "call_b: did B"}))
	})
})
