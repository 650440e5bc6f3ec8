package atomicfile_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/atomicfile"
)

// makeDir creates dir holding one file with content.
func makeDir(dir, content string) {
	GinkgoHelper()
	Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(dir, "f"), []byte(content), 0o644)).To(Succeed())
}

func contentOf(dir string) string {
	GinkgoHelper()
	b, err := os.ReadFile(filepath.Join(dir, "f"))
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

var _ = Describe("ReplaceDir", func() {
	var parent, dir, next string

	BeforeEach(func() {
		parent = GinkgoT().TempDir()
		dir = filepath.Join(parent, "fixture")
		next = filepath.Join(parent, ".fixture.record-1")
	})

	It("swaps the new folder in and removes the old content", func() {
		makeDir(dir, "old")
		makeDir(next, "new")
		Expect(atomicfile.ReplaceDir(next, dir)).To(Succeed())
		Expect(contentOf(dir)).To(Equal("new"))
		Expect(listing(parent)).To(Equal([]string{"fixture"}))
	})

	It("renames the new folder into place when there is no old one", func() {
		makeDir(next, "new")
		Expect(atomicfile.ReplaceDir(next, dir)).To(Succeed())
		Expect(contentOf(dir)).To(Equal("new"))
		Expect(listing(parent)).To(Equal([]string{"fixture"}))
	})

	It("refuses a new folder elsewhere, touching neither", func() {
		makeDir(dir, "old")
		elsewhere := filepath.Join(GinkgoT().TempDir(), "next")
		makeDir(elsewhere, "new")
		Expect(atomicfile.ReplaceDir(elsewhere, dir)).To(MatchError(ContainSubstring("is not in the same folder")))
		Expect(contentOf(dir)).To(Equal("old"))
		Expect(contentOf(elsewhere)).To(Equal("new"))
	})

	It("puts the old folder back when the new one cannot be moved in", func() {
		makeDir(dir, "old")
		err := atomicfile.ReplaceDir(next, dir) // next does not exist
		Expect(err).To(MatchError(os.ErrNotExist))
		Expect(err).To(MatchError(HavePrefix("replace " + dir + ": ")))
		Expect(contentOf(dir)).To(Equal("old"))
		Expect(listing(parent)).To(Equal([]string{"fixture"}), "nothing left aside")
	})
})

var _ = Describe("RecoverDir", func() {
	var parent, dir string

	BeforeEach(func() {
		parent = GinkgoT().TempDir()
		dir = filepath.Join(parent, "fixture")
	})

	It("puts back a folder a crash left aside", func() {
		makeDir(filepath.Join(parent, ".fixture.old-42"), "old")
		did, err := atomicfile.RecoverDir(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(did).To(Equal([]string{"restored " + dir + " from .fixture.old-42"}))
		Expect(contentOf(dir)).To(Equal("old"))
		Expect(listing(parent)).To(Equal([]string{"fixture"}))
	})

	It("removes an aside copy when the folder is in place, and stray temp folders of the given tags", func() {
		makeDir(dir, "new")
		makeDir(filepath.Join(parent, ".fixture.old-1"), "old")
		makeDir(filepath.Join(parent, ".fixture.record-7"), "half")
		makeDir(filepath.Join(parent, ".fixture.other-7"), "kept")
		makeDir(filepath.Join(parent, "neighbour"), "kept")
		did, err := atomicfile.RecoverDir(dir, "record")
		Expect(err).NotTo(HaveOccurred())
		Expect(did).To(ConsistOf(
			"removed "+filepath.Join(parent, ".fixture.old-1"),
			"removed "+filepath.Join(parent, ".fixture.record-7"),
		))
		Expect(contentOf(dir)).To(Equal("new"))
		Expect(listing(parent)).To(Equal([]string{".fixture.other-7", "fixture", "neighbour"}))
	})

	It("does nothing, and says so, when nothing was left behind", func() {
		makeDir(dir, "new")
		Expect(atomicfile.RecoverDir(dir, "record")).To(BeEmpty())
		Expect(atomicfile.RecoverDir(filepath.Join(parent, "missing", "fixture"))).To(BeEmpty())
	})
})
