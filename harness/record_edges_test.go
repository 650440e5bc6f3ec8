package harness_test

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/agentsnap/agentsnap/agent"
	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/harness"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A live recording from a test that fails outside the model says how to
// keep such failures from a test: the CLI's flag is no flag of go test.
var _ = Describe("-record from a test against a live endpoint that fails", func() {
	It("names the variable that keeps the failures, and with it records them", func() {
		down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"message":"no such model","type":"invalid_request_error"}}`))
		}))
		DeferCleanup(down.Close)
		env := map[string]string{"AGENTSNAP_RECORD": "^fork/codeword$", "AGENTSNAP_BASE_URL": down.URL + "/v1",
			"AGENTSNAP_MODEL": "m", "OPENAI_API_KEY": "sk-live-failure-0123456789"}
		dir := copyFixture("fork/codeword")
		before := everyFile(dir)
		recordEnv(env)
		t := &fatalTB{TB: GinkgoTB()}
		harness.Run(t, dir, harness.Options{Runtime: agent.Reference})
		Expect(t.fatals).To(HaveExactElements(And(ContainSubstring("the live model failed"),
			ContainSubstring("from your tests (-record) with AGENTSNAP_KEEP_LIVE_FAILURES=1"))))
		Expect(everyFile(dir)).To(Equal(before), "nothing was saved")

		env["AGENTSNAP_KEEP_LIVE_FAILURES"] = "1"
		recordEnv(env)
		t = &fatalTB{TB: GinkgoTB()}
		harness.Run(t, dir, harness.Options{Runtime: agent.Reference})
		b, err := os.ReadFile(filepath.Join(dir, fixture.RootLog))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(ContainSubstring("no such model"), "the failure is in the fixture, as the message said")
	})
})

// A scenario recorded live keeps no playbook: -record without a live model
// says how to give one from a test, not only from the CLI.
var _ = Describe("-record from a test of a scenario without a playbook and no live model", func() {
	It("names the variables that record it live, and changes nothing", func() {
		dir := copyFixture("fork/codeword")
		Expect(os.Remove(filepath.Join(dir, fixture.PlaybookFile))).To(Succeed())
		before := everyFile(dir)
		recordEnv(map[string]string{"AGENTSNAP_RECORD": "^fork/codeword$"})
		t := &fatalTB{TB: GinkgoTB()}
		harness.Run(t, dir, harness.Options{Runtime: agent.Reference})
		Expect(t.fatals).To(HaveExactElements(And(ContainSubstring("has no playbook.json"),
			ContainSubstring("from your tests' -record, set AGENTSNAP_BASE_URL, AGENTSNAP_MODEL and a key variable"))))
		Expect(everyFile(dir)).To(Equal(before))
	})
})
