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
	BeforeEach(func() {
		h, store, url = serveWire(sayDriver)
	})
	user := chat(`{"role":"user","content":"hi"}`)
	root := map[string]string{wire.HeaderSession: "main"}

	It("routes a child named by headers to a session of its own, in lineage", func() {
		code, body := post(url, user, root)
		Expect(code).To(Equal(200), body)
		Expect(body).To(ContainSubstring("hello root"))
		code, body = post(url, user, map[string]string{wire.HeaderSession: "helper-7", wire.HeaderParent: "main", wire.HeaderCall: "call_9", wire.HeaderMode: "spawn"})
		Expect(code).To(Equal(200), body)
		Expect(body).To(ContainSubstring("hello root/call_9"), "the log is named by lineage, whatever id the agent chose")
		Expect(h.Close(context.Background())).To(Succeed())
		l, err := store.Load(context.Background(), "root/call_9")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Header).To(HaveField("ParentCallID", "call_9"))
		Expect(l.Header.Mode).To(Equal(session.ModeSpawn))
	})

	// Each entry's calls before follow the root "main"'s first call.
	DescribeTable("refuses headers that do not name a session clearly, and Close reports it",
		func(before []map[string]string, headers map[string]string, want string) {
			for _, hs := range append([]map[string]string{root}, before...) {
				code, body := post(url, user, hs)
				Expect(code).To(Equal(200), body)
			}
			code, body := post(url, user, headers)
			expectRefused(h, code, body, want)
		},
		Entry("a child without its session id", nil, map[string]string{wire.HeaderParent: "main", wire.HeaderCall: "c", wire.HeaderMode: "fork"},
			"Agentsnap-Session is missing"),
		Entry("a child of a parent that never called", nil, map[string]string{wire.HeaderSession: "x", wire.HeaderParent: "ghost", wire.HeaderCall: "c", wire.HeaderMode: "spawn"},
			`child session "x" names parent "ghost", which has made no call`),
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
			map[string]string{wire.HeaderSession: "x", wire.HeaderParent: "main", wire.HeaderCall: "d", wire.HeaderMode: "spawn"},
			`session "x" was created by call "c" (spawn) and now names call "d" (spawn); a session keeps its lineage`),
	)
})
