package nodetest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Attempt is one HTTP attempt of a model call by an agent's SDK, as the
// agents' timedFetch logs it when AGENT_ATTEMPTS_LOG names a file.
type Attempt struct {
	Session string `json:"session"`
	Status  int    `json:"status"`
	Start   int64  `json:"start"` // ms since the epoch
	End     int64  `json:"end"`
}

// LogAttempts has the agent log its HTTP attempts to a fresh file for the
// rest of the spec, and returns what reads those of session ("": all).
func LogAttempts() func(session string) []Attempt {
	file := filepath.Join(GinkgoT().TempDir(), "attempts.jsonl")
	GinkgoT().Setenv("AGENT_ATTEMPTS_LOG", file)
	return func(session string) []Attempt {
		GinkgoHelper()
		f, err := os.Open(file)
		Expect(err).NotTo(HaveOccurred(), "the agent logged no attempt")
		defer f.Close()
		var all []Attempt
		lines := bufio.NewScanner(f)
		for lines.Scan() {
			var a Attempt
			Expect(json.Unmarshal(lines.Bytes(), &a)).To(Succeed(), "%s: %s", file, lines.Text())
			if session == "" || a.Session == session {
				all = append(all, a)
			}
		}
		Expect(lines.Err()).NotTo(HaveOccurred())
		return all
	}
}

// Statuses is the status of each attempt, in order.
func Statuses(all []Attempt) []int {
	out := make([]int, len(all))
	for i, a := range all {
		out[i] = a.Status
	}
	return out
}
