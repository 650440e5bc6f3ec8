//go:build unix

package readfile_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/readfile"
)

var _ = Describe("Read of what is not a regular file", func() {
	// Opening a FIFO lets its writer go, and this writer writes and closes
	// at once: a Read that opened it, closed it and opened it again would
	// fail that write (no reader) or lose it and wait in its second open
	// for a writer that is gone. The writer wins that race now and then;
	// many FIFOs read at once make it win in every run.
	It("reads a FIFO to its writer's end as os.ReadFile does, opening it once", func() {
		const fifos = 32
		dir := GinkgoT().TempDir()
		for round := range 3 {
			var wg sync.WaitGroup
			failed := make(chan string, 2*fifos)
			for i := range fifos {
				p := filepath.Join(dir, fmt.Sprintf("fifo%d.%d", round, i))
				Expect(syscall.Mkfifo(p, 0o600)).To(Succeed())
				DeferCleanup(releaseReader, p)
				wg.Add(2)
				go func() {
					defer wg.Done()
					if err := writeFIFO(p, "from the writer\n"); err != nil {
						failed <- "the writer: " + err.Error()
					}
				}()
				go func() {
					defer wg.Done()
					got, err := readfile.Read(p)
					if err != nil || string(got) != "from the writer\n" {
						failed <- fmt.Sprintf("Read %s: %q, %v", p, got, err)
					}
				}()
			}
			done := make(chan struct{})
			go func() { wg.Wait(); close(done) }()
			Eventually(done).WithTimeout(10*time.Second).Should(BeClosed(), "round %d: a Read waits for a writer that is gone", round)
			close(failed)
			var all []string
			for f := range failed {
				all = append(all, f)
			}
			Expect(all).To(BeEmpty(), "round %d", round)
		}
	})
})

// writeFIFO opens the FIFO at p for writing, waiting for its reader,
// writes s and closes it.
func writeFIFO(p, s string) error {
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(s)
	return errors.Join(err, f.Close())
}

// releaseReader lets go a Read left waiting in open for a writer of the
// FIFO at p, and a writer waiting for a reader.
func releaseReader(p string) {
	if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
	if f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
}
