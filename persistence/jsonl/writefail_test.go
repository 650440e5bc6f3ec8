package jsonl_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/atomicfile"
	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/persistence/storetest"
	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("a write that fails", Label("faults"), func() {
	ctx := context.Background()

	It("on a full disk, returns an error naming the file, and the store keeps whole batches only", func() {
		dir := GinkgoT().TempDir()
		b, err := jsonl.NewBackend(dir)
		Expect(err).NotTo(HaveOccurred())
		full := false
		b.SetSyncHooks(func(f *os.File) error {
			if full {
				return &os.PathError{Op: "sync", Path: f.Name(), Err: syscall.ENOSPC}
			}
			return f.Sync()
		}, atomicfile.SyncDir)
		c, err := persistence.New(ctx, b)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)

		first := storetest.CompletedTurn(0, 1, "say OK", "OK")
		Expect(c.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(c.Append(ctx, "root", first)).To(Succeed())

		full = true
		second := storetest.CompletedTurn(int64(len(first)), 2, "again", "OK")
		err = c.Append(ctx, "root", second)
		Expect(err).To(MatchError(syscall.ENOSPC))
		Expect(err.Error()).To(ContainSubstring(jsonl.FileName("root")))
		Expect(err.Error()).To(ContainSubstring("no space left on device"))

		// Whatever the failed Append left, a fresh store reads whole
		// batches: the first, and the second only in full.
		fresh, err := jsonl.Open(ctx, dir)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(fresh.Close)
		l, err := fresh.Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Torn).To(BeNil())
		Expect(len(l.Events)).To(BeElementOf(len(first), len(first)+len(second)))
		Expect(session.Validate(&l.Header, l.Events)).To(Succeed())
	})

	It("when the folder's sync fails after a new session's file got its name, continues from the file the next Append", func() {
		dir := GinkgoT().TempDir()
		b, err := jsonl.NewBackend(dir)
		Expect(err).NotTo(HaveOccurred())
		full := false
		b.SetSyncHooks(func(f *os.File) error { return f.Sync() }, func(d string) error {
			if full {
				return &os.PathError{Op: "sync", Path: d, Err: syscall.EIO}
			}
			return atomicfile.SyncDir(d)
		})
		c, err := persistence.New(ctx, b)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(c.Close)

		first := storetest.CompletedTurn(0, 1, "say OK", "OK")
		Expect(c.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		full = true
		Expect(c.Append(ctx, "root", first)).To(MatchError(syscall.EIO))
		full = false

		// The file is there, whole: the store reads it back and goes on.
		l, err := c.Load(ctx, "root")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events).To(Equal(first))
		second := storetest.CompletedTurn(int64(len(first)), 2, "again", "OK")
		Expect(c.Append(ctx, "root", second)).To(Succeed())
		stored, err := session.ReadFile(filepath.Join(dir, jsonl.FileName("root")))
		Expect(err).NotTo(HaveOccurred())
		Expect(stored.Events).To(Equal(slices.Concat(first, second)))
	})
})
