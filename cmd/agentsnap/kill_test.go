package main

import (
	"bufio"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// visible returns every file of the fixture tree except the hidden
// temporary folders a killed recording may leave beside the fixture.
func visible(root string) map[string]string {
	out := map[string]string{}
	Expect(filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		Expect(err).NotTo(HaveOccurred())
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != root {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			Expect(err).NotTo(HaveOccurred())
			out[p] = string(b)
		}
		return nil
	})).To(Succeed())
	return out
}

func hidden(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".*"))
	return m
}

var _ = Describe("agentsnap record killed with SIGKILL", Label("faults"), Ordered, func() {
	var bin, work, dir string

	BeforeAll(func() {
		bin = filepath.Join(GinkgoT().TempDir(), "agentsnap")
		GinkgoT().Setenv("CI", "") // record refuses under CI
		build := exec.Command("go", "build", "-o", bin, ".")
		out, err := build.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		work = GinkgoT().TempDir()
		Expect(cli(work, nil, "new", "fork/x").code).To(Equal(0))
		dir = filepath.Join(work, "fixtures", "fork", "x")
		r := exec.Command(bin, "record", dir)
		out, err = r.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
	})

	// The recording prints a progress line per session turn; killing after
	// the k-th line hits it before the first model call, between turns, in
	// a child, and after the last turn while the files are being written.
	DescribeTable("leaves the previous fixture intact",
		func(afterLines int) {
			before := visible(work)
			cmd := exec.Command(bin, "record", dir, "--pace", "3ms")
			stderr, err := cmd.StderrPipe()
			Expect(err).NotTo(HaveOccurred())
			Expect(cmd.Start()).To(Succeed())
			lines := bufio.NewScanner(stderr)
			for i := 0; i < afterLines && lines.Scan(); i++ {
			}
			Expect(cmd.Process.Kill()).To(Succeed())
			_ = cmd.Wait()
			Expect(visible(work)).To(Equal(before))
		},
		Entry("at once", 0),
		Entry("after the root's first turn started", 1),
		Entry("between the root's turns", 2),
		Entry("inside the fork child's turn", 4),
		Entry("after the child's turn ended", 5),
		Entry("after the last turn ended", 6),
	)

	It("records again afterwards, clearing what the killed runs left", func() {
		out, err := exec.Command(bin, "record", dir).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(hidden(dir)).To(BeEmpty())
		r := cli(work, nil, "check", "fixtures")
		Expect(r.code).To(Equal(0), r.stdout)
	})
})
