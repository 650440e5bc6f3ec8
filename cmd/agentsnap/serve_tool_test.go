package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/examples/sdkagent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// toolPost POSTs body to serve's recorded-tool endpoint for the session
// ctx names (sessionOf), and returns the status and the body.
func toolPost(ctx context.Context, serveURL, body string) (int, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(serveURL, "/v1")+toolPath, strings.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	req.Header.Set("Content-Type", "application/json")
	s := sessionOf(ctx)
	req.Header.Set(wire.HeaderSession, s.id)
	if s.parent != "" {
		req.Header.Set(wire.HeaderParent, s.parent)
		req.Header.Set(wire.HeaderCall, s.call)
		req.Header.Set(wire.HeaderMode, s.mode)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// recordedLookup is the agent's lookup run as a recorded tool through
// serve, as an agent in another language runs one: it asks serve first;
// told to run, it runs the tool and sends the output with the call's id
// serve named. Its answers change
// from run to run (a count of the runs); a replay that runs it fails the
// spec (runs nil).
func recordedLookup(serveURL string, runs *atomic.Int64) sdkagent.Tool {
	t := lookup
	t.Run = func(ctx context.Context, args string) (string, error) {
		call := map[string]any{"name": t.Name, "arguments": args}
		ask := func() (toolAnswer, error) {
			b, _ := json.Marshal(call)
			status, body := toolPost(ctx, serveURL, string(b))
			var a toolAnswer
			if status != http.StatusOK {
				return a, fmt.Errorf("the tool endpoint answered %d: %s", status, body)
			}
			return a, json.Unmarshal([]byte(body), &a)
		}
		a, err := ask()
		if err == nil && a.Run {
			if runs == nil {
				defer GinkgoRecover()
				Fail("serve told a replay to run the tool")
			}
			text, _ := lookup.Run(ctx, args)
			call["id"] = a.ID // the call serve named
			call["output"] = session.ToolOutput{Text: fmt.Sprintf("%s (run %d)", text, runs.Add(1))}
			a, err = ask()
		}
		if err != nil || a.Output == nil {
			return "", fmt.Errorf("recorded lookup: %v", err)
		}
		return a.Output.Text, nil
	}
	return t
}

// recordedRuns returns the outputs of a fixture's tool/recorded events, by
// session and call.
func recordedRuns(dir string) []string {
	GinkgoHelper()
	fx, err := fixture.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	var out []string
	for _, l := range fx.Logs {
		for _, e := range l.Own() {
			if e.Type != session.TypeToolRecorded {
				continue
			}
			var d session.ToolRecordedData
			Expect(e.Decode(&d)).To(Succeed())
			out = append(out, l.Header.ParentCallID+" "+d.CallID+": "+d.Result.Text)
		}
	}
	return out
}

// turn2 runs the root's turn 1 of the go-agent fixture in dir and sends
// turn 2's first request, whose answer makes three tool calls (call_fork,
// call_owner, call_spawn): the root then waits for their results.
func turn2(ctx context.Context, serveURL, dir string) {
	GinkgoHelper()
	a, prompts := goAgent(serveURL, dir)
	Expect(a.Run(ctx, prompts[:1])).To(Succeed())
	status, body := rootAgain(serveURL, dir)
	Expect(status).To(Equal(http.StatusOK), body)
}

// rootAgain sends the root's turn-2 request of the go-agent fixture in
// dir (as turn2 sends it), and returns the status and the body.
func rootAgain(serveURL, dir string) (int, string) {
	GinkgoHelper()
	_, prompts := goAgent(serveURL, dir)
	return chatPost(serveURL, `{"model":"go-agent-model","messages":[{"role":"user","content":"`+prompts[0]+`"},{"role":"assistant","content":"OK"},{"role":"user","content":"`+prompts[1]+`"}]}`, nil)
}

var _ = Describe("serve's recorded tools (POST /agentsnap/tool)", func() {
	It("record each output in the log of the session whose answer made the call, and a replay serves it without running the tool", func() {
		dir := copyFixture(scenario.File, fixture.PlaybookFile)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "go-agent")
		a, prompts := goAgent(s.url, dir)
		runs := &atomic.Int64{}
		a.Tools = []sdkagent.Tool{recordedLookup(s.url, runs)}
		Expect(a.Run(context.Background(), prompts)).To(Succeed())
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)
		Expect(runs.Load()).To(Equal(int64(2)))
		Expect(recordedRuns(dir)).To(ConsistOf(
			" call_owner: team-atlas (run 1)",
			"call_spawn call_release: v2.4.1 (run 2)",
		))

		for range 2 {
			s = startServe(nil, "serve", dir, "--runtime", "go-agent")
			a, prompts = goAgent(s.url, dir)
			a.Tools = []sdkagent.Tool{recordedLookup(s.url, nil)}
			Expect(a.Run(context.Background(), prompts)).To(Succeed())
			code, out, stderr = s.stop()
			Expect(code).To(Equal(0), out+stderr)
		}
	})

	It("speak with agentsnap-lineage's recordedTool, the Node agents' helper", func() {
		node, err := exec.LookPath("node")
		Expect(err).NotTo(HaveOccurred(), "the spec runs the Node helper: install Node.js 20 or later")
		dir := copyFixture(scenario.File, fixture.PlaybookFile)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "go-agent")
		ctx := context.Background()
		turn2(ctx, s.url, dir)
		out, err := exec.Command(node, filepath.Join("testdata", "tool", "recorded-tool.mjs"), s.url).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		var got struct {
			Got  []json.RawMessage
			Runs int
		}
		Expect(json.Unmarshal(out, &got)).To(Succeed(), string(out))
		Expect(got.Got).To(HaveLen(2))
		Expect(got.Got[0]).To(MatchJSON(`{"text":"team-atlas (run 1)","isError":false}`))
		Expect(string(got.Got[1])).To(ContainSubstring(`serve answered 400: wire: tool lookup with arguments {\"key\":\"owner\"}: session root's last answer made no such call not run yet (its calls: subagent_fork call_fork`))
		Expect(string(got.Got[1])).To(ContainSubstring(`lookup call_owner {\"key\":\"owner\"}`))
		Expect(got.Runs).To(Equal(1), "the call is checked before the tool runs")
		s.stop()
	})

	It("refuses what is no tool call of the session's last answer, saying what to send", func() {
		s := startServe(nil, "serve", copyFixture(scenario.File, fixture.PlaybookFile), "--record", "--runtime", "go-agent")
		ctx := context.Background()
		for body, want := range map[string]string{
			`{"name":"lookup"`:                         `the body is no tool call`,
			`{"name":"lookup","arguments":"{}","x":1}`: `unknown field "x"`,
			`{"name":"lookup"}`:                        `the tool call has no name or no arguments`,
			`{"name":"lookup","arguments":"{}"} {}`:    `more after the object`,
		} {
			status, got := toolPost(ctx, s.url, body)
			Expect(status).To(Equal(http.StatusBadRequest), body)
			Expect(rpcMessage(got)).To(ContainSubstring(want))
		}
		status, got := toolPost(ctx, s.url, `{"name":"lookup","arguments":"{}"}`)
		Expect(status).To(Equal(http.StatusBadRequest), "checked before the agent runs the tool")
		Expect(rpcMessage(got)).To(ContainSubstring("session root's last answer made no such call not run yet (its calls: none: it waits for no tool result)"))
		status, got = toolPost(ctx, s.url, `{"name":"lookup","arguments":"{}","output":{"text":"x"}}`)
		Expect(status).To(Equal(http.StatusBadRequest))
		Expect(rpcMessage(got)).To(ContainSubstring("session root's last answer made no such call"))

		// Turn 2's first answer makes three calls; one of them gets two
		// outputs.
		turn2(ctx, s.url, copyFixture(scenario.File))
		owner := `{"id":"call_owner","name":"lookup","arguments":"{\"key\":\"owner\"}","output":{"text":"team-atlas"}}`
		status, got = toolPost(ctx, s.url, owner)
		Expect(status).To(Equal(http.StatusOK))
		Expect(got).To(MatchJSON(`{"output":{"text":"team-atlas"}}`))
		status, got = toolPost(ctx, s.url, strings.Replace(owner, "team-atlas", "team-borealis", 1))
		Expect(status).To(Equal(http.StatusBadRequest))
		Expect(rpcMessage(got)).To(ContainSubstring("session root's call call_owner has its output recorded already"))

		resp, err := http.Get(strings.TrimSuffix(s.url, "/v1") + toolPath)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusMethodNotAllowed))
		Expect(resp.Header.Get("Allow")).To(Equal("POST"))
		req, err := http.NewRequest(http.MethodPost, strings.TrimSuffix(s.url, "/v1")+toolPath, bytes.NewReader([]byte(`{}`)))
		Expect(err).NotTo(HaveOccurred())
		req.Header.Set("Content-Type", "text/plain")
		resp, err = http.DefaultClient.Do(req)
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusUnsupportedMediaType), "guarded as the model endpoint is")
		s.stop()
	})
})
