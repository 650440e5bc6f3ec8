package main

import (
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("scenario authoring, refused", func() {
	It("new takes exactly one CATEGORY/NAME and creates nothing when given two", func() {
		dir := GinkgoT().TempDir()
		r := cli(dir, nil, "new", "fork/x", "spawn/y")
		Expect(r.code).To(Equal(exitUsage))
		Expect(r.stderr).To(HavePrefix("agentsnap new: want one CATEGORY/NAME, got 2 arguments\nusage: agentsnap new CATEGORY/NAME"))
		Expect(filepath.Join(dir, "fixtures")).NotTo(BeAnExistingFile())
	})

	It("record refuses a file given as the scenario folder", func() {
		dir := GinkgoT().TempDir()
		Expect(cli(dir, nil, "new", "fork/x").code).To(Equal(exitOK))
		r := cli(dir, nil, "record", "fixtures/fork/x/scenario.json")
		Expect(r.code).To(Equal(exitBadData))
		Expect(r.stderr).To(Equal("agentsnap record: fixtures/fork/x/scenario.json is not a scenario folder; create one with: go tool agentsnap new CATEGORY/NAME\n"))
		Expect(filepath.Join(dir, "fixtures/fork/x", fixture.RootLog)).NotTo(BeAnExistingFile())
	})

	DescribeTable("record refuses a --session that is no lineage path",
		func(session string) {
			root := fixtureCopy("fork/codeword")
			before := treeDigest(filepath.Join(root, "fixtures"))
			r := cli(root, nil, "record", "fixtures/fork/codeword", "--session", session)
			Expect(r.code).To(Equal(exitUsage))
			Expect(r.stderr).To(ContainSubstring(`--session "` + session + `": give a lineage path such as root or root/call_1`))
			Expect(treeDigest(filepath.Join(root, "fixtures"))).To(Equal(before))
		},
		Entry("ending in a slash", "root/call_fork_1/"),
		Entry("a name that only starts like root", "rootx"),
	)

	It("record refuses a category folder linked to the folder that holds the fixtures tree, and writes nothing there", func() {
		elsewhere := GinkgoT().TempDir()
		Expect(cli(elsewhere, nil, "new", "fork/x").code).To(Equal(exitOK))
		project := GinkgoT().TempDir()
		Expect(os.Rename(filepath.Join(elsewhere, "fixtures", "fork", "x"), filepath.Join(project, "x"))).To(Succeed())
		Expect(os.MkdirAll(filepath.Join(project, "fixtures"), 0o755)).To(Succeed())
		link := filepath.Join(project, "fixtures", "up")
		Expect(os.Symlink(project, link)).To(Succeed())
		before := treeDigest(filepath.Join(project, "x"))

		r := cli(project, nil, "record", "fixtures/up/x")
		Expect(r.code).To(Equal(exitBadData), r.stdout)
		Expect(r.stderr).To(ContainSubstring(link + " is a symlink to "))
		Expect(r.stderr).To(ContainSubstring("outside the fixtures tree " + filepath.Join(project, "fixtures")))
		Expect(treeDigest(filepath.Join(project, "x"))).To(Equal(before))
		Expect(filepath.Join(project, "x", fixture.RootLog)).NotTo(BeAnExistingFile())
	})

	It("record refuses a scenario folder that is itself a link out of the fixtures tree, and writes nothing there", func() {
		elsewhere := GinkgoT().TempDir()
		Expect(cli(elsewhere, nil, "new", "fork/x").code).To(Equal(exitOK))
		target := filepath.Join(elsewhere, "fixtures", "fork", "x")
		before := treeDigest(target)
		root := GinkgoT().TempDir()
		Expect(os.MkdirAll(filepath.Join(root, "fixtures", "fork"), 0o755)).To(Succeed())
		link := filepath.Join(root, "fixtures", "fork", "x")
		Expect(os.Symlink(target, link)).To(Succeed())

		r := cli(root, nil, "record", "fixtures/fork/x")
		Expect(r.code).To(Equal(exitBadData), r.stdout)
		Expect(r.stderr).To(ContainSubstring(link + " is a symlink to " + target + ", outside the fixtures tree"))
		Expect(treeDigest(target)).To(Equal(before))
	})
})

var _ = Describe("agentsnap record of a scenario another runtime recorded", func() {
	It("refuses it, naming the runtime and how to re-record it, and writes nothing", func() {
		dir := GinkgoT().TempDir()
		Expect(cli(dir, nil, "new", "fork/x").code).To(Equal(exitOK))
		Expect(cli(dir, nil, "record", "fixtures/fork/x").code).To(Equal(exitOK))
		sdir := filepath.Join(dir, "fixtures/fork/x")
		sc, err := scenario.Load(sdir)
		Expect(err).NotTo(HaveOccurred())
		sc.Recorded.Runtime = "go-agent"
		Expect(sc.Save(sdir)).To(Succeed())
		before := treeDigest(sdir)

		r := cli(dir, nil, "record", "fixtures/fork/x")
		Expect(r.code).To(Equal(exitBadData), r.stdout)
		Expect(r.stderr).To(ContainSubstring(`was recorded with the runtime "go-agent", and agentsnap record records agentsnap's own reference agent only`))
		Expect(r.stderr).To(ContainSubstring("-record='^fork/x$'"))
		Expect(treeDigest(sdir)).To(Equal(before))
	})
})

var _ = Describe("agentsnap record, the provider it records", func() {
	It("records the playbook as the provider unless --provider names one", func() {
		dir := GinkgoT().TempDir()
		Expect(cli(dir, nil, "new", "fork/x").code).To(Equal(exitOK))
		sdir := filepath.Join(dir, "fixtures/fork/x")
		r := cli(dir, nil, "record", "fixtures/fork/x")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		sc, err := scenario.Load(sdir)
		Expect(err).NotTo(HaveOccurred())
		Expect(sc.Recorded).NotTo(BeNil())
		Expect(sc.Recorded.Provider).To(Equal("playbook"))

		r = cli(dir, nil, "record", "fixtures/fork/x", "--provider", "acme")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		sc, err = scenario.Load(sdir)
		Expect(err).NotTo(HaveOccurred())
		Expect(sc.Recorded.Provider).To(Equal("acme"))
	})
})
