package scenario_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/scenario"
)

var _ = Describe("WithRecorded", func() {
	rec := &scenario.Recorded{Provider: "playbook", Model: "playbook", At: "2026-01-01T00:00:00Z", By: "agentsnap test", Runtime: "reference", Playbook: "sha256:0011"}

	It("replaces the recorded member alone, keeping the author's layout byte for byte", func() {
		src := "{\n    \"prompts\":   [\"a\",\n                 \"b\"],\n  \"agent\": {\"tools\": []},\n  \"recorded\": {\"model\": \"old\", \"at\": \"x\", \"by\": \"y\"},\n  \"owner\": \"me\"\n}\n"
		out, err := scenario.WithRecorded([]byte(src), rec)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(out)).To(Equal("{\n    \"prompts\":   [\"a\",\n                 \"b\"],\n  \"agent\": {\"tools\": []},\n" +
			"  \"recorded\": {\n    \"provider\": \"playbook\",\n    \"model\": \"playbook\",\n    \"at\": \"2026-01-01T00:00:00Z\",\n    \"by\": \"agentsnap test\",\n    \"runtime\": \"reference\",\n    \"playbook\": \"sha256:0011\"\n  },\n" +
			"  \"owner\": \"me\"\n}\n"))
		back, err := scenario.Parse(out, "s.json")
		Expect(err).NotTo(HaveOccurred())
		Expect(back.Recorded).To(Equal(rec))
	})

	It("adds the member at the end when the scenario has none", func() {
		out, err := scenario.WithRecorded([]byte("{\n  \"prompts\": [\"a\"]\n}\n"), rec)
		Expect(err).NotTo(HaveOccurred())
		back, err := scenario.Parse(out, "s.json")
		Expect(err).NotTo(HaveOccurred())
		Expect(back.Recorded).To(Equal(rec))
		Expect(string(out)).To(HavePrefix("{\n  \"prompts\": [\"a\"],\n  \"recorded\": {\n"))
		Expect(string(out)).To(HaveSuffix("\n  }\n}\n"))
	})

	It("gives the same text for the same metadata, so a re-recording that changes nothing changes no byte", func() {
		src := []byte("{\"prompts\": [\"a\"]}")
		once, err := scenario.WithRecorded(src, rec)
		Expect(err).NotTo(HaveOccurred())
		twice, err := scenario.WithRecorded(once, rec)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(twice)).To(Equal(string(once)))
	})
})

var _ = DescribeTable("Closest names the known word a typo most likely meant",
	func(word string, want string) {
		Expect(scenario.Closest(word, []string{"maxDepth", "maxAttempts", "prompts", "serial", "data"})).To(Equal(want))
	},
	Entry("one letter missing", "maxDeph", "maxDepth"),
	Entry("two letters swapped", "pormpts", "prompts"),
	Entry("case does not count", "SERIAL", "serial"),
	Entry("too far from everything", "owner", ""),
	Entry("a short word is not close to everything short", "dat", "data"),
	Entry("nothing for an unrelated short word", "xy", ""),
)
