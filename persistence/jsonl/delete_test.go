package jsonl_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence"
	"github.com/agentsnap/agentsnap/persistence/jsonl"
	"github.com/agentsnap/agentsnap/persistence/storetest"
)

var _ = Describe("jsonl delete", func() {
	ctx := context.Background()
	var dir string
	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		s := openStore(dir)
		for _, id := range []string{"root", "root/call_1", "keep"} {
			Expect(s.Create(ctx, storetest.RootHeader(id), nil)).To(Succeed())
			Expect(s.Append(ctx, id, storetest.CompletedTurn(0, 1, "p", "a"))).To(Succeed())
		}
		Expect(s.Close()).To(Succeed())
	})

	ids := func(src persistence.Source) []string {
		GinkgoHelper()
		hs, err := src.Sessions(ctx)
		Expect(err).NotTo(HaveOccurred())
		var out []string
		for _, h := range hs {
			out = append(out, h.ID)
		}
		return out
	}

	It("is atomic across a crash after its intent file: a read-only open reads it as done, the next open finishes it", func() {
		s := openStore(dir)
		crash := errors.New("killed")
		s.Backend().(*jsonl.Backend).SetDeleteCrash(crash)
		Expect(s.Delete(ctx, "root", "root/call_1")).To(MatchError(crash))
		Expect(s.Close()).To(Succeed())
		Expect(filepath.Join(dir, jsonl.IntentFile)).To(BeARegularFile())
		Expect(filepath.Join(dir, jsonl.FileName("root"))).To(BeARegularFile(), "the crash came before any log was removed")

		ro, err := jsonl.NewBackend(dir, jsonl.ReadOnly())
		Expect(err).NotTo(HaveOccurred())
		Expect(ids(ro)).To(Equal([]string{"keep"}))
		Expect(filepath.Join(dir, jsonl.FileName("root"))).To(BeARegularFile(), "reading removes nothing")

		Expect(ids(openStore(dir).Backend())).To(Equal([]string{"keep"}))
		Expect(filepath.Join(dir, jsonl.IntentFile)).NotTo(BeAnExistingFile())
		entries, err := os.ReadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(entries).To(HaveLen(1), "only keep.jsonl is left")
	})

	It("never removes what an intent file names outside the store's logs", func() {
		outside := filepath.Join(filepath.Dir(dir), "outside.jsonl")
		Expect(os.WriteFile(outside, []byte("x"), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, jsonl.IntentFile), []byte("../outside.jsonl\nnotes.txt\n"+jsonl.FileName("root")+"\n"), 0o644)).To(Succeed())
		Expect(ids(openStore(dir).Backend())).To(ConsistOf("root/call_1", "keep"))
		Expect(outside).To(BeARegularFile())
		Expect(filepath.Join(dir, "notes.txt")).To(BeARegularFile())
	})

	It("closes a session's open file and refuses on a read-only store", func() {
		s := openStore(dir)
		Expect(s.Append(ctx, "root", storetest.CompletedTurn(8, 2, "p", "a"))).To(Succeed(), "the file is open for appending")
		Expect(s.Delete(ctx, "root")).To(Succeed())
		Expect(filepath.Join(dir, jsonl.FileName("root"))).NotTo(BeAnExistingFile())

		ro, err := jsonl.NewBackend(dir, jsonl.ReadOnly())
		Expect(err).NotTo(HaveOccurred())
		Expect(ro.Delete(ctx, "keep")).To(MatchError(persistence.ErrReadOnly))
	})
})
