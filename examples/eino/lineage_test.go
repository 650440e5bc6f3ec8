package eino_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentsnap/agentsnap"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// copyAuthored copies a scenario's authored files, scenario.json and
// playbook.json, into a fresh CATEGORY/NAME folder under a temporary folder.
func copyAuthored(dir string) string {
	dst := filepath.Join(GinkgoT().TempDir(), harness.Name(dir))
	Expect(os.MkdirAll(dst, 0o755)).To(Succeed())
	for _, name := range []string{scenario.File, "playbook.json"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(filepath.Join(dst, name), b, 0o644)).To(Succeed())
	}
	return dst
}

// recordWith records dir from its playbook with rt.
func recordWith(dir string, rt agentsnap.Runtime) error {
	o, err := recorder.PlaybookOptions(dir, 0)
	Expect(err).NotTo(HaveOccurred())
	o.Runtime = rt
	_, err = recorder.Record(context.Background(), dir, o)
	return err
}

// wireRequest is the part of a Chat Completions request these specs read.
type wireRequest struct {
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tools"`
}

// requestLog keeps every request body Eino sends, in the order sent.
type requestLog struct {
	mu   sync.Mutex
	sent []wireRequest
	next http.RoundTripper
}

func (l *requestLog) RoundTrip(r *http.Request) (*http.Response, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	var req wireRequest
	if err := json.Unmarshal(b, &req); err != nil {
		return nil, err
	}
	l.mu.Lock()
	l.sent = append(l.sent, req)
	l.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(b))
	return l.next.RoundTrip(r)
}

// bySystem returns the requests whose system prompt starts with prefix.
func (l *requestLog) bySystem(prefix string) []wireRequest {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []wireRequest
	for _, r := range l.sent {
		if len(r.Messages) > 0 && r.Messages[0].Role == "system" && strings.HasPrefix(r.Messages[0].Content, prefix) {
			out = append(out, r)
		}
	}
	return out
}

var _ = Describe("naming the helpers' sessions", func() {
	It("is needed for the critic: wire.InferLineage() finds the scouts by their request, but Eino never hands the critic its request argument", func() {
		infer := newRuntime(variant{untagged: true, wire: []wire.Option{wire.InferLineage()}})

		By("the scouts: each one's first request is the request argument of one open call")
		dir := copyAuthored(root + "/parallel/two-scouts")
		Expect(recordWith(dir, infer)).To(Succeed())
		for _, name := range []string{"session.jsonl", "session.1.jsonl", "session.2.jsonl", fixture.GoldenFile} {
			inferred, err := os.ReadFile(filepath.Join(dir, name))
			Expect(err).NotTo(HaveOccurred())
			tagged, err := os.ReadFile(filepath.Join(root, "parallel/two-scouts", name))
			Expect(err).NotTo(HaveOccurred())
			Expect(string(inferred)).To(Equal(string(tagged)), "%s: the same log as with the middleware's wire.Spawn", name)
		}

		By("the critic: its first request holds the conversation, not {\"request\": ...}")
		dir = copyAuthored(root + "/fork/critic")
		err := recordWith(dir, infer)
		Expect(err).To(MatchError(ContainSubstring("wire: a request for session root, which waits for the results of its tool calls (call_review), carries none of them")))
	})

	It("is refused without the middleware, naming what to send", func() {
		dir := copyAuthored(root + "/parallel/two-scouts")
		err := recordWith(dir, newRuntime(variant{untagged: true}))
		Expect(err).To(MatchError(ContainSubstring("which waits for the results of its tool calls (call_dune, call_solaris), carries none of them; if it is a subagent's call, name its session: in process, make the child's context with wire.Spawn(ctx, callID) or wire.Fork(ctx, callID)")))
	})
})

var _ = Describe("a handoff to the cashier (adk.SetSubAgents, transfer_to_agent)", func() {
	It("is the root session going on under the cashier's prompt: the transfer's result rewritten as user messages, recorded as sent", func() {
		var sent *requestLog
		rt := newRuntime(variant{transport: func(next http.RoundTripper) http.RoundTripper {
			sent = &requestLog{next: next}
			return sent
		}})
		dir := copyAuthored(root + "/handoff/cashier")
		Expect(recordWith(dir, rt)).To(Succeed())

		By("what Eino sent: the cashier's first call")
		cashier := sent.bySystem("You are the cashier of Folio Books.")
		Expect(cashier).NotTo(BeEmpty())
		var tools []string
		for _, t := range cashier[0].Tools {
			tools = append(tools, t.Function.Name)
		}
		Expect(tools).To(Equal([]string{"catalog", "transfer_to_agent"}), "the cashier's tools, and a transfer back to its parent")
		msgs := cashier[0].Messages
		var roles []string
		for _, m := range msgs {
			roles = append(roles, m.Role)
		}
		Expect(roles).To(Equal([]string{"system", "user", "assistant", "tool", "assistant", "user", "user", "user"}),
			"the root's conversation as it sent it, then two user messages and no tool message")
		Expect(msgs[6].Content).To(Equal("For context: [folio] called tool: `transfer_to_agent` with arguments: {\"agent_name\":\"cashier\"}."))

		By("what the log holds: one session, the transfer answered by an error result, the rewrite as a history/replace, the cashier's steps under its own prompt")
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs).To(HaveLen(1), "a handoff creates no child")
		b, err := os.ReadFile(filepath.Join(dir, fixture.GoldenFile))
		Expect(err).NotTo(HaveOccurred())
		golden := string(b)
		Expect(golden).To(ContainSubstring("result call_to_cashier (error): agentsnap: the agent's next request sent no result for this call"))
		Expect(golden).To(ContainSubstring("  history replaced: the first 5 messages kept, then:\n    user: For context: [folio] called tool: `transfer_to_agent`"))
		Expect(golden).To(MatchRegexp(`called with another system prompt \(\d+ characters\)`))
	})
})
