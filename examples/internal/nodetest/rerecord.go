package nodetest

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// RecordedFiles lists the files of fixture folder dir that a recording
// writes: scenario.json, every session log and the golden transcript.
func RecordedFiles(dir string) []string {
	ents, err := os.ReadDir(dir)
	Expect(err).NotTo(HaveOccurred())
	var out []string
	for _, e := range ents {
		name := e.Name()
		log := strings.HasPrefix(name, "session") && strings.HasSuffix(name, ".jsonl")
		if !e.IsDir() && (log || name == scenario.File || name == fixture.GoldenFile) {
			out = append(out, name)
		}
	}
	return out
}

// ExpectRecordsAsCommitted records fixture dir again from its playbook,
// the way its README says (serve --record, the agent, SIGINT), in a copy,
// and expects every file the recording writes to be the committed one,
// byte for byte. A fixture a re-recording would change hides drift: a
// replay compares it without what newer recordings write (toolDigests).
// A fixture recorded live is skipped: only its model can record it again.
func (k *Kit) ExpectRecordsAsCommitted(ctx context.Context, dir string) {
	GinkgoHelper()
	sc, err := scenario.Load(dir)
	Expect(err).NotTo(HaveOccurred())
	if sc.Recorded == nil || sc.Recorded.Provider != "playbook" {
		Skip(harness.Name(dir) + " was not recorded from a playbook; only its model can record it again")
	}
	GinkgoT().Setenv("CI", "") // serve --record refuses under CI
	copied := CopyFixture(dir, scenario.File, fixture.PlaybookFile)
	code, verdict := k.Run(ctx, nil, copied, copied, "--record")
	Expect(code).To(Equal(0), verdict)
	want, got := RecordedFiles(dir), RecordedFiles(copied)
	Expect(want).To(ContainElement(fixture.RootLog), "%s has no %s", dir, fixture.RootLog)
	Expect(got).To(Equal(want), "the recording of %s wrote other files than the committed fixture holds", dir)
	for _, name := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		Expect(err).NotTo(HaveOccurred())
		fresh, err := os.ReadFile(filepath.Join(copied, name))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(fresh)).To(Equal(string(b)),
			"%s/%s is not what a recording from its playbook writes today; re-record it: AGENTSNAP_RECORD='^%s$' go tool ginkgo ./%s -- -update",
			dir, name, harness.Name(dir), k.Folder)
	}
}
