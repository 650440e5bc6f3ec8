package main

import (
	"fmt"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/unprivileged"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
)

var _ = Describe("new, for an agent in another process", func() {
	It("says how serve records the scenario, beside record and the tests", func() {
		r := cli(GinkgoT().TempDir(), nil, "new", "spawn/desk")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).To(ContainSubstring("go tool agentsnap serve fixtures/spawn/desk --record --runtime NAME   with an agent in another process, run against the URL serve prints"))
	})
})

var _ = Describe("new with a --fixtures it cannot create a scenario under", func() {
	It("names a file given as the folder, and what --fixtures must be", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "notes"), []byte("mine\n"), 0o644)).To(Succeed())
		r := cli(dir, nil, "new", "fork/x", "--fixtures", "notes")
		Expect(r.code).To(Equal(exitBadData))
		Expect(r.stderr).To(HaveSuffix(": not a directory; --fixtures notes must be a folder this user can write (one that does not exist yet is created)\n"))
		Expect(os.ReadFile(filepath.Join(dir, "notes"))).To(Equal([]byte("mine\n")))
	})

	// CI runs as root, which writes anywhere: unprivileged.Do drops that.
	It("names a folder this user may not write, and what --fixtures must be", func() {
		dir := GinkgoT().TempDir()
		ro := filepath.Join(dir, "ro")
		Expect(os.Mkdir(ro, 0o555)).To(Succeed())
		var r result
		Expect(unprivileged.Do(func() error { r = cli(dir, nil, "new", "fork/x", "--fixtures", "ro"); return nil })).To(Succeed())
		Expect(r.code).To(Equal(exitBadData))
		Expect(r.stderr).To(Equal("agentsnap new: mkdir " + filepath.Join(ro, "fork") + ": permission denied; --fixtures ro must be a folder this user can write (one that does not exist yet is created)\n"))
	})
})

var _ = Describe("new in a category without an example of its own", func() {
	It("says on stderr which example it scaffolded and that the category asks nothing more, and the scenario checks green", func() {
		dir := GinkgoT().TempDir()
		r := cli(dir, nil, "new", "handoff/x")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stderr).To(Equal("agentsnap new: note: there is no example for handoff/ scenarios (only for fork/ and spawn/), so handoff/x starts from the fork example, a parent that forks one child; handoff/ has no rules of its own, only the checks every scenario gets: edit it to what your agent does\n"))
		Expect(r.stdout).To(HavePrefix("created fixtures/handoff/x\n"))
		Expect(cli(dir, nil, "record", "fixtures/handoff/x").code).To(Equal(exitOK))
		r = cli(dir, nil, "check", "fixtures/...")
		Expect(r.code).To(Equal(exitOK), r.stdout)
		Expect(r.stdout).To(MatchRegexp(`handoff/x\s+2\s+4\s+ok`))
	})

	It("names what a category with rules needs that the example has not", func() {
		r := cli(GinkgoT().TempDir(), nil, "new", "mixed/y")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stderr).To(Equal("agentsnap new: note: there is no example for mixed/ scenarios (only for fork/ and spawn/), so mixed/y starts from the fork example, a parent that forks one child; mixed/ scenarios need at least one spawn child and one fork child, which that example has not: edit scenario.json and playbook.json so the recording has it\n"))
	})

	It("says nothing on stderr for fork/ and spawn/, which have theirs", func() {
		dir := GinkgoT().TempDir()
		for _, name := range []string{"fork/x", "spawn/x"} {
			r := cli(dir, nil, "new", name)
			Expect(r.code).To(Equal(exitOK), r.stderr)
			Expect(r.stderr).To(BeEmpty(), name)
		}
	})
})

var _ = Describe("agentsnap record of a scenario a user's test recorded with an unnamed runtime", func() {
	It("refuses it, saying to re-record it from the test, and writes nothing", func() {
		dir := GinkgoT().TempDir()
		Expect(cli(dir, nil, "new", "spawn/x").code).To(Equal(exitOK))
		Expect(cli(dir, nil, "record", "fixtures/spawn/x").code).To(Equal(exitOK))
		sdir := filepath.Join(dir, "fixtures/spawn/x")
		sc, err := scenario.Load(sdir)
		Expect(err).NotTo(HaveOccurred())
		// What -record writes for a RuntimeFunc: no runtime name, the tests' by.
		sc.Recorded.Runtime, sc.Recorded.By = "", recorder.ByTests
		Expect(sc.Save(sdir)).To(Succeed())
		before := treeDigest(sdir)

		r := cli(dir, nil, "record", "fixtures/spawn/x")
		Expect(r.code).To(Equal(exitBadData), r.stdout)
		Expect(r.stderr).To(ContainSubstring(`was recorded from a test (scenario.json recorded.by "agentsnap (go test)") by a runtime without a name`))
		Expect(r.stderr).To(ContainSubstring("-record='^spawn/x$'"))
		Expect(treeDigest(sdir)).To(Equal(before))
	})
})

// A kill between the two renames of a folder swap (where the system cannot
// swap two folders at once) leaves the old scenario aside as .NAME.old-*.
var _ = Describe("record and serve of a scenario an interrupted recording moved aside", func() {
	It("name the copy aside and how to put it back, not \"new\", and write nothing", func() {
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork/codeword")
		aside := filepath.Join(root, "fixtures/fork/.codeword.old-77")
		Expect(os.Rename(dir, aside)).To(Succeed())
		before := snapshotDir(root)
		for _, args := range [][]string{{"record", "fixtures/fork/codeword"}, {"serve", "fixtures/fork/codeword"}, {"new", "fork/codeword"}, {"check", "fixtures/..."}} {
			r := cli(root, nil, args...)
			Expect(r.code).To(Equal(exitBadData), args[0])
			Expect(r.stderr).To(Equal("agentsnap "+args[0]+": fixture: "+dir+" is missing: a recording that was interrupted moved it aside as .codeword.old-77; put it back with: mv "+aside+" "+dir+"\n"), args[0])
		}
		Expect(snapshotDir(root)).To(Equal(before))
	})
})

// A new user types the folder check takes: a category, the fixtures, or
// a pattern. record and serve take one scenario; what they said of such a
// folder (that it has no playbook.json, no scenario.json: create one) was
// the wrong fix.
var _ = Describe("record and serve of a folder that holds several scenarios", func() {
	DescribeTable("name how many it holds and one to give instead, and write nothing",
		func(command, arg string, n int, example string) {
			root := fixtureCopy("fork/codeword", "fork/first-turn", "spawn/one-child")
			before := snapshotDir(root)
			r := cli(root, nil, command, arg)
			Expect(r.code).To(Equal(exitBadData))
			Expect(r.stderr).To(Equal(fmt.Sprintf("agentsnap %s: %s is not a scenario folder: it holds %d scenarios; %s takes one scenario folder at a time, such as: go tool agentsnap %s %s\n", command, arg, n, command, command, example)))
			Expect(snapshotDir(root)).To(Equal(before))
		},
		Entry("record, a category", "record", "fixtures/fork", 2, "fixtures/fork/codeword"),
		Entry("record, the fixtures", "record", "fixtures", 3, "fixtures/fork/codeword"),
		Entry("record, a pattern", "record", "fixtures/...", 3, "fixtures/fork/codeword"),
		Entry("serve, a category", "serve", "fixtures/fork", 2, "fixtures/fork/codeword"),
	)

	It("records a scenario folder given with a trailing slash as before", func() {
		root := fixtureCopy("fork/codeword")
		r := cli(root, nil, "record", "fixtures/fork/codeword/")
		Expect(r.code).To(Equal(exitOK), r.stderr)
	})
})
