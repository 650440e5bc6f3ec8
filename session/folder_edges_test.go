package session_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

var _ = Describe("a fixture folder's logs", func() {
	It("counts children from 1: session.0.jsonl is no numbered child and comes after them", func() {
		dir := GinkgoT().TempDir()
		for _, name := range []string{"session.jsonl", "session.2.jsonl", "session.0.jsonl", "session.1.jsonl"} {
			Expect(os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644)).To(Succeed())
		}
		paths, err := session.FolderLogs(dir)
		Expect(err).NotTo(HaveOccurred())
		var names []string
		for _, p := range paths {
			names = append(names, filepath.Base(p))
		}
		Expect(names).To(Equal([]string{"session.jsonl", "session.1.jsonl", "session.2.jsonl", "session.0.jsonl"}))
	})
})
