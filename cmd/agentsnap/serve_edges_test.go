package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("serve of a fixture whose logs cannot be replayed", func() {
	It("stops at once, naming the log, with serve's own re-recording", func() {
		root, dir, log := tornFixture()

		r := cli(root, nil, "serve", dir, "--addr", "127.0.0.1:0", "--runtime", "reference")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stderr).To(ContainSubstring(log + ":38: the last line is incomplete"))
		Expect(r.stderr).To(HaveSuffix("; re-record it with: go tool agentsnap serve " + dir + " --record --runtime reference (and run the agent against the URL it prints)\n"))

		By("a log the replay cannot derive")
		whole, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "fork", "codeword", fixture.ChildLog(1)))
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(log, whole, 0o644)).To(Succeed())
		replaceIn(filepath.Join(dir, fixture.RootLog), `"inputTokens":68`, `"inputTokens":-68`)
		r = cli(root, nil, "serve", dir, "--addr", "127.0.0.1:0", "--runtime", "reference")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stderr).To(ContainSubstring(`"usage.inputTokens" is -68`))
		Expect(r.stderr).To(HaveSuffix("; re-record it with: go tool agentsnap serve " + dir + " --record --runtime reference (and run the agent against the URL it prints)\n"))
	})
})

// A scenario without playbook.json records only from a live model; for an
// agent under serve that is serve's own --live, not agentsnap record,
// which records the reference agent.
var _ = Describe("serve --record of a scenario without a playbook", func() {
	It("names serve's live recording among the ways to record it", func() {
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork/codeword")
		Expect(os.Remove(filepath.Join(dir, fixture.PlaybookFile))).To(Succeed())
		r := cli(root, nil, "serve", dir, "--record", "--addr", "127.0.0.1:0", "--runtime", "reference")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stderr).To(ContainSubstring("has no playbook.json"))
		Expect(r.stderr).To(ContainSubstring("agentsnap serve DIR --record --live --base-url URL --model M"))
	})
})

var _ = Describe("serve --record stopped before the agent called", func() {
	// What the user sees when the agent was pointed elsewhere (a script
	// that read stderr's first line as the URL, a wrong port): that the
	// agent never came, not the recorder's complaint about what is missing.
	want := func(dir string) string {
		return "agentsnap serve: " + dir + ": no model call reached serve before it stopped, so nothing was recorded and the fixture is unchanged; run the agent against the URL serve prints (its first line on stdout) first, then stop serve\n"
	}

	It("says so from a playbook, instead of naming the playbook's unused turns", func() {
		dir := copyFixture(scenario.File, fixture.PlaybookFile)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "go-agent")
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitFail))
		Expect(out).To(BeEmpty())
		Expect(stderr).To(Equal(want(dir)))
		Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile())
	})

	It("says so from a live model, instead of an empty session tree", func() {
		dir := copyFixture(scenario.File)
		s := startServe(map[string]string{"AGENTSNAP_API_KEY": "sk-serve-edges-0123456789"}, "serve", dir, "--record", "--runtime", "go-agent", "--live", "--base-url", "http://127.0.0.1:9/v1", "--model", "m")
		code, out, stderr := s.stop()
		Expect(code).To(Equal(exitFail))
		Expect(out).To(BeEmpty())
		Expect(stderr).To(HaveSuffix(want(dir)))
		Expect(stderr).NotTo(ContainSubstring("root sessions"))
		Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile())
	})
})

var _ = Describe("serve --record of a request that holds no conversation", func() {
	It("answers it 400 naming what is missing and the API, records no call, and fails the recording, the fixture unchanged", func() {
		dir := playbookScenario(`{"text": "OK"}`)
		s := startServe(nil, "serve", dir, "--record", "--runtime", "own-agent")
		base := strings.TrimSuffix(s.url, "/v1")
		const anthropicNone = `wire: POST /v1/messages: the body is no model call of Anthropic Messages (POST /v1/messages), the API this path is: it has no "messages", or no message in it; send the conversation there, at least one message, as that API defines it`
		status, body, _ := postJSON(base+"/v1/messages", `{}`, nil)
		Expect(status).To(Equal(http.StatusBadRequest), body)
		Expect(rpcMessage(body)).To(Equal(anthropicNone))
		status, body, _ = postJSON(base+"/v1/chat/completions", `{"model":"own-agent"}`, nil)
		Expect(status).To(Equal(http.StatusBadRequest), body)
		Expect(rpcMessage(body)).To(ContainSubstring(`OpenAI Chat Completions (POST /v1/chat/completions), the API this path is: it has no "messages"`))
		code, _, stderr := s.stop()
		Expect(code).To(Equal(exitFail))
		Expect(stderr).To(ContainSubstring(anthropicNone))
		Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile())
	})
})

var _ = Describe("serve --record --session naming the first of two children one call created", func() {
	It("re-records that child only: the second, unchanged, replays and keeps its log", func() {
		dir := spawnScenario(`{"text": "one"}, {"text": "two"}`)
		child := spawnedBy
		// The root's call_h creates two children at once (root/call_h and
		// root/call_h#2), each asking the model once.
		run := func(args ...string) string {
			s := startServe(nil, append([]string{"serve", dir, "--runtime", "own-agent", "--record"}, args...)...)
			status, body := chatPost(s.url, chatJSON(), nil)
			Expect(status).To(Equal(http.StatusOK), body)
			status, body = chatPost(s.url, `{"model":"own-agent","messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"First."}]}`, child("h1"))
			Expect(status).To(Equal(http.StatusOK), body)
			status, body = chatPost(s.url, `{"model":"own-agent","messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Second."}]}`, child("h2"))
			Expect(status).To(Equal(http.StatusOK), body)
			status, body = chatPost(s.url, chatJSON(`{"role":"assistant","tool_calls":[{"id":"call_h","type":"function","function":{"name":"subagent_spawn","arguments":"{\"prompt\":\"Tick.\"}"}}]}`, `{"role":"tool","tool_call_id":"call_h","content":"ticked"}`), nil)
			Expect(status).To(Equal(http.StatusOK), body)
			code, out, stderr := s.stop()
			Expect(code).To(Equal(exitOK), out+stderr)
			return out
		}
		run()
		out := run("--session", "root/call_h")
		Expect(out).To(ContainSubstring("root/call_h: kept as recorded, though 1 call went to the model again"))
		Expect(out).To(ContainSubstring("kept as recorded: root, root/call_h#2"), "the sibling replays: --session named the other")
		Expect(out).NotTo(ContainSubstring("root/call_h#2: "))
	})
})

// spawnScenario is a playbook scenario whose root spawns children with
// one call, call_h ("Tick."), then answers OK; its children's turns are
// childTurns, a JSON list's items, in the order the children ask.
func spawnScenario(childTurns string) string {
	GinkgoHelper()
	dir := playbookScenario(`{"toolCalls": [{"id": "call_h", "name": "subagent_spawn", "arguments": {"prompt": "Tick."}}]}, {"text": "OK"}`)
	pb := filepath.Join(dir, fixture.PlaybookFile)
	b, err := os.ReadFile(pb)
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(pb, bytes.Replace(b, []byte(`]}}`), []byte(`], "call_h": [`+childTurns+`]}}`), 1), 0o644)).To(Succeed())
	return dir
}

// spawnedBy names a request as one of session id, a child the root
// spawned with call_h.
func spawnedBy(id string) func(r *http.Request) {
	return func(r *http.Request) {
		r.Header.Set("Agentsnap-Session", id)
		r.Header.Set("Agentsnap-Parent", "root")
		r.Header.Set("Agentsnap-Call", "call_h")
		r.Header.Set("Agentsnap-Mode", "spawn")
	}
}
