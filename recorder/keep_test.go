package recorder_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fixture"
)

var _ = Describe("record --only-changed keeping a log's bytes", func() {
	It("keeps a log's bytes only when its header is the recording's too, not just its events", func() {
		dir, s := recordedTree()
		path := filepath.Join(dir, fixture.ChildLog(1))
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		edited := bytes.Replace(b, []byte(`{"type":"session",`), []byte(`{"type":"session","zzHandEdited":true,`), 1)
		Expect(edited).NotTo(Equal(b))
		Expect(os.WriteFile(path, edited, 0o644)).To(Succeed())

		res, err := recordScripted(context.Background(), dir, s, onlyChanged)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.requests()).To(BeEmpty(), "every call replays")
		Expect(res.Unchanged).To(BeFalse())
		got, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(got)).NotTo(ContainSubstring("zzHandEdited"), "the log is written as the recording makes it, not kept")
		Expect(bytes.Count(got, []byte("\n"))).To(Equal(bytes.Count(b, []byte("\n"))))
	})
})
