package main

import (
	"bytes"
	"context"
	"path/filepath"
	"time"

	"github.com/agentsnap/agentsnap/fixture"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// CI checks fixtures and writes none: record and serve --record refuse
// there, as check --update, review --accept and the suites' -record do.
var _ = Describe("recording under CI", func() {
	var root, dir string
	BeforeEach(func() {
		root = fixtureCopy("spawn/one-child")
		dir = filepath.Join(root, "fixtures/spawn/one-child")
		// A changed answer: a recording would rewrite session.jsonl and
		// propose a new golden.
		replaceIn(filepath.Join(dir, fixture.PlaybookFile), `"text": "The largest planet is Jupiter."`, `"text": "Jupiter, by far."`)
	})

	// CI and AGENTSNAP_FORCE_UPDATE are read from the process, as check
	// --update, review and the harness read them (fixture.WritesRefused),
	// never through the CLI's env: cli fails a spec that sets them there,
	// or a command that asks env.getenv for them.
	It("refuses record with CI=true, names the scenario and the way out, and writes nothing", func() {
		GinkgoT().Setenv("CI", "true")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		before := treeDigest(dir)
		for _, args := range [][]string{
			{"record", "fixtures/spawn/one-child"},
			{"record", "fixtures/spawn/one-child", "--replace-golden"},
			{"record", "fixtures/spawn/one-child", "--session", "root"},
		} {
			r := cli(root, nil, args...)
			Expect(r.code).To(Equal(1), "%v: %s", args, r.stdout)
			Expect(r.stderr).To(ContainSubstring("agentsnap record: refusing to record fixtures/spawn/one-child with CI=true: CI replays fixtures, it does not write them; record locally, or set AGENTSNAP_FORCE_UPDATE=1 to force"), "%v", args)
			Expect(treeDigest(dir)).To(Equal(before), "%v: no session log, golden or proposal written", args)
		}
	})

	It("refuses serve --record with CI=true before it listens", func() {
		GinkgoT().Setenv("CI", "1")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		before := treeDigest(dir)
		ctx, cancel := context.WithCancel(context.Background())
		DeferCleanup(cancel) // stops a serve that did not refuse
		var out, errb bytes.Buffer
		getenv, _ := testEnv(nil) // asked nothing: serve's goroutine may outlive the spec's check
		e := &env{stdout: &out, stderr: &errb, dir: root, getenv: getenv}
		code := make(chan int, 1)
		go func() {
			code <- run(ctx, e, []string{"serve", "fixtures/spawn/one-child", "--runtime", "reference", "--record"})
		}()
		var c int
		Eventually(code).WithTimeout(30*time.Second).Should(Receive(&c), "serve --record still runs under CI")
		Expect(c).To(Equal(1))
		Expect(out.String()).To(BeEmpty(), "no URL printed")
		Expect(errb.String()).To(ContainSubstring("agentsnap serve: refusing to record fixtures/spawn/one-child with CI=1"))
		Expect(treeDigest(dir)).To(Equal(before))
	})

	It("records with CI=false, or with AGENTSNAP_FORCE_UPDATE=1 under CI", func() {
		GinkgoT().Setenv("CI", "false")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "")
		r := cli(root, nil, "record", "fixtures/spawn/one-child")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(filepath.Join(dir, fixture.ProposalFile)).To(BeARegularFile())

		GinkgoT().Setenv("CI", "true")
		GinkgoT().Setenv("AGENTSNAP_FORCE_UPDATE", "1")
		r = cli(root, nil, "record", "fixtures/spawn/one-child", "--replace-golden")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(readFile(filepath.Join(dir, fixture.GoldenFile))).To(ContainSubstring("assistant: Jupiter, by far."))
	})
})
