package main

import (
	"bytes"
	"context"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// countingWriter counts the writes made to it, as the system calls a
// terminal or a pipe would take.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

var _ = Describe("agentsnap check's report", func() {
	It("reaches stdout in one write, its table, notes and problems together", func() {
		root := fixtureCopy("spawn/one-child", "fork/codeword", "errors/hang-timeout")
		breakGolden(root) // a problem to print after the table
		var out countingWriter
		var errb bytes.Buffer
		getenv, asked := testEnv(nil)
		e := &env{stdout: &out, stderr: &errb, getenv: getenv, dir: root}
		Expect(run(context.Background(), e, []string{"check", filepath.Join(root, "fixtures") + "/...", "--jobs", "1"})).To(Equal(exitFail), errb.String())
		asked()
		Expect(out.String()).To(ContainSubstring("SCENARIO"))
		Expect(out.String()).To(ContainSubstring("--- fork/codeword"))
		Expect(out.String()).To(HaveSuffix("3 scenarios, 2 passed, 1 failed\n"))
		Expect(out.writes).To(Equal(1), "the report, written %d times:\n%s", out.writes, out.String())
	})
})
