package jsonl_test

import (
	"errors"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/atomicfile"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("jsonl session files", func() {
	It("publishes no file when writing a new session's file fails", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		b, err := jsonl.NewBackend(dir)
		Expect(err).NotTo(HaveOccurred())
		errSync := errors.New("sync failed")
		b.SetSyncHooks(func(*os.File) error { return errSync }, atomicfile.SyncDir)
		c, err := persistence.New(ctx, b)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		Expect(c.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(c.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))).To(MatchError(errSync))

		entries, err := os.ReadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(entries).To(BeEmpty(), "neither the log nor its temporary file is left")
	})

	It("gives a new log file mode 0644, like any other file it writes", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		c, err := jsonl.Open(ctx, dir, jsonl.NoSync())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		Expect(c.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(c.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed())
		st, err := os.Stat(filepath.Join(dir, jsonl.FileName("root")))
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Mode().Perm()).To(Equal(os.FileMode(0o644)))
	})

	It("refuses to load a file replaced by another session's log, naming the file, line 1 and both ids", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		c, err := jsonl.Open(ctx, dir, jsonl.NoSync())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)
		Expect(c.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		turn := storetest.CompletedTurn(0, 1, "p", "a")
		Expect(c.Append(ctx, "root", turn)).To(Succeed())

		path := filepath.Join(dir, jsonl.FileName("root"))
		Expect(os.WriteFile(path, session.Encode(&session.Header{ID: "intruder", CreatedAt: 1}, turn), 0o644)).To(Succeed())

		_, err = c.Backend().Read(ctx, "root")
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring(path + ":1:"))
		Expect(err.Error()).To(ContainSubstring("holds session intruder, expected root"))
	})
})
