package wire_test

import (
	"context"
	"path/filepath"

	"github.com/agentsnap/agentsnap/wire"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Eino's Gemini model (eino-ext components/model/gemini) drops the id of
// every function call and names the call by its function, as the Gemini
// API, which gives calls no id, pairs function responses by name: an Eino
// agent's tool middleware sees "subagent_fork" as the call id.
var _ = Describe("a Gemini agent that names each child by its call's function name", func() {
	byName := genaiRuntime(func(a *genaiAgent) { a.ByName = true })

	It("records each child under the id of the one open call with that name, and replays it from its own answers", func() {
		dir := newFixture("mixed/genai-by-name", forkScenario, forkPlaybook)
		Expect(recordGenai(dir, byName).Sessions).To(Equal(3))
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		fork, spawn := fx.Logs[1], fx.Logs[2]
		Expect(fork.Header).To(HaveField("ParentCallID", "call_f"))
		Expect(fork.Header.Mode).To(Equal(session.ModeFork))
		Expect(fork.Header.ID).To(Equal("root/call_f"))
		Expect(spawn.Header).To(HaveField("ParentCallID", "call_s"))
		Expect(string(mustRead(filepath.Join(dir, fixture.GoldenFile)))).To(Equal(forkGolden), "the tree the ids name")
		for range 5 {
			Expect(replayGenai(dir, byName)).To(harness.MatchRecording())
		}
	})

	It("takes the open call of a name whose earlier calls got their results", func() {
		dir := newFixture("spawn/genai-by-name", forkScenario, `{"sessions": {
  "root": [
    {"toolCalls": [{"id": "call_a", "name": "subagent_spawn", "arguments": {"prompt": "Look up the release."}}]},
    {"text": "OK"},
    {"toolCalls": [{"id": "call_b", "name": "subagent_spawn", "arguments": {"prompt": "Look up the owner."}}]},
    {"text": "done"}
  ],
  "call_a": [{"text": "v2.4.1"}],
  "call_b": [{"text": "team-atlas"}]
}}`)
		Expect(recordGenai(dir, byName).Sessions).To(Equal(3))
		fx, err := fixture.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(fx.Logs[1].Header).To(HaveField("ParentCallID", "call_a"))
		Expect(fx.Logs[2].Header).To(HaveField("ParentCallID", "call_b"))
		Expect(replayGenai(dir, byName)).To(harness.MatchRecording())
	})

	It("refuses a name two open calls share, naming their ids", func() {
		dir := newFixture("spawn/genai-by-name", forkScenario, `{"sessions": {
  "root": [
    {"text": "OK"},
    {"toolCalls": [
      {"id": "call_a", "name": "subagent_spawn", "arguments": {"prompt": "Look up the release."}},
      {"id": "call_b", "name": "subagent_spawn", "arguments": {"prompt": "Look up the release."}}
    ]},
    {"text": "done"}
  ],
  "call_a": [{"text": "v2.4.1"}],
  "call_b": [{"text": "v2.4.1"}]
}}`)
		opts, err := recorder.PlaybookOptions(dir, 0)
		Expect(err).NotTo(HaveOccurred())
		opts.Runtime = byName
		_, err = recorder.Record(context.Background(), dir, opts)
		Expect(err).To(MatchError(ContainSubstring(`wire: spawn child of root names call "subagent_spawn", the name of 2 of its parent's open calls (call_a, call_b): name the id of the call that creates the child`)))
	})

	It("refuses a child named by a function whose calls all have their results, saying it started too late", func() {
		h, _, url := serveWire(script(map[string][]any{"root": {[]session.Part{toolCall("call_r", "review", `{}`)}, "done"}}))
		ok(url, chat(user("hi")), nil)
		ok(url, chat(user("hi"), asked([3]string{"call_r", "review", `{}`}), result("call_r", "fine")), nil)
		code, body := post(url, chat(user("check")), map[string]string{wire.HeaderSession: "rev", wire.HeaderParent: "root", wire.HeaderCall: "review", wire.HeaderMode: "spawn"})
		expectRefused(h, code, body, `spawn child root/review names call "review", the function of its parent root's calls call_r, which all have their results: a child named by its call's function must start while that call is open`)
	})

	It("keeps a child named so by headers on its later calls, under the call's id", func() {
		h, store, url := serveWire(script(map[string][]any{"root": {[]session.Part{toolCall("call_r", "review", `{}`)}}}))
		ok(url, chat(user("hi")), nil)
		named := map[string]string{wire.HeaderSession: "rev", wire.HeaderParent: "root", wire.HeaderCall: "review", wire.HeaderMode: "spawn"}
		ok(url, chat(user("check")), named)
		ok(url, chat(user("check"), assistant("done"), user("again")), named)
		_ = h.Close(context.Background())
		l, err := store.Load(context.Background(), "root/call_r")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Header).To(HaveField("ParentCallID", "call_r"))
		Expect(l.CountModelCalls()).To(Equal(2))
	})
})
