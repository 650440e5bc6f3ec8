package recorder_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/recorder"
)

var _ = Describe("recorded files", func() {
	It("removes a stale child log an earlier recording left, even when everything else is unchanged", func() {
		dir, _ := recorded("fork/codeword")
		stale := filepath.Join(dir, fixture.ChildLog(9))
		Expect(os.WriteFile(stale, []byte(`{"type":"session","version":0,"id":"old","createdAt":1}`+"\n"), 0o644)).To(Succeed())

		res, err := record(context.Background(), dir, playbookDriver(dir))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Unchanged).To(BeFalse(), "the folder differs from what the recording writes")
		Expect(stale).NotTo(BeAnExistingFile())
	})

	It("names the line of the file where a secret appears", func() {
		const key = "sk-test-7f3a9c2e41b8d605"
		dir := scaffold("fork/codeword")
		path := filepath.Join(dir, fixture.PlaybookFile)
		pb, err := playbook.Load(path)
		Expect(err).NotTo(HaveOccurred())
		pb.Sessions["call_fork_1"][0].Text = "The key is " + key

		// Recorded without the key known, the log saves: find its line.
		_, err = record(context.Background(), dir, playbook.NewDriver(pb, path))
		Expect(err).NotTo(HaveOccurred())
		b, err := os.ReadFile(filepath.Join(dir, fixture.ChildLog(1)))
		Expect(err).NotTo(HaveOccurred())
		i := bytes.Index(b, []byte(key))
		Expect(i).To(BeNumerically(">", 0))
		line := 1 + bytes.Count(b[:i], []byte{'\n'})
		Expect(line).To(BeNumerically(">", 1))

		_, err = record(context.Background(), dir, playbook.NewDriver(pb, path), func(o *recorder.Options) {
			o.Secrets = map[string]string{"AGENTSNAP_API_KEY": key}
		})
		Expect(err).To(MatchError(recorder.ErrSecret))
		Expect(err.Error()).To(ContainSubstring(fmt.Sprintf("appears in %s line %d", fixture.ChildLog(1), line)))
	})
})
