package harness_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("what the harness logs in a plain go test", func() {
	// The log's file:line is the testing package's: a helper the harness
	// leaves unmarked shows up as record.go or golden.go, a file the team
	// never wrote. The spec runs a real test binary (testdata/plainlog).
	It("points at the team's test line: the recording -record made, the golden -update rewrote", func() {
		if _, err := exec.LookPath("go"); err != nil {
			Skip("no go command")
		}
		dir := copyFixture("spawn/one-child")
		run := func(args ...string) string {
			GinkgoHelper()
			cmd := exec.Command("go", append([]string{"test", "-count=1", "-v", "./testdata/plainlog", "-args"}, args...)...)
			cmd.Env = append(plainEnv(), "PLAINLOG_FIXTURE="+dir)
			out, err := cmd.CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), string(out))
			return string(out)
		}
		Expect(run("-record=^spawn/one-child$")).To(MatchRegexp(`plainlog_test\.go:\d+: harness: recorded (\(unchanged\) )?spawn/one-child`))
		editLine(filepath.Join(dir, fixture.GoldenFile), 3, func(l string) string { return l + " (edited)" })
		Expect(run("-update")).To(MatchRegexp(`plainlog_test\.go:\d+: harness: updated ` + regexp.QuoteMeta(filepath.Join(dir, fixture.GoldenFile))))
	})
})

// plainEnv is the environment without what would change the run: CI
// (recording and -update refuse under it) and agentsnap's own variables.
func plainEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CI=") && !strings.HasPrefix(kv, "AGENTSNAP_") && !strings.HasPrefix(kv, "GOLDIE_") {
			env = append(env, kv)
		}
	}
	return env
}
