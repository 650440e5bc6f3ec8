package atomicfile_test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/atomicfile"
	"github.com/agentsnap/agentsnap/internal/unprivileged"
)

// listing returns the names in dir.
func listing(dir string) []string {
	GinkgoHelper()
	entries, err := os.ReadDir(dir)
	Expect(err).NotTo(HaveOccurred())
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

var _ = Describe("WriteFile", func() {
	var dir, path string

	BeforeEach(func() {
		dir = GinkgoT().TempDir()
		path = filepath.Join(dir, "golden.txt")
	})

	It("creates a file with the content and permissions asked for", func() {
		Expect(atomicfile.WriteFile(path, []byte("new\n"), 0o640)).To(Succeed())
		Expect(os.ReadFile(path)).To(Equal([]byte("new\n")))
		info, err := os.Stat(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(info.Mode().Perm()).To(Equal(fs.FileMode(0o640)))
		Expect(listing(dir)).To(Equal([]string{"golden.txt"}), "no temp file left behind")
	})

	It("keeps the permissions of the file it replaces: a private golden stays private", func() {
		Expect(os.WriteFile(path, []byte("old\n"), 0o600)).To(Succeed())
		Expect(atomicfile.WriteFile(path, []byte("new\n"), 0o644)).To(Succeed())
		Expect(os.ReadFile(path)).To(Equal([]byte("new\n")))
		info, err := os.Stat(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(info.Mode().Perm()).To(Equal(fs.FileMode(0o600)))
	})

	It("replaces an existing file whole", func() {
		Expect(os.WriteFile(path, bytes.Repeat([]byte("old content "), 1000), 0o644)).To(Succeed())
		Expect(atomicfile.WriteFile(path, []byte("short"), 0o644)).To(Succeed())
		Expect(os.ReadFile(path)).To(Equal([]byte("short")))
		Expect(listing(dir)).To(Equal([]string{"golden.txt"}))
	})

	It("fails in a missing folder, naming the path", func() {
		missing := filepath.Join(dir, "nope", "golden.txt")
		err := atomicfile.WriteFile(missing, []byte("x"), 0o644)
		Expect(err).To(MatchError(fs.ErrNotExist))
		Expect(err).To(MatchError(HavePrefix("write " + missing + ": ")))
	})

	It("keeps the old content when the folder is read-only, leaving no temp file", func() {
		Expect(os.WriteFile(path, []byte("old"), 0o644)).To(Succeed())
		Expect(os.Chmod(dir, 0o555)).To(Succeed())
		DeferCleanup(os.Chmod, dir, fs.FileMode(0o755))

		// Without root's overrides: CI runs as root, which writes into
		// read-only folders.
		err := unprivileged.Do(func() error { return atomicfile.WriteFile(path, []byte("new"), 0o644) })

		Expect(err).To(MatchError(fs.ErrPermission))
		Expect(os.ReadFile(path)).To(Equal([]byte("old")))
		Expect(listing(dir)).To(Equal([]string{"golden.txt"}))
	})

	It("removes its temp file and leaves the target alone when the rename fails", func() {
		// A non-empty folder where the file should go: the temp file is
		// written and synced, and only the rename can fail.
		Expect(os.Mkdir(path, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(path, "keep"), []byte("old"), 0o644)).To(Succeed())

		err := atomicfile.WriteFile(path, []byte("new"), 0o644)

		Expect(err).To(MatchError(HavePrefix("write " + path + ": ")))
		Expect(os.ReadFile(filepath.Join(path, "keep"))).To(Equal([]byte("old")))
		Expect(listing(dir)).To(Equal([]string{"golden.txt"}), "the temp file is gone")
	})

	It("never shows a mix of two concurrent writes", func() {
		contents := make([][]byte, 8)
		for i := range contents {
			contents[i] = bytes.Repeat([]byte(fmt.Sprintf("writer %d\n", i)), 5000)
		}
		var wg sync.WaitGroup
		for _, c := range contents {
			wg.Go(func() {
				defer GinkgoRecover()
				Expect(atomicfile.WriteFile(path, c, 0o644)).To(Succeed())
			})
		}
		wg.Wait()
		got, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(contents).To(ContainElement(got))
		Expect(listing(dir)).To(Equal([]string{"golden.txt"}))
	})
})

var _ = Describe("SyncDir", func() {
	It("syncs an existing folder", func() {
		Expect(atomicfile.SyncDir(GinkgoT().TempDir())).To(Succeed())
	})

	It("fails on a missing folder, naming it", func() {
		missing := filepath.Join(GinkgoT().TempDir(), "gone")
		Expect(atomicfile.SyncDir(missing)).To(MatchError(HavePrefix("sync folder " + missing + ": ")))
	})
})
