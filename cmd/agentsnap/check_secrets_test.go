package main

import (
	"bytes"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/internal/leaktest"
	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/scenario"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A developer runs check, report and review with the real keys in the
// shell, and what they print goes to CI logs, pull request comments and
// HTML artifacts. An agent that now sends a key makes a drift, a log
// difference and a transcript diff that quote it.
var _ = Describe("check, report and review with a key of the shell in what they show", Label("secrets"), func() {
	// The "+" and "/" are escaped by the HTML page: only a redaction made
	// before the page is written finds the key.
	const key = "sk-shell+key/0123456789abcdefXYZ"
	environ := map[string]string{"OPENAI_API_KEY": key}

	// leakyTree copies fork/codeword with its first prompt holding the key:
	// the reference runtime sends it, so the replay drifts from the
	// recording and its transcript from the golden.
	leakyTree := func() string {
		root := fixtureCopy("fork/codeword")
		path := filepath.Join(root, "fixtures/fork/codeword", scenario.File)
		b, err := os.ReadFile(path)
		Expect(err).NotTo(HaveOccurred())
		b = bytes.Replace(b, []byte("the project codeword is MARMALADE."), []byte("the project codeword is MARMALADE and the key is "+key+"."), 1)
		Expect(os.WriteFile(path, b, 0o644)).To(Succeed())
		return root
	}

	// expectRedacted fails when text holds the key or either half of it,
	// or does not show where it was.
	expectRedacted := func(text string) {
		GinkgoHelper()
		traces, err := leaktest.Traces(key, nil, text)
		Expect(err).NotTo(HaveOccurred())
		Expect(traces).To(BeEmpty(), "the key shows in:\n%s", text)
		Expect(text).To(ContainSubstring("the key is " + secret.Redacted))
	}

	It("check shows it as [REDACTED] in its table's problems", func() {
		r := cli(leakyTree(), environ, "check")
		Expect(r.code).To(Equal(exitFail), r.stderr)
		Expect(r.stdout).To(ContainSubstring("request drift: root (root session), model call 1"))
		Expect(r.stdout).To(ContainSubstring("[diff -golden +replay]"))
		expectRedacted(r.stdout + r.stderr)
	})

	It("check --format json shows it as [REDACTED] in the first difference (the drift) and the problems", func() {
		r := cli(leakyTree(), environ, "check", "--format", "json")
		Expect(r.code).To(Equal(exitFail), r.stderr)
		var v struct {
			Scenarios []struct {
				FirstDifference string   `json:"firstDifference"`
				Problems        []string `json:"problems"`
			} `json:"scenarios"`
		}
		Expect(json.Unmarshal([]byte(r.stdout), &v)).To(Succeed())
		Expect(v.Scenarios).To(HaveLen(1))
		first := v.Scenarios[0].FirstDifference
		Expect(first).To(HavePrefix("request drift: "))
		expectRedacted(first)
		expectRedacted(strings.Join(v.Scenarios[0].Problems, "\n"))
		expectRedacted(r.stdout + r.stderr)
	})

	It("check --format junit shows it as [REDACTED] in the failure's message", func() {
		r := cli(leakyTree(), environ, "check", "--format", "junit")
		Expect(r.code).To(Equal(exitFail), r.stderr)
		var doc junitDoc
		Expect(decodeStrict(r.stdout, &doc)).To(Succeed())
		failure := doc.Suite.Case.Failure
		Expect(failure).NotTo(BeNil())
		Expect(failure.Message).To(HavePrefix("request drift: "))
		expectRedacted(failure.Message)
		expectRedacted(r.stdout + r.stderr)
	})

	DescribeTable("the HTML page shows it as [REDACTED] in the problems, the agent tree and the transcripts",
		func(args ...string) {
			root := leakyTree()
			r := cli(root, environ, args...)
			Expect(r.stderr).To(ContainSubstring("report: wrote out.html"))
			b, err := os.ReadFile(filepath.Join(root, "out.html"))
			Expect(err).NotTo(HaveOccurred())
			page := string(b)
			Expect(page).To(ContainSubstring("request drift: root (root session), model call 1"))
			traces, err := leaktest.Traces(key, nil, page, html.UnescapeString(page))
			Expect(err).NotTo(HaveOccurred())
			Expect(traces).To(BeEmpty(), "the key shows in the page")
			// The problems, the replay's user message in the tree and the
			// transcript's line each show it.
			Expect(strings.Count(html.UnescapeString(page), "the key is "+secret.Redacted)).To(BeNumerically(">=", 3))
		},
		Entry("agentsnap report", "report", "-o", "out.html"),
		Entry("agentsnap check --report", "check", "--report", "out.html"),
	)

	It("review shows it as [REDACTED] in a proposal's diff, as JSON, as Markdown and when it asks", func() {
		root := fixtureCopy("fork/codeword")
		dir := filepath.Join(root, "fixtures/fork/codeword")
		b, err := os.ReadFile(filepath.Join(dir, fixture.GoldenFile))
		Expect(err).NotTo(HaveOccurred())
		next := strings.Replace(string(b), "assistant: MARMALADE", "assistant: MARMALADE, and the key is "+key, 1)
		Expect(next).NotTo(Equal(string(b)))
		Expect(os.WriteFile(filepath.Join(dir, fixture.ProposalFile), []byte(next), 0o644)).To(Succeed())
		for _, format := range []string{"json", "markdown"} {
			r := cli(root, environ, "review", "--format", format)
			Expect(r.code).To(Equal(exitOK), r.stderr)
			expectRedacted(r.stdout + r.stderr)
		}
		Expect(os.ReadFile(filepath.Join(dir, fixture.ProposalFile))).To(Equal([]byte(next)), "listing leaves the proposal as it is")

		GinkgoT().Setenv("CI", "") // review asks only outside CI
		r := reviewCLI(root, "s\n", environ, "review")
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).To(ContainSubstring("skipped"))
		expectRedacted(r.stdout + r.stderr)
		Expect(os.ReadFile(filepath.Join(dir, fixture.ProposalFile))).To(Equal([]byte(next)), "skipped: the proposal stays as it is")
	})
})
