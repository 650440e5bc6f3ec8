package jsonl_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/persistence/storetest"
)

// A session file with a second name — a hard link a backup or a snapshot
// made — keeps a link after its path is removed or renamed over: an
// append must still see that the path no longer names it, or the batch
// goes into the backup and is acknowledged.
var _ = Describe("a session file that has a second name (a hard link)", func() {
	var (
		store        persistence.Store
		path, backup string
		saved        []byte
		third        = storetest.CompletedTurn(16, 3, "p", "a")
	)
	BeforeEach(func(ctx SpecContext) {
		skipOnWindows()
		dir := GinkgoT().TempDir()
		var err error
		store, err = jsonl.Open(ctx, dir)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(store.Close)
		Expect(store.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(store.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed())
		Expect(store.Append(ctx, "root", storetest.CompletedTurn(8, 2, "p", "a"))).To(Succeed(), "the file is open for appending now")
		path = filepath.Join(dir, jsonl.FileName("root"))
		backup = filepath.Join(GinkgoT().TempDir(), "backup.jsonl")
		if err := os.Link(path, backup); err != nil {
			Skip("no hard links here: " + err.Error())
		}
		saved, err = os.ReadFile(backup)
		Expect(err).NotTo(HaveOccurred())
	})

	It("refuses the next Append once its path is removed, writing nothing to the backup", func(ctx SpecContext) {
		Expect(os.Remove(path)).To(Succeed())
		err := store.Append(ctx, "root", third)
		Expect(err).To(MatchError(persistence.ErrUnknownSession))
		Expect(err.Error()).To(ContainSubstring("gone"))
		Expect(strings.Count(err.Error(), path)).To(Equal(1), "the path once: %s", err)
		Expect(os.ReadFile(backup)).To(Equal(saved), "the backup is as it was")
	})

	It("refuses the next Append once another file is renamed over its path, writing nothing to either", func(ctx SpecContext) {
		Expect(os.WriteFile(path+".new", saved, 0o644)).To(Succeed())
		Expect(os.Rename(path+".new", path)).To(Succeed())
		err := store.Append(ctx, "root", third)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring(path + " was replaced by another file"))
		Expect(os.ReadFile(backup)).To(Equal(saved), "the backup is as it was")
		Expect(os.ReadFile(path)).To(Equal(saved), "the new file is as it was")
	})
})
