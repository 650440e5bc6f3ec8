package jsonl_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/persistence/storetest"
)

var _ = Describe("an interrupted deletion's intent file", func() {
	It("deletes only the folder's own visible logs it names, never a path outside the folder or a hidden file", func(ctx SpecContext) {
		parent := GinkgoT().TempDir()
		dir := filepath.Join(parent, "store")
		c, err := jsonl.Open(ctx, dir, jsonl.NoSync())
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(c.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed())
		Expect(c.Close()).To(Succeed())

		victim := filepath.Join(parent, "victim.jsonl")
		hidden := filepath.Join(dir, ".hidden.jsonl")
		for _, p := range []string{victim, hidden} {
			Expect(os.WriteFile(p, []byte("keep me\n"), 0o644)).To(Succeed())
		}
		intent := "../victim.jsonl\nx/../../victim.jsonl\n" + victim + "\n.hidden.jsonl\n" + jsonl.FileName("root") + "\n"
		Expect(os.WriteFile(filepath.Join(dir, jsonl.IntentFile), []byte(intent), 0o644)).To(Succeed())

		again, err := jsonl.Open(ctx, dir, jsonl.NoSync())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(again.Close)
		Expect(filepath.Join(dir, jsonl.FileName("root"))).NotTo(BeAnExistingFile(), "the deletion is finished")
		Expect(victim).To(BeARegularFile())
		Expect(hidden).To(BeARegularFile())
		Expect(filepath.Join(dir, jsonl.IntentFile)).NotTo(BeAnExistingFile())
	})
})
