package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/agentsnap/agentsnap/examples/sdkagent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("serve's recorded tools when the output of a call told to run never comes", func() {
	owner := `{"name":"lookup","arguments":"{\"key\":\"owner\"}"}`
	withID := `{"id":"call_owner","name":"lookup","arguments":"{\"key\":\"owner\"}"}`
	output := `{"id":"call_owner","name":"lookup","arguments":"{\"key\":\"owner\"}","output":{"text":"team-atlas"}}`

	It("refuses the session's next model request, naming the call and what to send; a retry with the call's id runs it again, and once its output is recorded the call is refused as run", func() {
		dir := copyFixture(scenario.File, fixture.PlaybookFile)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "go-agent")
		ctx := context.Background()
		turn2(ctx, s.url, dir)

		status, got := toolPost(ctx, s.url, owner)
		Expect(status).To(Equal(http.StatusOK))
		Expect(got).To(MatchJSON(`{"run":true,"id":"call_owner"}`))
		// The output never comes. Without the id a second ask cannot be
		// told from another alike call run at once: it gets none.
		status, got = toolPost(ctx, s.url, owner)
		Expect(status).To(Equal(http.StatusBadRequest))
		Expect(rpcMessage(got)).To(ContainSubstring("made no such call not run yet"))
		Expect(rpcMessage(got)).To(ContainSubstring("the output of call_owner, named to run, never came: a retry of a call sends its id"))
		status, got = toolPost(ctx, s.url, withID)
		Expect(status).To(Equal(http.StatusOK), "a retry with the id")
		Expect(got).To(MatchJSON(`{"run":true,"id":"call_owner"}`))

		status, got = rootAgain(s.url, dir)
		Expect(status).To(Equal(http.StatusBadRequest))
		unsent := `wire: session root: a request came before the output of its recorded tool lookup (call call_owner) was recorded: it was named to run (ToolCall; serve answered {"run": true}) and no output came, so a replay would have none to answer it with; send the output first, with the call's id (Tool; through serve, POST /agentsnap/tool with "id" and "output"), an error output ({"text": "...", "isError": true}) if the tool failed`
		Expect(got).To(ContainSubstring(strings.ReplaceAll(unsent, `"`, `\"`)))

		status, got = toolPost(ctx, s.url, output)
		Expect(status).To(Equal(http.StatusOK))
		Expect(got).To(MatchJSON(`{"output":{"text":"team-atlas"}}`))
		status, got = toolPost(ctx, s.url, withID)
		Expect(status).To(Equal(http.StatusBadRequest))
		Expect(rpcMessage(got)).To(ContainSubstring("wire: tool lookup (call call_owner): session root's call call_owner has its output recorded already (or being recorded); a call runs once"))
		code, _, stderr := s.stop()
		Expect(code).To(Equal(1))
		Expect(stderr).To(ContainSubstring("a request came before the output of its recorded tool lookup (call call_owner) was recorded"), "the refused request fails the recording")
	})

	It("names the call at the end when the agent stops mid-tool (a crash), and fails the recording", func() {
		dir := copyFixture(scenario.File, fixture.PlaybookFile)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "go-agent")
		ctx := context.Background()
		turn2(ctx, s.url, dir)
		status, _ := toolPost(ctx, s.url, owner)
		Expect(status).To(Equal(http.StatusOK))
		code, _, stderr := s.stop()
		Expect(code).To(Equal(1))
		Expect(stderr).To(ContainSubstring("session root stopped in turn 2 before it sent the results of its tool calls (call_fork, call_owner, call_spawn); no output came for lookup (call call_owner), which it was told to run (a crash in the tool?)"))
	})
})

var _ = Describe("serve's recorded tools when the agent sends a call's output again", func() {
	output := `{"id":"call_owner","name":"lookup","arguments":"{\"key\":\"owner\"}","output":{"text":"team-atlas"}}`

	It("answers the same output again as it did the first time (a client retrying after its connection dropped), and records it once", func() {
		dir := copyFixture(scenario.File, fixture.PlaybookFile)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "go-agent")
		ctx := context.Background()
		turn2(ctx, s.url, dir)
		for range 2 {
			status, got := toolPost(ctx, s.url, output)
			Expect(status).To(Equal(http.StatusOK), got)
			Expect(got).To(MatchJSON(`{"output":{"text":"team-atlas"}}`))
		}
		code, _, stderr := s.stop()
		Expect(code).To(Equal(1), "the agent stopped in the middle of turn 2")
		Expect(stderr).NotTo(ContainSubstring("call_owner has its output recorded already"))
		Expect(stderr).NotTo(ContainSubstring("Tool called twice"))
	})

	It("refuses another output for the call, naming the session, the call, both outputs and what to do", func() {
		dir := copyFixture(scenario.File, fixture.PlaybookFile)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "go-agent")
		ctx := context.Background()
		turn2(ctx, s.url, dir)
		status, got := toolPost(ctx, s.url, output)
		Expect(status).To(Equal(http.StatusOK), got)
		status, got = toolPost(ctx, s.url, strings.Replace(output, `"team-atlas"}`, `"team-borealis","isError":true}`, 1))
		Expect(status).To(Equal(http.StatusBadRequest))
		Expect(rpcMessage(got)).To(Equal(`wire: tool lookup (call call_owner): session root's call call_owner has its output recorded already, "team-atlas", and this sends another, the error "team-borealis"; a call has one output: send it once (a retry sends the same output again), and to record another, record the scenario again`))
		s.stop()
	})
})

var _ = Describe("serve replaying a recorded tool the agent never asked for", func() {
	It("says how an agent under serve asks for it, and that a refused ask is not served", func() {
		dir := playbookScenario(`{"toolCalls": [{"id": "call_1", "name": "lookup", "arguments": {"key": "owner"}}]}, {"text": "done"}`)
		asked := `{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"key\":\"owner\"}"}}]}`
		tool := func(serveURL, body string) string {
			status, b, _ := postJSON(strings.TrimSuffix(serveURL, "/v1")+toolPath, body, nil)
			Expect(status).To(Equal(http.StatusOK), b)
			return b
		}

		s := startServe(nil, "serve", dir, "--record", "--runtime", "own-agent")
		status, body := chatPost(s.url, chatJSON(), nil)
		Expect(status).To(Equal(http.StatusOK), body)
		Expect(tool(s.url, `{"id":"call_1","name":"lookup","arguments":"{\"key\":\"owner\"}"}`)).To(MatchJSON(`{"run":true,"id":"call_1"}`))
		tool(s.url, `{"id":"call_1","name":"lookup","arguments":"{\"key\":\"owner\"}","output":{"text":"ada"}}`)
		status, body = chatPost(s.url, chatJSON(asked, `{"role":"tool","tool_call_id":"call_1","content":"ada"}`), nil)
		Expect(status).To(Equal(http.StatusOK), body)
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitOK), out+stderr)

		By("replaying with an agent that runs the tool itself")
		s = startServe(nil, "serve", dir, "--runtime", "own-agent")
		status, body = chatPost(s.url, chatJSON(), nil)
		Expect(status).To(Equal(http.StatusOK), body)
		status, body = chatPost(s.url, chatJSON(asked, `{"role":"tool","tool_call_id":"call_1","content":"ada"}`), nil)
		Expect(status).To(Equal(http.StatusOK), body)
		code, out, stderr = s.stop()
		Expect(code).To(Equal(exitFail), out+stderr)
		Expect(out).To(ContainSubstring("live session root never asked for the recorded result of tool lookup, call call_1 (turn 1 step 1)"))
		Expect(out).To(ContainSubstring("an agent under agentsnap serve asks for it with POST /agentsnap/tool (recordedTool in Node), and a call serve refused there (400, its message names why) is not served"))
	})
})

var _ = Describe("serve --record --only-changed and the agent's recorded tools", func() {
	var (
		dir  string
		runs *atomic.Int64
	)
	BeforeEach(func() {
		dir = copyFixture(scenario.File, fixture.PlaybookFile)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "go-agent")
		a, prompts := goAgent(s.url, dir)
		runs = &atomic.Int64{}
		a.Tools = []sdkagent.Tool{recordedLookup(s.url, runs)}
		Expect(a.Run(context.Background(), prompts)).To(Succeed())
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)
	})

	It("answers a session that still replays with its recorded output, and the tool does not run", func() {
		before := fixtureFiles(dir)
		s := startServe(nil, "serve", dir, "--record", "--only-changed", "--runtime", "go-agent")
		a, prompts := goAgent(s.url, dir)
		a.Tools = []sdkagent.Tool{recordedLookup(s.url, nil)} // told to run, it fails the spec
		Expect(a.Run(context.Background(), prompts)).To(Succeed())
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)
		Expect(fixtureFiles(dir)).To(Equal(before))
	})

	It("tells a session re-recorded with --session to run the tool, and records its new output", func() {
		s := startServe(nil, "serve", dir, "--record", "--session", "root/call_spawn", "--replace-golden", "--runtime", "go-agent")
		a, prompts := goAgent(s.url, dir)
		a.Tools = []sdkagent.Tool{recordedLookup(s.url, runs)}
		Expect(a.Run(context.Background(), prompts)).To(Succeed())
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)
		Expect(runs.Load()).To(Equal(int64(3)), "the child's lookup ran, and only it")
		Expect(recordedRuns(dir)).To(ConsistOf(
			" call_owner: team-atlas (run 1)",
			"call_spawn call_release: v2.4.1 (run 3)",
		))
	})
})

// fixtureFiles returns the files of the fixture dir with their bytes.
func fixtureFiles(dir string) map[string]string {
	GinkgoHelper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	Expect(err).NotTo(HaveOccurred())
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		Expect(err).NotTo(HaveOccurred())
		out[e.Name()] = string(b)
	}
	return out
}

// In a replay the ask is the whole exchange: its answer is the recorded
// output. A client that retries it after its connection dropped sends
// the call's id, and gets that output again.
var _ = Describe("serve replaying a recorded tool the agent asks for again with the call's id", func() {
	It("answers the recorded output again, records it once, and the replay passes", func() {
		dir := copyFixture(scenario.File, fixture.PlaybookFile)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "go-agent")
		a, prompts := goAgent(s.url, dir)
		a.Tools = []sdkagent.Tool{recordedLookup(s.url, &atomic.Int64{})}
		Expect(a.Run(context.Background(), prompts)).To(Succeed())
		code, out, stderr := s.stop()
		Expect(code).To(Equal(0), out+stderr)

		s = startServe(nil, "serve", dir, "--runtime", "go-agent")
		a, prompts = goAgent(s.url, dir)
		retried := lookup
		retried.Run = func(ctx context.Context, args string) (string, error) {
			var in struct{ Key string }
			if err := json.Unmarshal([]byte(args), &in); err != nil {
				return "", err
			}
			// The fixture's calls: call_owner, call_release.
			body := fmt.Sprintf(`{"id":"call_%s","name":"lookup","arguments":%q}`, in.Key, args)
			var answers []string
			for range 2 { // the first answer lost on the way: asked again
				status, got := toolPost(ctx, s.url, body)
				if status != http.StatusOK {
					return "", fmt.Errorf("asked again: %d %s", status, got)
				}
				answers = append(answers, got)
			}
			if answers[0] != answers[1] {
				return "", fmt.Errorf("asked again, another answer: %s, then %s", answers[0], answers[1])
			}
			var a toolAnswer
			if err := json.Unmarshal([]byte(answers[1]), &a); err != nil || a.Output == nil {
				return "", fmt.Errorf("no output: %s", answers[1])
			}
			return a.Output.Text, nil
		}
		a.Tools = []sdkagent.Tool{retried}
		Expect(a.Run(context.Background(), prompts)).To(Succeed())
		code, out, stderr = s.stop()
		Expect(code).To(Equal(0), out+stderr)
		Expect(out + stderr).NotTo(ContainSubstring("a call runs once"))
	})
})
