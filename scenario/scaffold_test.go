package scenario_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/llm/playbook"
	"github.com/agentsnap/agentsnap/scenario"
)

// rootCalls lists the tool names the root's authored turns call, in order.
func rootCalls(pb *playbook.Playbook) (names, ids []string) {
	for _, t := range pb.Sessions[playbook.RootKey] {
		for _, c := range t.ToolCalls {
			names = append(names, c.Name)
			ids = append(ids, c.ID)
		}
	}
	return names, ids
}

var _ = Describe("Scaffold", func() {
	DescribeTable("creates a scenario.json and a playbook.json that load, with an example for the category",
		func(name, call string, wantPrompts int) {
			root := filepath.Join(GinkgoT().TempDir(), "fixtures")
			dir, err := fixture.Scaffold(root, name)
			Expect(err).NotTo(HaveOccurred())
			Expect(dir).To(Equal(filepath.Join(root, filepath.FromSlash(name))))

			entries, err := os.ReadDir(dir)
			Expect(err).NotTo(HaveOccurred())
			var files []string
			for _, e := range entries {
				files = append(files, e.Name())
			}
			Expect(files).To(ConsistOf(scenario.File, fixture.PlaybookFile))
			siblings, err := os.ReadDir(filepath.Dir(dir))
			Expect(err).NotTo(HaveOccurred())
			Expect(siblings).To(HaveLen(1), "no temporary folder is left behind")

			sc, err := scenario.Load(dir)
			Expect(err).NotTo(HaveOccurred())
			Expect(sc.Prompts).To(HaveLen(wantPrompts))
			pb, err := playbook.Load(filepath.Join(dir, fixture.PlaybookFile))
			Expect(err).NotTo(HaveOccurred())
			Expect(pb.Doc).NotTo(BeEmpty(), "the playbook documents itself")

			names, ids := rootCalls(pb)
			Expect(names).To(Equal([]string{call}))
			var a struct{ Tools []string }
			Expect(json.Unmarshal(sc.Agent, &a)).To(Succeed())
			Expect(a.Tools).To(ContainElement(call))
			Expect(pb.Sessions).To(HaveKey(ids[0]), "the child is keyed by the call that creates it")
		},
		Entry("spawn gets a spawn example", "spawn/first", "subagent_spawn", 1),
		Entry("fork gets a fork example", "fork/first", "subagent_fork", 2),
		Entry("another category gets the fork example", "mixed/first", "subagent_fork", 2),
	)

	It("makes the fork example complete a turn before it forks, so the child inherits something", func() {
		dir, err := fixture.Scaffold(GinkgoT().TempDir(), "fork/x")
		Expect(err).NotTo(HaveOccurred())
		pb, err := playbook.Load(filepath.Join(dir, fixture.PlaybookFile))
		Expect(err).NotTo(HaveOccurred())
		first := pb.Sessions[playbook.RootKey][0]
		Expect(first.ToolCalls).To(BeEmpty())
		Expect(first.Text).NotTo(BeEmpty())
	})

	It("refuses an existing folder and leaves it alone", func() {
		root := GinkgoT().TempDir()
		dir := filepath.Join(root, "fork", "taken")
		Expect(os.MkdirAll(dir, 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("keep"), 0o644)).To(Succeed())

		_, err := fixture.Scaffold(root, "fork/taken")
		Expect(err).To(MatchError(fs.ErrExist))
		Expect(err).To(MatchError("scenario: " + dir + ": file already exists; pick another name, or edit it and run: go tool agentsnap record " + dir))
		entries, err := os.ReadDir(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(entries).To(HaveLen(1))
		b, err := os.ReadFile(filepath.Join(dir, "mine.txt"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(Equal("keep"))
	})

	It("refuses a bad name and creates nothing", func() {
		root := filepath.Join(GinkgoT().TempDir(), "fixtures")
		_, err := fixture.Scaffold(root, "../escape")
		Expect(err).To(MatchError(fixture.ErrBadName))
		_, err = os.Stat(root)
		Expect(err).To(MatchError(fs.ErrNotExist))
	})

	It("writes files readable by everyone, as any checked-in file", func() {
		dir, err := fixture.Scaffold(GinkgoT().TempDir(), "spawn/perm")
		Expect(err).NotTo(HaveOccurred())
		st, err := os.Stat(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Mode().Perm()).To(Equal(fs.FileMode(0o755)))
		for _, n := range []string{scenario.File, fixture.PlaybookFile} {
			st, err := os.Stat(filepath.Join(dir, n))
			Expect(err).NotTo(HaveOccurred())
			Expect(st.Mode().Perm()&0o444).To(Equal(fs.FileMode(0o444)), n)
		}
	})
})
