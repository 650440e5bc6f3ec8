package scenario_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/scenario"
)

// withMember is a valid scenario.json with one more member on line 3.
func withMember(member string) string {
	return "{\n  \"prompts\": [\"a\"],\n  " + member + "\n}"
}

var _ = Describe("Parse bounds every number and duration", func() {
	const path = "fixtures/fork/x/scenario.json"
	parse := func(text string) error {
		_, err := scenario.Parse([]byte(text), path)
		return err
	}

	DescribeTable("takes the largest value allowed",
		func(member string) {
			Expect(parse(withMember(member))).To(Succeed())
		},
		Entry("maxDepth", fmt.Sprintf(`"maxDepth": %d`, scenario.DepthLimit)),
		Entry("maxAttempts", fmt.Sprintf(`"maxAttempts": %d`, scenario.AttemptsLimit)),
		Entry("schedules", fmt.Sprintf(`"schedules": %d`, scenario.SchedulesLimit)),
		Entry("turnTimeout", `"turnTimeout": "1h"`),
		Entry("a price", `"prices": {"m": {"input": 1000000, "output": 0}}`),
	)

	DescribeTable("refuses one more, naming the file, the line, the member and the range",
		func(member, want string) {
			err := parse(withMember(member))
			Expect(err).To(MatchError(scenario.ErrInvalid))
			Expect(err).To(MatchError("scenario: " + path + ": invalid scenario: line 3: " + want))
		},
		Entry("maxDepth", `"maxDepth": 65`, "maxDepth is 65; use 1 to 64 (0 means the default, 2)"),
		Entry("maxDepth, negative", `"maxDepth": -1`, "maxDepth is -1; use 1 to 64 (0 means the default, 2)"),
		Entry("maxAttempts", `"maxAttempts": 101`, "maxAttempts is 101; use 1 to 100 (0 means 1)"),
		Entry("schedules", `"schedules": 10001`, "schedules is 10001; use 1 to 10000 (0 means no schedule search)"),
		Entry("schedules, the largest int", `"schedules": 9223372036854775807`,
			"schedules is 9223372036854775807; use 1 to 10000 (0 means no schedule search)"),
		Entry("schedules, negative", `"schedules": -5`, "schedules is -5; use 1 to 10000 (0 means no schedule search)"),
		Entry("schedules, past int", `"schedules": 9223372036854775808`, "schedules: want int, found JSON number 9223372036854775808"),
		Entry("turnTimeout", `"turnTimeout": "1h0m0.001s"`, "turnTimeout is 1h0m0.001s; use at most 1h0m0s (0 means none)"),
		Entry("turnTimeout, the largest duration", `"turnTimeout": "2562047h"`, "turnTimeout is 2562047h0m0s; use at most 1h0m0s (0 means none)"),
		Entry("a price", `"prices": {"m": {"input": 0, "output": 1000000.5}}`, "prices.m.output is 1.0000005e+06; use 0 to 1e+06 per million tokens"),
	)
})

var _ = Describe("Parse refuses repeated members", func() {
	const path = "x/scenario.json"

	DescribeTable("naming the member and both lines",
		func(text, want string) {
			_, err := scenario.Parse([]byte(text), path)
			Expect(err).To(MatchError(scenario.ErrInvalid))
			Expect(err).To(MatchError("scenario: " + path + ": invalid scenario: " + want))
		},
		Entry("recorded twice, a merge leftover",
			"{\n  \"prompts\": [\"a\"],\n  \"recorded\": {\"model\": \"old\"},\n  \"description\": \"d\",\n  \"recorded\": {\"model\": \"new\"}\n}",
			`line 5: member "recorded" is repeated (first at line 3); keep one of them`),
		Entry("prompts twice on one line",
			`{"prompts": ["a"], "prompts": ["b"]}`,
			`line 1: member "prompts" is repeated (first at line 1); keep one of them`),
		Entry("a key of data",
			"{\"prompts\": [\"a\"],\n\"data\": {\"k\": \"1\",\n\"k\": \"2\"}}",
			`line 3: member "data.k" is repeated (first at line 2); keep one of them`),
		Entry("a model of prices",
			"{\"prompts\": [\"a\"], \"prices\": {\n\"m\": {\"input\": 1, \"output\": 1},\n\"m\": {\"input\": 2, \"output\": 2}}}",
			`line 3: member "prices.m" is repeated (first at line 2); keep one of them`),
		Entry("a member of recorded",
			"{\"prompts\": [\"a\"], \"recorded\": {\"model\": \"a\",\n\"model\": \"b\"}}",
			`line 2: member "recorded.model" is repeated (first at line 1); keep one of them`),
		Entry("a setting deep in agent",
			"{\"prompts\": [\"a\"], \"agent\": {\"tools\": [{\"name\": \"x\",\n\"name\": \"y\"}]}}",
			`line 2: member "agent.tools[0].name" is repeated (first at line 1); keep one of them`),
		Entry("a key of data spelled once with an escape",
			"{\"prompts\": [\"a\"], \"data\": {\"k\": \"1\",\n\"\\u006b\": \"2\"}}",
			`line 2: member "data.k" is repeated (first at line 1); keep one of them`),
		Entry("two keys of data whose invalid bytes both read as U+FFFD, as encoding/json reads them",
			"{\"prompts\": [\"a\"], \"data\": {\"\xff\": \"1\",\n\"\xfe\": \"2\"}}",
			"line 2: member \"data.\uFFFD\" is repeated (first at line 1); keep one of them"),
		Entry("an unknown member",
			"{\"prompts\": [\"a\"], \"owner\": 1,\n\"owner\": 2}",
			`line 2: member "owner" is repeated (first at line 1); keep one of them`),
	)

	It("does not look inside an unknown member, which is kept as it is", func() {
		sc, err := scenario.Parse([]byte(`{"prompts": ["a"], "notes": {"k": 1, "k": 2}}`), path)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(sc.Extra["notes"])).To(Equal(`{"k": 1, "k": 2}`))
	})

	It("is refused by WithRecorded too, which would rewrite only the first", func() {
		src := []byte("{\"prompts\": [\"a\"],\n\"recorded\": {\"model\": \"a\"},\n\"recorded\": {\"model\": \"b\"}}")
		_, err := scenario.WithRecorded(src, &scenario.Recorded{Model: "c"})
		Expect(err).To(MatchError(scenario.ErrInvalid))
		Expect(err).To(MatchError(ContainSubstring(`line 3: member "recorded" is repeated (first at line 2)`)))
	})

	It("is refused by Load, which names the file", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, scenario.File), []byte("{\"prompts\": [\"a\"],\n\"maxDepth\": 1,\n\"maxDepth\": 3}"), 0o644)).To(Succeed())
		_, err := scenario.Load(dir)
		Expect(err).To(MatchError(strings.Join([]string{"scenario: ", filepath.Join(dir, scenario.File), `: invalid scenario: line 3: member "maxDepth" is repeated (first at line 2); keep one of them`}, "")))
	})
})
