//go:build unix

package readfile_test

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/readfile"
)

var _ = Describe("Read of what is not a regular file", func() {
	It("reads what is not a regular file as os.ReadFile does: a FIFO to its writer's end", func() {
		p := filepath.Join(GinkgoT().TempDir(), "fifo")
		Expect(syscall.Mkfifo(p, 0o600)).To(Succeed())
		wrote := make(chan error, 1)
		go func() {
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err == nil {
				_, err = f.WriteString("from the writer\n")
				err = errors.Join(err, f.Close())
			}
			wrote <- err
		}()
		got, err := readfile.Read(p)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).To(Equal("from the writer\n"))
		Expect(<-wrote).To(Succeed())
	})
})
