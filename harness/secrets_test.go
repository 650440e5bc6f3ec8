package harness_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/internal/leaktest"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// captureTB keeps every Fatalf and Logf line instead of printing it.
type captureTB struct {
	testing.TB
	mu     sync.Mutex
	fatals []string
	logs   []string
}

func (c *captureTB) Helper() {}
func (c *captureTB) Fatalf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fatals = append(c.fatals, fmt.Sprintf(format, args...))
}
func (c *captureTB) Logf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.logs = append(c.logs, fmt.Sprintf(format, args...))
}

var _ = Describe("-record from a test against an endpoint that leaks the credential", Label("secrets"), func() {
	const sent = "sk-sent-by-the-test-0123456789"
	placements := map[string]func(base, key string) map[string]string{
		"OPENAI_API_KEY": func(base, key string) map[string]string {
			return map[string]string{"OPENAI_API_KEY": key, "AGENTSNAP_BASE_URL": base}
		},
		"GEMINI_API_KEY": func(base, key string) map[string]string {
			return map[string]string{"AGENTSNAP_API_KEY": sent, "GEMINI_API_KEY": key, "AGENTSNAP_BASE_URL": base}
		},
		"the key= query parameter of AGENTSNAP_BASE_URL": func(base, key string) map[string]string {
			return map[string]string{"AGENTSNAP_API_KEY": sent, "AGENTSNAP_BASE_URL": base + "?key=" + key}
		},
		"the password in the user info of AGENTSNAP_BASE_URL": func(base, key string) map[string]string {
			return map[string]string{"AGENTSNAP_API_KEY": sent, "AGENTSNAP_BASE_URL": strings.Replace(base, "http://", "http://leaker:"+key+"@", 1)}
		},
	}
	var entries []TableEntry
	n := 0
	for _, source := range []string{"OPENAI_API_KEY", "GEMINI_API_KEY", "the key= query parameter of AGENTSNAP_BASE_URL", "the password in the user info of AGENTSNAP_BASE_URL"} {
		for _, leak := range []leaktest.Leak{leaktest.Text, leaktest.Split, leaktest.ToolArgs, leaktest.Auth401, leaktest.Header, leaktest.Hangup} {
			for _, keep := range []bool{false, true} {
				n++
				entries = append(entries, Entry(fmt.Sprintf("%s, leaked in the %s, keep failures %v", source, leak, keep), source, leak, keep, n))
			}
		}
	}

	DescribeTable("refuses or redacts as the CLI does; no file, failure or log line holds it",
		func(source string, leak leaktest.Leak, keep bool, n int) {
			key := fmt.Sprintf("k3y-harness-%03d-0123456789abcdefXYZ", n)
			root := GinkgoT().TempDir()
			dir, err := leaktest.Scenario(root)
			Expect(err).NotTo(HaveOccurred())
			end := leaktest.New(leak, key, DeferCleanup)
			env := placements[source](end.URL+"/v1", key)
			env["AGENTSNAP_RECORD"], env["AGENTSNAP_MODEL"] = "^custom/leak$", "m"
			if keep {
				env["AGENTSNAP_KEEP_LIVE_FAILURES"] = "1"
			}
			recordEnv(env)
			t := &captureTB{TB: GinkgoTB()}
			harness.Run(t, dir, harness.Options{Runtime: agent.Reference})

			out := strings.Join(append(t.fatals, t.logs...), "\n")
			traces, err := leaktest.Traces(key, []string{root}, out)
			Expect(err).NotTo(HaveOccurred())
			Expect(traces).To(BeEmpty(), "the test's output:\n%s", out)
			switch {
			case leak.Streamed():
				Expect(t.fatals).To(HaveExactElements(ContainSubstring("refusing to save: a secret appears in the recording: the value of " + source + " ")))
				Expect(filepath.Join(dir, fixture.RootLog)).NotTo(BeAnExistingFile())
			case leak.Fails() && !keep:
				Expect(t.fatals).To(HaveExactElements(ContainSubstring("the live model failed")))
			default:
				Expect(t.fatals).To(BeEmpty(), "recorded, then replayed green")
				Expect(filepath.Join(dir, fixture.RootLog)).To(BeARegularFile())
			}
		}, entries)
})
