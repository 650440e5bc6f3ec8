package jsonl_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

// The backend's list of sessions (what `agentsnap convert` reads a source
// by) holds a session the store wrote moments ago, header and seedLength
// as a reopened folder lists them.
var _ = Describe("the jsonl backend's sessions after the store wrote them", func() {
	It("lists each session written since the folder was opened, as a reopen lists it", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		c, err := jsonl.Open(ctx, dir, jsonl.NoSync())
		Expect(err).NotTo(HaveOccurred())
		root := storetest.CompletedTurn(0, 1, "remember MARMALADE", "OK")
		Expect(c.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(c.Append(ctx, "root", root)).To(Succeed())
		fork := storetest.ForkHeader("root", "call_7", len(root))
		Expect(c.Create(ctx, fork, root)).To(Succeed())
		Expect(c.Append(ctx, fork.ID, storetest.CompletedTurn(int64(len(root)), 2, "codeword?", "MARMALADE"))).To(Succeed())

		listed, err := c.Backend().Sessions(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Close()).To(Succeed())

		reopened, err := jsonl.NewBackend(dir)
		Expect(err).NotTo(HaveOccurred())
		want, err := reopened.Sessions(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(want).To(HaveLen(2), "the spec's own premise")
		Expect(listed).To(ConsistOf(want), "the open backend lists what the folder holds")
		Expect(listed).To(ContainElement(HaveField("SeedLength", len(root))))
		Expect(listed).To(ContainElement(HaveField("Mode", session.ModeFork)))
	})
})
