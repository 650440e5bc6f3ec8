package recorder_test

import (
	"context"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
)

var _ = Describe("the files a recording writes", func() {
	It("refuses a secret in an author's member of scenario.json that no log holds, and leaves the folder as it was", func() {
		const key = "sk-test-4e1d77c09a2b3f58"
		dir, _ := recorded("fork/codeword")
		editScenario(dir, func(sc *scenario.Scenario) { sc.Description = "Recorded with " + key })
		before := tree(dir)

		_, err := record(context.Background(), dir, playbookDriver(dir), func(o *recorder.Options) {
			o.Secrets = map[string]string{"AGENTSNAP_API_KEY": key}
		})
		Expect(err).To(MatchError(recorder.ErrSecret))
		Expect(err.Error()).To(ContainSubstring("the value of AGENTSNAP_API_KEY appears in " + scenario.File))
		Expect(tree(dir)).To(Equal(before))
	})

	It("gives every file the permissions of an ordinary 0644 file, authored ones copied too", func() {
		dir, _ := recorded("fork/codeword")
		ref := filepath.Join(GinkgoT().TempDir(), "ref")
		Expect(os.WriteFile(ref, []byte("x"), 0o644)).To(Succeed())
		st, err := os.Stat(ref)
		Expect(err).NotTo(HaveOccurred())
		entries, err := os.ReadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(entries).NotTo(BeEmpty())
		for _, e := range entries {
			info, err := e.Info()
			Expect(err).NotTo(HaveOccurred())
			Expect(info.Mode()).To(Equal(st.Mode()), "%s", e.Name())
		}
	})

	It("names a file it rewrote whose old bytes went on past the new ones", func() {
		dir, _ := recorded("fork/codeword")
		path := filepath.Join(dir, fixture.RootLog)
		want, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.WriteFile(path, append(want, "\n"...), 0o644)).To(Succeed())

		res, err := record(context.Background(), dir, playbookDriver(dir))
		Expect(err).NotTo(HaveOccurred())
		Expect(res.Changed).To(Equal([]string{fixture.RootLog}))
		Expect(os.ReadFile(path)).To(Equal(want))
	})
})
