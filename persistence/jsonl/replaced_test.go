package jsonl_test

import (
	"os"
	"path/filepath"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("a session file replaced while the store has it open", func() {
	It("refuses the next Append, writing nothing to either file, then continues from what the new file holds", func(ctx SpecContext) {
		skipOnWindows()
		dir := GinkgoT().TempDir()
		store, err := jsonl.Open(ctx, dir)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(store.Close)
		first, second := storetest.CompletedTurn(0, 1, "p", "a"), storetest.CompletedTurn(8, 2, "p", "a")
		Expect(store.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(store.Append(ctx, "root", first)).To(Succeed())
		path := filepath.Join(dir, jsonl.FileName("root"))
		backup, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(store.Append(ctx, "root", second)).To(Succeed(), "the file is open for appending now")

		// A backup of the first turn put back in its place, as a restore
		// or a checkout does: a new file under the old name.
		Expect(os.WriteFile(path+".restore", backup, 0o644)).To(Succeed())
		Expect(os.Rename(path+".restore", path)).To(Succeed())

		third := storetest.CompletedTurn(16, 3, "p", "a")
		err = store.Append(ctx, "root", third)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring(path + " was replaced by another file since this store opened it"))
		Expect(err.Error()).To(ContainSubstring("load the session"))
		Expect(os.ReadFile(path)).To(Equal(backup), "nothing was written to the new file")

		l, err := store.Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events).To(Equal(first), "the new file's events")
		again := storetest.CompletedTurn(8, 2, "again", "b")
		Expect(store.Append(ctx, "root", again)).To(Succeed())
		stored, err := session.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(storetest.Encoded(stored)).To(Equal(storetest.Encoded(&session.Log{Header: l.Header, Events: slices.Concat(first, again)})))
	})

	It("refuses the second Append when the file the first one wrote was replaced before it, writing nothing", func(ctx SpecContext) {
		skipOnWindows()
		dir := GinkgoT().TempDir()
		store, err := jsonl.Open(ctx, dir)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(store.Close)
		first := storetest.CompletedTurn(0, 1, "p", "a")
		Expect(store.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(store.Append(ctx, "root", first)).To(Succeed(), "the file is written whole and linked")

		// Another recording's log of the same session checked out in its
		// place: it holds seqs the next batch would repeat.
		path := filepath.Join(dir, jsonl.FileName("root"))
		h := storetest.RootHeader("root")
		other := session.Encode(&h, slices.Concat(first, storetest.CompletedTurn(8, 2, "other", "b")))
		Expect(os.WriteFile(path+".checkout", other, 0o644)).To(Succeed())
		Expect(os.Rename(path+".checkout", path)).To(Succeed())

		err = store.Append(ctx, "root", storetest.CompletedTurn(8, 2, "p", "a"))
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring(path + " was replaced by another file since this store opened it"))
		Expect(os.ReadFile(path)).To(Equal(other), "nothing was written to the new file")
	})
})
