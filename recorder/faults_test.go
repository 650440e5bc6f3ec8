package recorder_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/agentsnap/agentsnap/recorder"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a recording that cannot be written", Label("faults"), func() {
	var dir string
	var before map[string]string
	BeforeEach(func() { dir, before = recorded("fork/codeword") })

	DescribeTable("fails clearly on a full disk and leaves nothing half-written",
		func(after int) {
			DeferCleanup(recorder.FailWritesAfter(after))
			_, err := record(context.Background(), dir, playbookDriver(dir), laterClock)
			Expect(err).To(MatchError(syscall.ENOSPC))
			Expect(err.Error()).To(ContainSubstring("no space left on device"))
			Expect(tree(dir)).To(Equal(before), "the old fixture is untouched and no temporary folder is left")
		},
		Entry("on the first file", 0),
		Entry("on a later file", 2),
	)

	It("refuses to copy a fixture entry that is not a plain file, leaving the fixture as it was", func() {
		Expect(syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644)).To(Succeed())
		before = tree(dir)
		_, err := record(context.Background(), dir, playbookDriver(dir), laterClock)
		Expect(err).To(MatchError(ContainSubstring("pipe is not a regular file; a fixture holds plain files and folders only")))
		Expect(tree(dir)).To(Equal(before))
		_, statErr := os.Stat(filepath.Join(dir, "pipe"))
		Expect(statErr).NotTo(HaveOccurred())
	})
})

// laterClock makes a re-recording differ from the first (its times), so it
// has files to write: a recording identical to the fixture writes nothing.
func laterClock(o *recorder.Options) {
	o.Clock = func() time.Time { return time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) }
}

var _ = Describe("a fixture folder that is a symlink", func() {
	It("is refused before anything is written", func() {
		real := scaffold("fork/codeword")
		link := filepath.Join(filepath.Dir(real), "link")
		Expect(os.Symlink(real, link)).To(Succeed())
		_, err := record(context.Background(), link, playbookDriver(real))
		Expect(err).To(MatchError(ContainSubstring("link is a symlink; record into the real folder")))
		_, statErr := os.Stat(filepath.Join(real, "session.jsonl"))
		Expect(statErr).To(MatchError(os.ErrNotExist))
	})
})
