package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/unprivileged"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// writeProposal puts golden and proposal texts in fork/codeword's copy
// under root and returns their paths.
func writeProposal(root, golden, proposal string) (string, string) {
	GinkgoHelper()
	g := filepath.Join(root, "fixtures/fork/codeword", fixture.GoldenFile)
	p := g + ".new"
	Expect(os.WriteFile(g, []byte(golden), 0o644)).To(Succeed())
	Expect(os.WriteFile(p, []byte(proposal), 0o644)).To(Succeed())
	return g, p
}

// reviewSessions runs review --format json and returns the one proposal.
func reviewSessions(root string) proposal {
	GinkgoHelper()
	r := cli(root, nil, "review", "--format", "json")
	Expect(r.code).To(Equal(exitOK), r.stderr)
	var got []proposal
	Expect(json.Unmarshal([]byte(r.stdout), &got)).To(Succeed(), r.stdout)
	Expect(got).To(HaveLen(1))
	return got[0]
}

func statusesOf(p proposal) []string {
	var out []string
	for _, s := range p.Sessions {
		out = append(out, s.Session+": "+s.Status)
	}
	return out
}

var _ = Describe("agentsnap review, sessions matched by the calls that created them", func() {
	BeforeEach(func() {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
	})

	It("follows a grandchild through a renumbering, so a child added early is no likely mistake", func() {
		root := fixtureCopy("fork/codeword")
		golden := "== root ==\nturn 1 (user)\n  user: go\n\n" +
			"== session 1: spawn of root via call_a, depth 1 ==\nturn 1\n  A\n\n" +
			"== session 2: spawn of session 1 via call_b, depth 2 ==\nturn 1\n  B\n"
		next := "== root ==\nturn 1 (user)\n  user: go\n\n" +
			"== session 1: spawn of root via call_new, depth 1 ==\nturn 1\n  NEW\n\n" +
			"== session 2: spawn of root via call_a, depth 1 ==\nturn 1\n  A\n\n" +
			"== session 3: spawn of session 2 via call_b, depth 2 ==\nturn 1\n  B\n"
		g, p := writeProposal(root, golden, next)
		got := reviewSessions(root)
		Expect(got.Warnings).To(BeEmpty())
		Expect(statusesOf(got)).To(Equal([]string{
			"session 1: spawn of root via call_new, depth 1: added",
			"session 2: spawn of root via call_a, depth 1: changed",
			"session 3: spawn of session 2 via call_b, depth 2: changed",
		}))

		r := cli(root, nil, "review", "--accept")
		Expect(r.code).To(Equal(exitOK), r.stdout+r.stderr)
		Expect(readFile(g)).To(Equal(next))
		Expect(p).NotTo(BeAnExistingFile())
	})

	It("tells apart two children created by calls with the same id", func() {
		root := fixtureCopy("fork/codeword")
		golden := "== root ==\nturn 1 (user)\n  user: go\n\n" +
			"== session 1: spawn of root via call_1, depth 1 ==\nturn 1\n  FIRST\n\n" +
			"== session 2: spawn of root via call_1, depth 1 ==\nturn 1\n  SECOND\n"
		next := "== root ==\nturn 1 (user)\n  user: go\n\n" +
			"== session 1: spawn of root via call_1, depth 1 ==\nturn 1\n  FIRST\n\n" +
			"== session 2: spawn of root via call_1, depth 1 ==\nturn 1\n  SECOND, CHANGED\n"
		writeProposal(root, golden, next)
		got := reviewSessions(root)
		Expect(got.Warnings).To(BeEmpty())
		Expect(statusesOf(got)).To(Equal([]string{"session 2: spawn of root via call_1, depth 1: changed"}))
	})

	It("--reject deletes a proposal that looks like a mistake too, keeping the golden", func() {
		root := fixtureCopy("mixed/fork-spawns-grandchild")
		g, p, _ := propose(root, "mixed/fork-spawns-grandchild", dropGrandchild)
		before := readFile(g)
		r := cli(root, nil, "review", "--reject")
		Expect(r.code).To(Equal(exitOK), r.stdout+r.stderr)
		Expect(r.stdout).To(Equal("rejected mixed/fork-spawns-grandchild: removed " + p + "\n"))
		Expect(p).NotTo(BeAnExistingFile())
		Expect(readFile(g)).To(Equal(before))
	})

	It("shows every session of a proposal beside a missing golden as added, and --accept makes it the golden", func() {
		root := fixtureCopy("fork/codeword")
		g := filepath.Join(root, "fixtures/fork/codeword", fixture.GoldenFile)
		text := readFile(g)
		Expect(os.Rename(g, g+".new")).To(Succeed())
		got := reviewSessions(root)
		Expect(got.Golden).To(Equal(g))
		Expect(got.Sessions).NotTo(BeEmpty())
		for _, s := range got.Sessions {
			Expect(s.Status).To(Equal(sessionAdded), s.Session)
		}
		r := cli(root, nil, "review", "--accept")
		Expect(r.code).To(Equal(exitOK), r.stdout+r.stderr)
		Expect(readFile(g)).To(Equal(text))
		Expect(g + ".new").NotTo(BeAnExistingFile())
	})

	It("says what to do with a proposal, or a golden beside one, that is a folder", func() {
		root := fixtureCopy("fork/codeword")
		g := filepath.Join(root, "fixtures/fork/codeword", fixture.GoldenFile)
		Expect(os.Mkdir(g+".new", 0o755)).To(Succeed())
		r := cli(root, nil, "review", "--format", "json")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stderr).To(Equal("agentsnap review: read " + g + ".new: is a directory; a proposal is a file agentsnap check writes: move this away (or fix its permissions), then check and review again\n"))

		Expect(os.Remove(g + ".new")).To(Succeed())
		Expect(os.Rename(g, g+".new")).To(Succeed())
		Expect(os.Mkdir(g, 0o755)).To(Succeed())
		r = cli(root, nil, "review", "--accept")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stderr).To(Equal("agentsnap review: read " + g + ": is a directory; the proposal beside it cannot be compared with it, nor accepted over it: restore the golden from version control (or fix its permissions), or move it away to accept the proposal as a new golden, then review again\n"))
		Expect(g+".new").To(BeAnExistingFile(), "nothing was settled")
	})

	// CI runs as root, which writes anywhere: unprivileged.Do drops that.
	It("says to make the folder writable when it cannot rename or remove a proposal in it", func() {
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork/codeword")
		g, p := writeProposal(root, "== root ==\nold\n", "== root ==\nnew\n")
		Expect(os.Chmod(dir, 0o555)).To(Succeed())
		DeferCleanup(os.Chmod, dir, fs.FileMode(0o755))
		for _, flag := range []string{"--accept", "--reject"} {
			var r result
			Expect(unprivileged.Do(func() error { r = cli(root, nil, "review", flag); return nil })).To(Succeed())
			Expect(r.code).To(Equal(exitFail), flag)
			Expect(r.stderr).To(HaveSuffix(": permission denied; make the folder "+dir+" writable by this user (fix its permissions), then review again\n"), flag)
			Expect(readFile(g)).To(Equal("== root ==\nold\n"), flag)
			Expect(readFile(p)).To(Equal("== root ==\nnew\n"), flag)
		}
	})
})

// The markdown's commands name the folders review was given: the default,
// ./fixtures, is not where every module keeps its scenarios.
var _ = Describe("review --format markdown of named folders", func() {
	It("names those folders in the commands it suggests", func() {
		root := fixtureCopy("fork/codeword")
		Expect(os.Rename(filepath.Join(root, "fixtures"), filepath.Join(root, "my fixtures"))).To(Succeed())
		g := filepath.Join(root, "my fixtures/fork/codeword", fixture.GoldenFile)
		Expect(os.WriteFile(g+".new", []byte("== root ==\n"), 0o644)).To(Succeed())
		r := cli(root, nil, "review", "--format", "markdown", "my fixtures/...")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).To(ContainSubstring("Accept them with `go tool agentsnap review --accept 'my fixtures/...'`, or one at a time with `go tool agentsnap review 'my fixtures/...'`."))
	})
})

// The markdown quotes names it does not choose: a scenario's folder, and
// the paths that hold it. Each shows as written, escaped, and adds no
// markup: a '|' no table cell, a backtick no code span, a '*' no emphasis,
// a '<' no tag, a line break no new block.
var _ = Describe("review --format markdown of a scenario whose name holds markup", func() {
	It("escapes the name in its heading and the paths in their code spans", func() {
		const name = "a|b`c*d<e>\nf_g_"
		root := fixtureCopy("fork/" + name + "=fork/codeword")
		golden, proposal, _ := propose(root, "fork/"+name, codewordJAM)
		r := cli(root, nil, "review", "--format", "markdown")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).To(ContainSubstring("\n## fork/a\\|b\\`c\\*d\\<e\\>\\\\nf_g\\_\n\n``" + printable(proposal) + "`` would replace ``" + printable(golden) + "``.\n"))
		Expect(r.stdout).NotTo(ContainSubstring("\nf_g_"), "the name's line break is its escape")
	})

	// GitHub renders $...$ in a comment as math: a name's dollars would
	// typeset what lies between them.
	It("escapes a dollar sign, which GitHub reads as math", func() {
		const name = "cost$x$y"
		root := fixtureCopy("fork/" + name + "=fork/codeword")
		propose(root, "fork/"+name, codewordJAM)
		r := cli(root, nil, "review", "--format", "markdown")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).To(ContainSubstring("\n## fork/cost\\$x\\$y\n"))
	})
})

// A pull request comment written with --accept or --reject says what the
// run did to each proposal, not that all of them still wait.
var _ = Describe("review --format markdown with --accept or --reject", func() {
	BeforeEach(func() {
		GinkgoT().Setenv("CI", "")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
	})

	It("says which proposals were accepted and which stay pending as likely mistakes", func() {
		root := fixtureCopy("fork/codeword", "mixed/fork-spawns-grandchild")
		propose(root, "fork/codeword", codewordJAM)
		propose(root, "mixed/fork-spawns-grandchild", dropGrandchild)
		r := cli(root, nil, "review", "--format", "markdown", "--accept")
		Expect(r.code).To(Equal(exitFail), "a likely mistake stays pending")
		Expect(r.stdout).To(HavePrefix("# Golden proposals\n\n2 proposals: 1 accepted, 0 rejected, 1 pending. Review the pending ones with `go tool agentsnap review`.\n"))
		Expect(r.stdout).To(ContainSubstring("\n## fork/codeword\n\n`" + filepath.Join(root, "fixtures/fork/codeword", fixture.GoldenFile) + ".new` replaced `"))
		Expect(r.stdout).To(ContainSubstring("\n## mixed/fork-spawns-grandchild\n\n`" + filepath.Join(root, "fixtures/mixed/fork-spawns-grandchild", fixture.GoldenFile) + ".new` would replace `"))
		Expect(r.stdout).NotTo(ContainSubstring("pending review. Accept them with"))
	})

	It("says the proposals were rejected", func() {
		root := fixtureCopy("fork/codeword")
		propose(root, "fork/codeword", codewordJAM)
		r := cli(root, nil, "review", "--format", "markdown", "--reject")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).To(HavePrefix("# Golden proposals\n\n1 proposal: 0 accepted, 1 rejected.\n"))
		Expect(r.stdout).To(ContainSubstring(".new` was rejected and removed; `"))
	})
})

// Under CI review lists proposals and changes no file: rejecting deletes
// one from the fixture folder, so it is refused as accepting is.
var _ = Describe("agentsnap review --reject under CI", func() {
	BeforeEach(func() {
		GinkgoT().Setenv("CI", "true")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
	})

	It("refuses, saying why and how to force it, and deletes no proposal, markdown or not", func() {
		root := fixtureCopy("fork/codeword")
		_, p, _ := propose(root, "fork/codeword", codewordJAM)
		before := readFile(p)
		for _, args := range [][]string{{"--reject"}, {"--format", "markdown", "--reject"}} {
			r := cli(root, nil, append([]string{"review"}, args...)...)
			Expect(r.code).To(Equal(exitFail), "%v: %s", args, r.stdout)
			Expect(r.stderr).To(Equal("agentsnap review: refusing to reject golden proposals with CI=true: CI checks fixtures and changes no file of them, proposals included; reject locally, or set AGENTSNAP_FORCE_UPDATE=1 to force\n"), "%v", args)
			Expect(r.stdout).To(BeEmpty(), "%v", args)
			Expect(readFile(p)).To(Equal(before), "%v", args)
		}
		Expect(cli(root, nil, "review", "--format", "markdown").code).To(Equal(exitOK), "listing stays allowed")
	})

	It("rejects with AGENTSNAP_FORCE_UPDATE=1", func() {
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "1")
		root := fixtureCopy("fork/codeword")
		_, p, _ := propose(root, "fork/codeword", codewordJAM)
		r := cli(root, nil, "review", "--reject")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(p).NotTo(BeAnExistingFile())
	})
})
