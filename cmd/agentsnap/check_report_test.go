package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// reportTree is a fixtures copy with one scenario of each status: a
// golden proposal waiting (pending), a golden that differs and a log that
// differs (fail), one that passes, and one whose child log is broken
// (error).
func reportTree() string {
	root := fixtureCopy("fork/after-tool-call", "fork/codeword", "spawn/one-child", "spawn/two-sequential", "mixed/spawn-then-fork")
	breakGolden(root)
	breakLog(root)
	dir := filepath.Join(root, "fixtures/fork/after-tool-call")
	b, err := os.ReadFile(filepath.Join(dir, fixture.GoldenFile))
	Expect(err).NotTo(HaveOccurred())
	Expect(string(b)).To(ContainSubstring("Release note: Version v2.4.1 is out now."))
	proposal := strings.Replace(string(b), "Release note: Version v2.4.1 is out now.", "Release note: PROPOSED-WORDING", 1)
	Expect(os.WriteFile(filepath.Join(dir, fixture.ProposalFile), []byte(proposal), 0o644)).To(Succeed())
	// The golden differs from the replay too, so check keeps a proposal
	// (it removes one beside a golden that matches: a stale proposal).
	golden := strings.Replace(string(b), "Release note: Version v2.4.1 is out now.", "Release note: GOLDEN-WORDING", 1)
	Expect(os.WriteFile(filepath.Join(dir, fixture.GoldenFile), []byte(golden), 0o644)).To(Succeed())
	Expect(os.WriteFile(filepath.Join(root, "fixtures/mixed/spawn-then-fork", fixture.ChildLog(2)), []byte("garbage\n"), 0o644)).To(Succeed())
	return root
}

// statuses reads the report's summary table: scenario name -> status.
func statuses(page string) map[string]string {
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`(?s)<tr class="st-(\w+)"><td>.*?<a href="#s\d+">([^<]+)</a>`).FindAllStringSubmatch(page, -1) {
		out[m[2]] = m[1]
	}
	return out
}

// divergences returns the anchors (s1, s2, ...) of the scenarios whose
// first divergence the page marks with the class "divergence".
func divergences(page string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`class="[^"]*\bdivergence"[^>]*id="(s\d+)-first-divergence"`).FindAllStringSubmatch(page, -1) {
		out = append(out, m[1])
	}
	return out
}

// treeDigest lists every file under root, by its path relative to root,
// with its content, to prove a command wrote nothing there.
func treeDigest(root string) map[string]string {
	GinkgoHelper()
	out := map[string]string{}
	Expect(filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[rel] = string(b)
		return err
	})).To(Succeed())
	return out
}

// expectSelfContained fails when the page would load anything.
func expectSelfContained(page string) {
	GinkgoHelper()
	Expect(page).To(HavePrefix("<!DOCTYPE html>"))
	for _, s := range []string{"http://", "https://", "<link", "src="} {
		Expect(page).NotTo(ContainSubstring(s))
	}
}

var _ = Describe("agentsnap report", func() {
	It("writes one self-contained page with every scenario, failing ones marked at their first divergence, and exits 0", func() {
		root := reportTree()
		fixtures := treeDigest(filepath.Join(root, "fixtures"))
		r := cli(root, nil, "report", "-o", "out.html")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stderr).To(Equal("report: wrote out.html (5 scenarios: 1 pass, 2 fail, 1 pending, 1 error)\n"))
		b, err := os.ReadFile(filepath.Join(root, "out.html"))
		Expect(err).NotTo(HaveOccurred())
		page := string(b)
		expectSelfContained(page)

		Expect(statuses(page)).To(Equal(map[string]string{
			"fork/after-tool-call":  "pending",
			"fork/codeword":         "fail",
			"mixed/spawn-then-fork": "error",
			"spawn/one-child":       "fail",
			"spawn/two-sequential":  "pass",
		}))
		// s1 after-tool-call, s2 codeword, s3 spawn-then-fork, s4 one-child, s5 two-sequential.
		Expect(divergences(page)).To(ConsistOf("s1", "s2", "s4"))
		Expect(page).To(ContainSubstring("PROPOSED-WORDING"), "the proposal is the replay side of a pending scenario")
		Expect(page).To(ContainSubstring("a golden proposal waits for review: " + filepath.Join(root, "fixtures/fork/after-tool-call", fixture.ProposalFile)))
		Expect(page).To(ContainSubstring("go tool agentsnap record " + filepath.Join(root, "fixtures/spawn/one-child")))
		Expect(page).To(ContainSubstring("go tool agentsnap check --update " + filepath.Join(root, "fixtures/fork/codeword")))
		Expect(page).To(ContainSubstring("log difference: root (root session): seq 39"), "the most telling line leads")

		Expect(treeDigest(filepath.Join(root, "fixtures"))).To(Equal(fixtures), "a report writes no fixture")
		left, err := filepath.Glob(filepath.Join(root, ".out.html.tmp-*"))
		Expect(err).NotTo(HaveOccurred())
		Expect(left).To(BeEmpty())
	})

	It("refuses a folder as the file to write before it replays anything, saying what to give", func() {
		root := fixtureCopy("spawn/one-child")
		fixtures := treeDigest(filepath.Join(root, "fixtures"))
		r := cli(root, nil, "report", "fixtures", "-o", "fixtures")
		Expect(r.code).To(Equal(exitUsage))
		Expect(r.stdout + r.stderr).NotTo(ContainSubstring("file exists"))
		Expect(r.stderr).To(HavePrefix("agentsnap report: -o fixtures is a folder; give -o the file to write, such as " + filepath.Join("fixtures", "report.html") + "\nusage: agentsnap report"))
		r = cli(root, nil, "check", "fixtures", "--report", "fixtures")
		Expect(r.code).To(Equal(exitUsage))
		Expect(r.stdout).To(BeEmpty(), "nothing replayed")
		Expect(r.stderr).To(HavePrefix("agentsnap check: --report fixtures is a folder; give --report the file to write, such as " + filepath.Join("fixtures", "report.html") + "\nusage: agentsnap check"))
		Expect(treeDigest(filepath.Join(root, "fixtures"))).To(Equal(fixtures))
	})

	It("needs -o, and exits 1 with the reason when it cannot write", func() {
		root := fixtureCopy("spawn/one-child")
		r := cli(root, nil, "report")
		Expect(r.code).To(Equal(exitUsage))
		Expect(r.stderr).To(HavePrefix("agentsnap report: -o FILE is required: the HTML file to write\nusage: agentsnap report [DIR...] -o FILE"))

		r = cli(root, nil, "report", "fixtures", "-o", "missing/out.html")
		Expect(r.code).To(Equal(exitBadData))
		Expect(r.stderr).To(HavePrefix("agentsnap report: writing the report: write " + filepath.Join(root, "missing/out.html")))
		Expect(r.stderr).To(ContainSubstring("give -o a file in a folder that exists and is writable"))
		Expect(filepath.Join(root, "missing")).NotTo(BeAnExistingFile())

		r = cli(root, nil, "report", "nowhere", "-o", "out.html")
		Expect(r.code).To(Equal(exitBadData))
		Expect(r.stderr).To(ContainSubstring("nowhere: no such file or directory"))
		Expect(filepath.Join(root, "out.html")).NotTo(BeAnExistingFile())
	})
})

var _ = Describe("agentsnap check --report", func() {
	It("writes the same page after the run, and keeps the table and the exit status", func() {
		GinkgoT().Setenv("CI", "") // check writes golden proposals only outside CI
		root := reportTree()
		plain := cli(root, nil, "check")
		r := cli(root, nil, "check", "--report", "check.html")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stdout).To(Equal(plain.stdout), "the table is the same")
		// fork/codeword's golden differs from a matching replay: check
		// proposes its transcript, so it is pending too.
		Expect(r.stderr).To(HaveSuffix("report: wrote check.html (5 scenarios: 1 pass, 1 fail, 2 pending, 1 error)\n"))

		Expect(cli(root, nil, "report", "-o", "report.html").code).To(Equal(exitOK))
		fromCheck, err := os.ReadFile(filepath.Join(root, "check.html"))
		Expect(err).NotTo(HaveOccurred())
		fromReport, err := os.ReadFile(filepath.Join(root, "report.html"))
		Expect(err).NotTo(HaveOccurred())
		expectSelfContained(string(fromCheck))
		title := strings.NewReplacer("<title>agentsnap check</title>", "<title>agentsnap report</title>", "<h1>agentsnap check</h1>", "<h1>agentsnap report</h1>")
		Expect(title.Replace(string(fromCheck))).To(Equal(string(fromReport)), "one code path: only the title differs")
	})

	It("leaves stdout to --format json", func() {
		root := fixtureCopy("spawn/one-child")
		r := cli(root, nil, "check", "--format", "json", "--report", "out.html")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		var v map[string]any
		Expect(json.Unmarshal([]byte(r.stdout), &v)).To(Succeed())
		Expect(filepath.Join(root, "out.html")).To(BeAnExistingFile())
	})

	It("exits 1 when the page cannot be written, though every scenario passes", func() {
		root := fixtureCopy("spawn/one-child")
		r := cli(root, nil, "check", "--report", "missing/out.html")
		Expect(r.code).To(Equal(exitFail))
		Expect(r.stdout).To(HaveSuffix("1 scenario, 1 passed, 0 failed\n"))
		Expect(r.stderr).To(HavePrefix("agentsnap check: writing the report: write " + filepath.Join(root, "missing/out.html")))
	})
})
