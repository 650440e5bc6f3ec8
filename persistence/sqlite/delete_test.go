package sqlite_test

import (
	"context"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/persistence/sqlite"
	"github.com/agentsnap/agentsnap/persistence/storetest"
)

var _ = Describe("sqlite delete", func() {
	It("leaves no byte of a deleted session's text in the database or its WAL", func() {
		ctx := context.Background()
		path := filepath.Join(GinkgoT().TempDir(), "side.db")
		const text = "the-deleted-answer-7f3a9c2e41b8d605"
		s, err := sqlite.Open(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Create(ctx, storetest.RootHeader("root"), nil)).To(Succeed())
		Expect(s.Append(ctx, "root", storetest.CompletedTurn(0, 1, "p", text))).To(Succeed())
		Expect(s.Create(ctx, storetest.RootHeader("keep"), nil)).To(Succeed())
		Expect(s.Append(ctx, "keep", storetest.CompletedTurn(0, 1, "p", "kept"))).To(Succeed())
		files := func() string {
			var all []byte
			for _, p := range []string{path, path + "-wal"} {
				b, err := os.ReadFile(p)
				if err == nil {
					all = append(all, b...)
				}
			}
			return string(all)
		}
		Expect(files()).To(ContainSubstring(text))

		Expect(s.Delete(ctx, "root")).To(Succeed())
		Expect(files()).NotTo(ContainSubstring(text), "secure_delete zeroes the pages, the checkpoint empties the WAL")
		Expect(s.Close()).To(Succeed())
		Expect(files()).NotTo(ContainSubstring(text))

		s, err = sqlite.Open(ctx, path)
		Expect(err).NotTo(HaveOccurred())
		defer s.Close()
		hs, err := s.List(ctx)
		Expect(err).NotTo(HaveOccurred())
		Expect(hs).To(HaveLen(1))
		Expect(hs[0].ID).To(Equal("keep"))
	})
})
