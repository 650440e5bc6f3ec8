package harness_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm/openai"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/transcript"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// idServer is an OpenAI-compatible endpoint whose tool calls carry ids the
// way some servers do: none at all (the driver then names them call_<n>
// per response), or "call_0" on every call. The root delegates twice in
// step 1 (two children at once) and once more in step 2 and in turn 2,
// so ids repeat within a response, across steps and across turns.
type idServer struct {
	ids string // "none" or "call_0"
}

func (s idServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	send := func(v string) {
		fmt.Fprintf(w, "data: %s\n\n", v)
		w.(http.Flusher).Flush()
	}
	users, results := 0, 0
	firstUser := ""
	for _, m := range body.Messages {
		switch m.Role {
		case "user":
			users++
			if firstUser == "" {
				firstUser, _ = m.Content.(string)
			}
		case "tool":
			results++
		}
	}
	switch {
	case strings.HasPrefix(firstUser, "Child:"):
		streamText(send, "done: "+strings.TrimPrefix(firstUser, "Child: "))
	case users == 1 && results == 0:
		s.calls(send, "A", "B") // two children at once, ids repeated within the response
	case users == 1 && results == 2:
		s.calls(send, "C") // the id comes back in the next step
	case users == 1:
		streamText(send, "Turn one is done.")
	case results == 3:
		s.calls(send, "D") // and in the next turn
	default:
		streamText(send, "Turn two is done.")
	}
}

// calls streams one spawn call per task, with the server's kind of id.
func (s idServer) calls(send func(string), tasks ...string) {
	for i, t := range tasks {
		id := ""
		if s.ids == "call_0" {
			id = `"id":"call_0",`
		}
		args, _ := json.Marshal(fmt.Sprintf(`{"description":"task %s","prompt":"Child: %s"}`, t, t))
		send(fmt.Sprintf(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":%d,%s"type":"function","function":{"name":"subagent_spawn","arguments":%s}}]}}]}`, i, id, args))
	}
	send(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`)
	send(`[DONE]`)
}

func streamText(send func(string), text string) {
	b, _ := json.Marshal(text)
	send(fmt.Sprintf(`{"choices":[{"index":0,"delta":{"role":"assistant","content":%s}}]}`, b))
	send(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`)
	send(`[DONE]`)
}

var _ = Describe("a tool-call id a parent reuses", Label("repeated-ids"), func() {
	DescribeTable("makes distinct children that record, replay, label and compare correctly",
		func(ids string, wantCallIDs []string) {
			srv := httptest.NewServer(idServer{ids: ids})
			dir := filepath.Join(GinkgoT().TempDir(), "parallel", "repeated-"+ids)
			Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte(`{
  "description": "ids repeat within a response, across steps and across turns",
  "prompts": ["Delegate A and B, then C.", "Delegate D."],
  "agent": {"preset": "default", "system": "Delegate.", "tools": ["subagent_spawn"]}
}
`), 0o644)).To(Succeed())
			d, err := openai.New(openai.Config{BaseURL: srv.URL + "/v1", Model: "m"})
			Expect(err).NotTo(HaveOccurred())
			res, err := recorder.Record(context.Background(), dir, recorder.Options{Runtime: agent.Reference, Driver: d, Live: true, Endpoint: srv.URL, Provider: "openai-compatible", Model: "m"})
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Sessions).To(Equal(5))
			srv.Close() // the replay is offline

			fx, err := fixture.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			var got []string
			for _, l := range fx.Logs[1:] {
				got = append(got, l.Header.ID)
				Expect(l.Header.ParentSession).To(Equal("root"))
			}
			Expect(got).To(Equal(wantCallIDs), "one session per call, named by lineage, in call order")

			o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: agent.Reference})
			Expect(err).NotTo(HaveOccurred())
			Expect(o).To(harness.MatchRecording())
			Expect(judge.CompareGolden(o).Message).To(BeEmpty())

			text, err := transcript.Render(fx.Logs)
			Expect(err).NotTo(HaveOccurred())
			for i, task := range []string{"A", "B", "C", "D"} {
				Expect(text).To(ContainSubstring(fmt.Sprintf("== session %d: spawn of root via %s, depth 1 ==\nturn 1 (subagent)\n  user: Child: %s", i+1, fx.Logs[i+1].Header.ParentCallID, task)))
			}

			By("replaying concurrently many times: children of one call id never swap")
			for range 20 {
				o, err := judge.Replay(context.Background(), fx, harness.Options{Runtime: agent.Reference})
				Expect(err).NotTo(HaveOccurred())
				Expect(o).To(harness.MatchRecording())
			}
		},
		// No ids: the driver names calls by their block, call_0 and call_1
		// in step 1, call_0 again in the later steps.
		Entry("a server that sends no tool-call ids", "none",
			[]string{"root/call_0", "root/call_1", "root/call_0#2", "root/call_0#3"}),
		// call_0 everywhere: the driver keeps ids unique within a response.
		Entry("a server that repeats call_0", "call_0",
			[]string{"root/call_0", "root/call_0_1", "root/call_0#2", "root/call_0#3"}),
	)
})
