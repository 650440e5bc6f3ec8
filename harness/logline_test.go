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
	// plainlog runs the team's test on dir with args, the environment
	// plainEnv and env, and returns its output.
	plainlog := func(dir string, env []string, args ...string) string {
		GinkgoHelper()
		if _, err := exec.LookPath("go"); err != nil {
			Skip("no go command")
		}
		cmd := exec.Command("go", append([]string{"test", "-count=1", "-v", "./testdata/plainlog", "-args"}, args...)...)
		cmd.Env = append(append(plainEnv(), "PLAINLOG_FIXTURE="+dir), env...)
		out, err := cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		return string(out)
	}

	It("points at the team's test line: the recording -record made, the golden -update rewrote", func() {
		dir := copyFixture("spawn/one-child")
		Expect(plainlog(dir, nil, "-record=^spawn/one-child$")).To(MatchRegexp(`plainlog_test\.go:\d+: harness: recorded (\(unchanged\) )?spawn/one-child`))
		editLine(filepath.Join(dir, fixture.GoldenFile), 3, func(l string) string { return l + " (edited)" })
		Expect(plainlog(dir, nil, "-update")).To(MatchRegexp(`plainlog_test\.go:\d+: harness: updated ` + regexp.QuoteMeta(filepath.Join(dir, fixture.GoldenFile))))
	})

	// The engine (the recorder, the replay) links no testing and cannot
	// mark itself a helper: its lines go out without a file:line rather
	// than with one of agentsnap's files (recorder.go:352, replay.go:132).
	It("shows the recorder's and the replay's warnings without a file:line of agentsnap's, redacted", func() {
		const key = "sk-shell-key-0123456789abcdef"
		dir := copyFixture("spawn/one-child")
		warn := "agent.store: postgres://app:" + key + "@db/runs is ignored in a replay"
		out := plainlog(dir, []string{"OPENAI_API_KEY=" + key, "PLAINLOG_WARNING=" + warn}, "-record=^spawn/one-child$")
		Expect(out).To(MatchRegexp(`plainlog_test\.go:\d+: harness: recorded (\(unchanged\) )?spawn/one-child`))
		shown := regexp.MustCompile(`(?m)^    agent\.store: postgres://app:\[REDACTED\]@db/runs is ignored in a replay$`)
		Expect(shown.FindAllString(out, -1)).To(HaveLen(2), "the recording's warning and the replay's:\n%s", out)
		Expect(out).NotTo(ContainSubstring(key))
		for _, at := range regexp.MustCompile(`(?m)^\s+(\S+\.go):\d+: `).FindAllStringSubmatch(out, -1) {
			Expect(at[1]).To(Equal("plainlog_test.go"), "a line that points at a file the team never wrote:\n%s", out)
		}
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
