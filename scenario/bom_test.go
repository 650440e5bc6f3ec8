package scenario_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/scenario"
)

var _ = Describe("a scenario.json that starts with a byte order mark", func() {
	It("says so, not \"invalid character 'ï'\"", func() {
		_, err := scenario.Parse([]byte("\uFEFF{\"prompts\": [\"hi\"]}"), "fixtures/fork/x/scenario.json")
		Expect(err).To(MatchError("scenario: fixtures/fork/x/scenario.json: invalid scenario: line 1: the file starts with a UTF-8 byte order mark, which an editor added; remove it"))
	})
})

var _ = Describe("an empty scenario.json", func() {
	It("says it is empty and what to write, not \"unexpected end of JSON input\"", func() {
		for _, text := range []string{"", " \n\n"} {
			_, err := scenario.Parse([]byte(text), "fixtures/fork/x/scenario.json")
			Expect(err).To(MatchError("scenario: fixtures/fork/x/scenario.json: invalid scenario: line 1: the file is empty; want a JSON object such as {\"prompts\": [\"...\"]} (go tool agentsnap new CATEGORY/NAME scaffolds one), or restore it from version control"), "%q", text)
		}
	})
})
