package scenario_test

import (
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("FixtureDir", func() {
	DescribeTable("maps CATEGORY/NAME under the root",
		func(name string, want ...string) {
			root := GinkgoT().TempDir()
			dir, err := fixture.Path(root, name)
			Expect(err).NotTo(HaveOccurred())
			Expect(dir).To(Equal(filepath.Join(append([]string{root}, want...)...)))
		},
		Entry("a plain name", "fork/codeword", "fork", "codeword"),
		Entry("digits, dashes and underscores", "spawn/two-sequential_2", "spawn", "two-sequential_2"),
		Entry("a category that does not exist yet", "newcat/x", "newcat", "x"),
	)

	DescribeTable("refuses names that could escape the root or are not CATEGORY/NAME",
		func(name, want string) {
			root := GinkgoT().TempDir()
			_, err := fixture.Path(root, name)
			Expect(err).To(MatchError(fixture.ErrBadName))
			Expect(err).To(MatchError(ContainSubstring(want)))
			Expect(err.Error()).To(HavePrefix("scenario: bad scenario name"))
		},
		Entry("dot-dot", "..", "want CATEGORY/NAME"),
		Entry("dot-dot as the category", "../x", `".." must be lower-case letters`),
		Entry("dot-dot as the name", "fork/..", `".." must be lower-case letters`),
		Entry("an absolute path", "/etc/passwd", "not an absolute path"),
		Entry("one component", "codeword", "want CATEGORY/NAME, such as fork/codeword"),
		Entry("three components", "fork/a/b", "want CATEGORY/NAME"),
		Entry("upper case", "Fork/codeword", `"Fork" must be lower-case letters`),
		Entry("upper case in the name", "fork/Codeword", `"Codeword" must be lower-case`),
		Entry("empty", "", "want CATEGORY/NAME"),
		Entry("an empty name", "fork/", `"" must be lower-case`),
		Entry("a hidden folder", "fork/.git", `".git" must be lower-case`),
		Entry("a leading dash", "fork/-x", `"-x" must be lower-case`),
		Entry("a space", "fork/a b", `"a b" must be lower-case`),
		Entry("a backslash", `fork\x`, "want CATEGORY/NAME"),
	)

	It("refuses a category folder that is a symlink", func() {
		root := GinkgoT().TempDir()
		Expect(os.Symlink(GinkgoT().TempDir(), filepath.Join(root, "fork"))).To(Succeed())
		_, err := fixture.Path(root, "fork/x")
		Expect(err).To(MatchError(fixture.ErrBadName))
		Expect(err).To(MatchError(ContainSubstring(filepath.Join(root, "fork") + " is a symlink; fixtures must be real folders inside " + root)))
	})

	It("refuses a scenario folder that is a symlink", func() {
		root := GinkgoT().TempDir()
		Expect(os.Mkdir(filepath.Join(root, "fork"), 0o755)).To(Succeed())
		Expect(os.Symlink(GinkgoT().TempDir(), filepath.Join(root, "fork", "x"))).To(Succeed())
		_, err := fixture.Path(root, "fork/x")
		Expect(err).To(MatchError(fixture.ErrBadName))
		Expect(err).To(MatchError(ContainSubstring("is a symlink")))
	})

	It("refuses a root that is a symlink", func() {
		link := filepath.Join(GinkgoT().TempDir(), "fixtures")
		Expect(os.Symlink(GinkgoT().TempDir(), link)).To(Succeed())
		_, err := fixture.Path(link, "fork/x")
		Expect(err).To(MatchError(fixture.ErrBadName))
		Expect(err).To(MatchError(ContainSubstring(link + " is a symlink")))
	})
})

var _ = Describe("Within", func() {
	var root string
	BeforeEach(func() {
		root = GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(root, "fork", "x"), 0o755)).To(Succeed())
	})

	It("accepts a folder inside the root, and the root itself", func() {
		Expect(fixture.Within(root, filepath.Join(root, "fork", "x"))).To(Succeed())
		Expect(fixture.Within(root, root)).To(Succeed())
	})

	It("accepts a root named through a symlink", func() {
		link := filepath.Join(GinkgoT().TempDir(), "link")
		Expect(os.Symlink(root, link)).To(Succeed())
		Expect(fixture.Within(link, filepath.Join(root, "fork", "x"))).To(Succeed())
	})

	It("refuses a folder outside the root", func() {
		outside := GinkgoT().TempDir()
		err := fixture.Within(root, outside)
		Expect(err).To(MatchError(fixture.ErrBadName))
		Expect(err).To(MatchError("scenario: bad scenario name: " + outside + " is outside " + root + "; give a fixture folder inside it"))
	})

	It("refuses a folder whose name starts like the root's", func() {
		sibling := root + "-other"
		Expect(os.Mkdir(sibling, 0o755)).To(Succeed())
		DeferCleanup(os.RemoveAll, sibling)
		Expect(fixture.Within(root, sibling)).To(MatchError(fixture.ErrBadName))
	})

	It("refuses a symlink inside the root that leads out of it", func() {
		link := filepath.Join(root, "fork", "escape")
		Expect(os.Symlink(GinkgoT().TempDir(), link)).To(Succeed())
		Expect(fixture.Within(root, link)).To(MatchError(fixture.ErrBadName))
	})

	It("fails on a folder that does not exist", func() {
		err := fixture.Within(root, filepath.Join(root, "fork", "none"))
		Expect(err).To(MatchError(fs.ErrNotExist))
		Expect(err.Error()).To(HavePrefix("scenario: "))
	})
})
