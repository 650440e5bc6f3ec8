package main

import (
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/fixture"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// record's summary says what the recording changed: a golden it keeps, or
// a child log that came out as it was, is not "wrote".
var _ = Describe("agentsnap record's summary of the files", func() {
	BeforeEach(func() {
		GinkgoT().Setenv("CI", "") // the recordings propose goldens
	})

	It("names the files it changed, and those it removed, not every file of the fixture", func() {
		root := fixtureCopy("spawn/one-child", "spawn/two-sequential")
		replaceIn(filepath.Join(root, "fixtures/spawn/one-child", fixture.PlaybookFile), `"text": "The largest planet is Jupiter."`, `"text": "Jupiter, surely."`)

		r := cli(root, nil, "record", "fixtures/spawn/one-child")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(HavePrefix("recorded fixtures/spawn/one-child: 2 sessions, 3 model calls\n"+
			"  wrote scenario.json, session.jsonl, transcript.golden.new\n"+
			"  the transcript changed: transcript.golden is kept"), "the kept golden and the child's unchanged log are not written")

		r = cli(root, nil, "record", "fixtures/spawn/one-child", "--replace-golden")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(Equal("recorded fixtures/spawn/one-child: 2 sessions, 3 model calls\n  wrote transcript.golden\n  removed transcript.golden.new\n"))

		// The root no longer spawns its second child.
		Expect(os.WriteFile(filepath.Join(root, "fixtures/spawn/two-sequential", fixture.PlaybookFile), []byte(`{"sessions": {
  "root": [
    {"toolCalls": [{"id": "call_france", "name": "subagent_spawn", "arguments": {"description": "Capital of France", "prompt": "What is the capital of France? Reply with the city only."}}]},
    {"text": "Paris."}
  ],
  "call_france": [{"text": "Paris"}]
}}`), 0o644)).To(Succeed())
		r = cli(root, nil, "record", "fixtures/spawn/two-sequential")
		Expect(r.code).To(Equal(0), r.stderr)
		Expect(r.stdout).To(ContainSubstring("\n  removed session.2.jsonl\n"))
	})
})
