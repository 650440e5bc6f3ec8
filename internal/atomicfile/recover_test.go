package atomicfile_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/atomicfile"
)

var _ = Describe("RecoverDir with more than one copy aside", func() {
	It("puts one back and removes the others, without an error", func() {
		parent := GinkgoT().TempDir()
		dir := filepath.Join(parent, "fixture")
		makeDir(filepath.Join(parent, ".fixture.old-1"), "aside")
		makeDir(filepath.Join(parent, ".fixture.old-2"), "aside")
		did, err := atomicfile.RecoverDir(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(did).To(HaveLen(2))
		Expect(did[0]).To(HavePrefix("restored " + dir + " from .fixture.old-"))
		Expect(did[1]).To(HavePrefix("removed " + filepath.Join(parent, ".fixture.old-")))
		Expect(contentOf(dir)).To(Equal("aside"))
		entries, err := os.ReadDir(parent)
		Expect(err).NotTo(HaveOccurred())
		Expect(entries).To(HaveLen(1), "only the folder itself is left")
	})
})
