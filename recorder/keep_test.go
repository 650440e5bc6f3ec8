package recorder_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/recorder"
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

var _ = Describe("record --session's summary of a session whose answers came back as recorded", func() {
	It("says it was kept, once, not that it was re-recorded and kept", func() {
		dir, s := recordedTree()
		res, err := recordScripted(context.Background(), dir, s, func(o *recorder.Options) { o.Session = "root/call_rel" })
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Unchanged).To(BeTrue())
		lines := res.Reuse.Lines()
		Expect(lines).To(Equal([]string{
			"only changed: 6 model calls replayed from the recording, 2 sent to the model: 220 tokens (200 input, 20 output)",
			"root/call_rel: kept as recorded, though 2 calls went to the model again from model call 1 (turn 1 step 1) (220 tokens (200 input, 20 output)): named by --session (or -record-session from a test); the answers came back as recorded",
			"kept as recorded: root, root/call_cw",
		}))
		Expect(strings.Count(strings.Join(lines, "\n"), "root/call_rel")).To(Equal(1))
		Expect(strings.Join(lines, "\n")).NotTo(ContainSubstring("re-recorded"))
	})
})
