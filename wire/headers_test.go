package wire_test

import (
	"context"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/session"
	"github.com/agentsnap/agentsnap/wire"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("session identity by headers (an agent in another process)", func() {
	var store persistence.Store
	var h *wire.Handler
	var url string
	// The root's first answer makes the calls its children name.
	BeforeEach(func() {
		h, store, url = serveWire(script(map[string][]any{"root": {[]session.Part{
			toolCall("call_9", "subagent_spawn", `{"prompt":"p"}`), toolCall("c", "subagent_spawn", `{"prompt":"p"}`),
		}}}))
	})
	hi := chat(user("hi"))
	root := map[string]string{wire.HeaderSession: "main"}

	It("routes a child named by headers to a session of its own, in lineage", func() {
		Expect(ok(url, hi, root)).To(ContainSubstring(`"id":"call_9"`))
		Expect(ok(url, hi, map[string]string{wire.HeaderSession: "helper-7", wire.HeaderParent: "main", wire.HeaderCall: "call_9", wire.HeaderMode: "spawn"})).To(ContainSubstring("done"))
		Expect(h.Close(context.Background())).To(MatchError(ContainSubstring("session root stopped in turn 1 before it sent the results of its tool calls (call_9, c)")))
		l, err := store.Load(context.Background(), "root/call_9")
		Expect(err).NotTo(HaveOccurred(), "the log is named by lineage, whatever id the agent chose")
		Expect(l.Header).To(HaveField("ParentCallID", "call_9"))
		Expect(l.Header.Mode).To(Equal(session.ModeSpawn))
	})

	It("takes parent \"root\" for a root that sends no headers", func() {
		ok(url, hi, nil)
		ok(url, hi, map[string]string{wire.HeaderSession: "helper", wire.HeaderParent: "root", wire.HeaderCall: "c", wire.HeaderMode: "spawn"})
		_ = h.Close(context.Background())
		l, err := store.Load(context.Background(), "root/c")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Header.ParentSession).To(Equal("root"))
	})

	// Each entry's calls before follow the root "main"'s first call.
	DescribeTable("refuses headers that do not name a session clearly, and Close reports it",
		func(before []map[string]string, headers map[string]string, want string) {
			for _, hs := range append([]map[string]string{root}, before...) {
				ok(url, hi, hs)
			}
			code, body := post(url, hi, headers)
			expectRefused(h, code, body, want)
		},
		Entry("a child without its session id", nil, map[string]string{wire.HeaderParent: "main", wire.HeaderCall: "c", wire.HeaderMode: "fork"},
			"Agentsnap-Session is missing"),
		Entry("an empty session id", nil, map[string]string{wire.HeaderSession: ""},
			"Agentsnap-Session is sent empty: send the session's id, the same on every call of the session, or leave the header out (a call without Agentsnap-* headers is the root's)"),
		Entry("a child with an empty session id", nil, map[string]string{wire.HeaderSession: "", wire.HeaderParent: "main", wire.HeaderCall: "c", wire.HeaderMode: "spawn"},
			"Agentsnap-Session is sent empty"),
		Entry("a child of a parent that never called", nil, map[string]string{wire.HeaderSession: "x", wire.HeaderParent: "ghost", wire.HeaderCall: "c", wire.HeaderMode: "spawn"},
			`child session "x" names parent "ghost", which has made no call`),
		Entry("a child of a call its parent never made", nil, map[string]string{wire.HeaderSession: "x", wire.HeaderParent: "main", wire.HeaderCall: "call_7", wire.HeaderMode: "spawn"},
			`spawn child root/call_7 names call "call_7", which its parent root never made (its tool calls so far: call_9, c)`),
		Entry("a child without its creating call", nil, map[string]string{wire.HeaderSession: "x", wire.HeaderParent: "main", wire.HeaderMode: "spawn"},
			`child session "x" of "main" has no Agentsnap-Call`),
		Entry("an unknown mode", nil, map[string]string{wire.HeaderSession: "x", wire.HeaderParent: "main", wire.HeaderCall: "c", wire.HeaderMode: "clone"},
			`Agentsnap-Mode is "clone"; want spawn or fork`),
		Entry("a creating call without a parent", nil, map[string]string{wire.HeaderSession: "x", wire.HeaderCall: "c"},
			`session "x" has Agentsnap-Call or Agentsnap-Mode but no Agentsnap-Parent; a child names its parent`),
		Entry("a second root", nil, map[string]string{wire.HeaderSession: "other"},
			`a second root session "other" (the root is "main")`),
		Entry("a session that changes its lineage",
			[]map[string]string{{wire.HeaderSession: "x", wire.HeaderParent: "main", wire.HeaderCall: "c", wire.HeaderMode: "spawn"}},
			map[string]string{wire.HeaderSession: "x", wire.HeaderParent: "main", wire.HeaderCall: "call_9", wire.HeaderMode: "spawn"},
			`session "x" was created by call "c" (spawn) and now names call "call_9" (spawn); a session keeps its lineage`),
		Entry("a session whose mode flips",
			[]map[string]string{{wire.HeaderSession: "x", wire.HeaderParent: "main", wire.HeaderCall: "c", wire.HeaderMode: "spawn"}},
			map[string]string{wire.HeaderSession: "x", wire.HeaderParent: "main", wire.HeaderCall: "c", wire.HeaderMode: "fork"},
			`session "x" was created by call "c" (spawn) and now names call "c" (fork); a session keeps its lineage`),
	)
})
