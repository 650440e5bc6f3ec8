package recorder_test

import (
	"context"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/recorder"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The repository's reference fixtures are recorded from their playbooks
// with the fixed clock: re-recording one must change no byte, so a
// playbook edit shows in review as exactly what it changed.
var _ = Describe("re-recording the repository's reference fixtures from their playbooks", func() {
	dirs, err := fixture.Discover(filepath.Join("..", "fixtures"))
	if err != nil {
		panic(err)
	}
	for _, src := range dirs {
		name := fixture.Name(src)
		It("changes no byte of "+name, func() {
			dir := committed(name)
			before := folderBytes(dir)
			opts, err := recorder.PlaybookOptions(dir, 0)
			Expect(err).NotTo(HaveOccurred())
			opts.Runtime, opts.By = agent.Reference, "agentsnap v0.1.0"
			res, err := recorder.Record(context.Background(), dir, opts)
			Expect(err).NotTo(HaveOccurred())
			Expect(res.Unchanged).To(BeTrue(), "the recording says it wrote nothing")
			Expect(folderBytes(dir)).To(Equal(before))
		})
	}
})

// folderBytes returns every file of dir by name.
func folderBytes(dir string) map[string]string {
	GinkgoHelper()
	entries, err := os.ReadDir(dir)
	Expect(err).NotTo(HaveOccurred())
	out := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		Expect(err).NotTo(HaveOccurred())
		out[e.Name()] = string(b)
	}
	return out
}
