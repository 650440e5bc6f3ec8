package playbook_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm/playbook"
)

// A playbook is edited by hand; encoding/json would keep the last of a
// repeated member, so a second "root" or "text" would drop the first
// without a word.
var _ = Describe("Parse refuses repeated members", func() {
	DescribeTable("naming the member's path and both lines",
		func(text, want string) {
			_, err := playbook.Parse([]byte(text), "pb.json")
			Expect(err).To(MatchError(playbook.ErrInvalid))
			Expect(err).To(MatchError("playbook: pb.json: invalid playbook: " + want))
		},
		Entry("sessions twice, a merge leftover",
			"{\n  \"sessions\": {\"root\": [{\"text\": \"a\"}]},\n  \"sessions\": {\"root\": [{\"text\": \"b\"}]}\n}",
			`line 3: member "sessions" is repeated (first at line 2); keep one of them`),
		Entry("a second list of answers for the root",
			"{\"sessions\": {\n\"root\": [{\"text\": \"a\"}],\n\"root\": [{\"text\": \"b\"}]}}",
			`line 3: member "sessions.root" is repeated (first at line 2); keep one of them`),
		Entry("a member of an answer",
			"{\"sessions\": {\"root\": [{\"text\": \"a\"},\n{\"text\": \"b\",\n\"text\": \"c\"}]}}",
			`line 3: member "sessions.root[1].text" is repeated (first at line 2); keep one of them`),
		Entry("an argument deep in a tool call",
			"{\"sessions\": {\"root\": [{\"toolCalls\": [{\"id\": \"c\", \"name\": \"read\", \"arguments\": {\"opts\": {\"path\": \"a\",\n\"path\": \"b\"}}}]}, {\"text\": \"done\"}]}}",
			`line 2: member "sessions.root[0].toolCalls[0].arguments.opts.path" is repeated (first at line 1); keep one of them`),
	)

	It("reports a repeat with the other problems, sorted", func() {
		_, err := playbook.Parse([]byte("{\"sessions\": {\"root\": [{\"text\": \"a\", \"finish\": \"x\",\n\"text\": \"b\"}]}}"), "pb.json")
		Expect(err).To(MatchError("playbook: pb.json: invalid playbook: " +
			`line 2: member "sessions.root[0].text" is repeated (first at line 1); keep one of them; ` +
			`sessions.root[0].finish: "x"; use stop, tool-calls or max-tokens (or error for a failure)`))
	})

	It("takes the same member in two objects for what it is", func() {
		pb, err := playbook.Parse([]byte(`{"sessions": {"root": [
			{"text": "a", "toolCalls": [{"id": "c1", "name": "read", "arguments": {"path": "x"}}, {"id": "c2", "name": "read", "arguments": {"path": "y"}}]},
			{"text": "b"}],
			"c1": [{"text": "c"}], "c2": [{"text": "d"}]}}`), "pb.json")
		Expect(err).NotTo(HaveOccurred())
		Expect(pb.Sessions["root"][1].Text).To(Equal("b"))
	})

	It("names the two spellings of a field given twice in the file's order", func() {
		_, err := playbook.Parse([]byte(`{"sessions": {"root": [{"text": "a", "Text": "b"}]}}`), "pb.json")
		Expect(err).To(MatchError("playbook: pb.json: invalid playbook: " +
			`sessions.root[0].text: given twice, as "text" and as "Text" (names match in any case); keep one of them`))
	})

	It("refuses a field given twice in different case, which encoding/json takes for one", func() {
		_, err := playbook.Parse([]byte(`{"sessions": {"root": [{"text": "a", "Text": "b", "usage": {"inputTokens": 1, "INPUTTOKENS": 2, "outputTokens": 1}}]}}`), "pb.json")
		Expect(err).To(MatchError("playbook: pb.json: invalid playbook: " +
			`sessions.root[0].text: given twice, as "text" and as "Text" (names match in any case); keep one of them; ` +
			`sessions.root[0].usage.inputTokens: given twice, as "inputTokens" and as "INPUTTOKENS" (names match in any case); keep one of them`))
	})

	It("is refused by Load, which names the file", func() {
		path := filepath.Join(GinkgoT().TempDir(), "playbook.json")
		Expect(os.WriteFile(path, []byte("{\"sessions\": {\"root\": [{\"text\": \"a\",\n\"text\": \"b\"}]}}"), 0o644)).To(Succeed())
		_, err := playbook.Load(path)
		Expect(err).To(MatchError("playbook: " + path + `: invalid playbook: line 2: member "sessions.root[0].text" is repeated (first at line 1); keep one of them`))
	})
})
