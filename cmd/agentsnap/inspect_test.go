package main

import (
	"path/filepath"
	"runtime"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("inspect of a log a replay cannot read", func() {
	It("warns under the usage, naming the line and what to do", func() {
		root := fixtureCopy("fork/codeword")
		log := filepath.Join(root, "fixtures/fork/codeword", fixture.RootLog)
		replaceIn(log, `"inputTokens":68,`, `"inputTokens":99999999999999999999999,`)
		r := cli(root, nil, "inspect", log)
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).To(ContainSubstring("  usage     3 model calls, 545 tokens (433 input, 112 output)\n" +
			"            warning: a replay cannot read this log: fakellm: derive " + log + ":9: session root: assistant/chunk seq 7: "))
		Expect(r.stdout).To(ContainSubstring("into Go struct field Usage.inputTokens of type int; re-record the scenario\n"))
	})

	It("says nothing more of a log a replay reads", func() {
		root := fixtureCopy("fork/codeword")
		r := cli(root, nil, "inspect", filepath.Join(root, "fixtures/fork/codeword"))
		Expect(r.code).To(Equal(exitOK), r.stderr)
		Expect(r.stdout).NotTo(ContainSubstring("warning"))
	})
})

var _ = Describe("inspect's abbreviation of a very long recorded text", func() {
	It("counts runes only up to the cut, not a []rune of the whole text", func() {
		const size = 8 << 20
		text := strings.Repeat("é", size/2) // 2 bytes a rune: a []rune of it is 2*size
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		got := abbreviate(text, 60)
		runtime.ReadMemStats(&after)
		Expect(got).To(Equal(strings.Repeat("é", 60) + "…"))
		Expect(after.TotalAlloc-before.TotalAlloc).To(BeNumerically("<", size), "bytes allocated")
	})
})
