package harness_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	"github.com/agentsnap/agentsnap/internal/leaktest"
	"github.com/agentsnap/agentsnap/llm/playbook"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// echoing copies fork/codeword with the root's last answer saying text, as
// a model that echoes what it was shown.
func echoing(text string) string {
	dir := copyFixture("fork/codeword")
	path := filepath.Join(dir, fixture.PlaybookFile)
	pb, err := playbook.Load(path)
	Expect(err).NotTo(HaveOccurred())
	last := len(pb.Sessions["root"]) - 1
	pb.Sessions["root"][last].Text = "The codeword is MARMALADE, and " + text
	b, err := json.MarshalIndent(pb, "", "  ")
	Expect(err).NotTo(HaveOccurred())
	Expect(os.WriteFile(path, b, 0o644)).To(Succeed())
	return dir
}

var _ = Describe("-record from a test, and the secrets it cannot check", Label("secrets"), func() {
	It("warns that a key variable's value too short to tell from text is not checked, as the recorder does", func() {
		dir := copyFixture("fork/codeword")
		recordEnv(map[string]string{"AGENTSNAP_RECORD": "^fork/codeword$", "OPENAI_API_KEY": "dummy"})
		t := &captureTB{TB: GinkgoTB()}
		harness.Check(t, dir, harness.Options{Runtime: agent.Reference})
		Expect(t.fatals).To(BeEmpty())
		Expect(strings.Join(t.logs, "\n")).To(ContainSubstring("the value of OPENAI_API_KEY is shorter than 8 bytes, too short to tell from ordinary text: the recording is not checked for it"))
	})
})

var _ = Describe("-record from a test with AGENTSNAP_SECRET_VARS", Label("secrets"), func() {
	// A token agentsnap cannot see sent — one the agent's own HTTP client
	// adds in a header of its own — echoed by the model.
	const token = "tnt-own-header-0123456789abcdef"

	It("refuses a recording that holds the value of a variable it names, naming the variable, never the value", func() {
		dir := echoing("the tenant token is " + token)
		recordEnv(map[string]string{"AGENTSNAP_RECORD": "^fork/codeword$", "AGENTSNAP_SECRET_VARS": "OTHER_VAR, TENANT_TOKEN"})
		GinkgoT().Setenv("TENANT_TOKEN", token)
		GinkgoT().Setenv("OTHER_VAR", "other-value-0123456789")
		t := &captureTB{TB: GinkgoTB()}
		harness.Run(t, dir, harness.Options{Runtime: agent.Reference})
		Expect(t.fatals).To(HaveExactElements(ContainSubstring("refusing to save: a secret appears in the recording: the value of TENANT_TOKEN appears in session.jsonl line ")))
		out := strings.Join(append(t.fatals, t.logs...), "\n")
		traces, err := leaktest.Traces(token, []string{filepath.Join(dir, fixture.RootLog), filepath.Join(dir, "transcript.golden")}, out)
		Expect(err).NotTo(HaveOccurred())
		Expect(traces).To(BeEmpty(), "the test's output:\n%s", out)
	})

	It("takes an entry that names no variable that is set for a value given by mistake: a secret, named by its place, with a warning", func() {
		dir := echoing("the tenant token is " + token)
		recordEnv(map[string]string{"AGENTSNAP_RECORD": "^fork/codeword$", "AGENTSNAP_SECRET_VARS": token})
		t := &captureTB{TB: GinkgoTB()}
		harness.Run(t, dir, harness.Options{Runtime: agent.Reference})
		Expect(t.fatals).To(HaveExactElements(ContainSubstring("refusing to save: a secret appears in the recording: the value of entry 1 of AGENTSNAP_SECRET_VARS appears in session.jsonl line ")))
		out := strings.Join(append(t.fatals, t.logs...), "\n")
		Expect(out).To(ContainSubstring("the value of the variable named by entry 1 of AGENTSNAP_SECRET_VARS is empty (is it set?): the recording is not checked for it"))
		traces, err := leaktest.Traces(token, nil, out)
		Expect(err).NotTo(HaveOccurred())
		Expect(traces).To(BeEmpty(), "the test's output:\n%s", out)
	})

	It("records, with the warning, when a variable it names is not set and nothing holds it", func() {
		dir := copyFixture("fork/codeword")
		recordEnv(map[string]string{"AGENTSNAP_RECORD": "^fork/codeword$", "AGENTSNAP_SECRET_VARS": "TENANT_TOKEN"})
		GinkgoT().Setenv("TENANT_TOKEN", "")
		t := &captureTB{TB: GinkgoTB()}
		harness.Check(t, dir, harness.Options{Runtime: agent.Reference})
		Expect(t.fatals).To(BeEmpty())
		Expect(strings.Join(t.logs, "\n")).To(ContainSubstring("the value of the variable named by entry 1 of AGENTSNAP_SECRET_VARS is empty (is it set?): the recording is not checked for it"))
	})
})
