package playbook_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/internal/secret"
	"github.com/agentsnap/agentsnap/llm/playbook"
)

// forkPlaybook is a small valid playbook: a root that forks once and a child
// keyed by the fork call's id.
const forkPlaybook = `{
  "_doc": ["authors may write anything here"],
  "sessions": {
    "root": [
      {"note": "turn 1", "text": "OK"},
      {"reasoning": "fork it", "toolCalls": [{"id": "call_fork_1", "name": "subagent_fork", "arguments": {"prompt": "codeword?"}}]},
      {"text": "MARMALADE", "usage": {"inputTokens": 10, "outputTokens": 2, "cacheReadTokens": 4}}
    ],
    "call_fork_1": [
      {"text": "MARMALADE", "finish": "max-tokens"}
    ]
  }
}`

var _ = Describe("Parse", func() {
	It("decodes a valid playbook, author notes included", func() {
		pb, err := playbook.Parse([]byte(forkPlaybook), "pb.json")
		Expect(err).NotTo(HaveOccurred())
		Expect(pb.Doc).To(Equal([]string{"authors may write anything here"}))
		Expect(pb.Sessions).To(HaveKey("root"))
		Expect(pb.Sessions["root"]).To(HaveLen(3))
		Expect(pb.Sessions["root"][0].Note).To(Equal("turn 1"))
		call := pb.Sessions["root"][1].ToolCalls[0]
		Expect(call.ID).To(Equal("call_fork_1"))
		Expect(call.Arguments).To(MatchJSON(`{"prompt":"codeword?"}`))
		Expect(*pb.Sessions["root"][2].Usage.CacheReadTokens).To(Equal(4))
		Expect(pb.Sessions["call_fork_1"][0].Finish).To(Equal("max-tokens"))
	})

	It("cuts a long value it quotes to 40 runes, with the mark a secret's redaction knows", func() {
		const key = "sk-live-0123456789abcdefghijklmnopqrstuvwxyz"
		_, err := playbook.Parse([]byte(`{"sessions":{"root":[{"toolCalls":[{"id":"c1","name":"add","arguments":"`+key+`"}]}]}}`), "pb.json")
		Expect(err).To(MatchError(ContainSubstring(`must be a JSON object, found "` + key[:39] + "…")))
		keys := secret.New()
		Expect(keys.Add("AGENTSNAP_API_KEY", key)).To(BeTrue())
		Expect(keys.Redact(err.Error())).NotTo(ContainSubstring(key[:8]), "a key cut short is still redacted")

		_, err = playbook.Parse([]byte(`{"sessions":{"root":[{"text":"a","hang":"`+strings.Repeat("é", 45)+`"}]}}`), "pb.json")
		Expect(err).To(MatchError(ContainSubstring(`found the string "` + strings.Repeat("é", 39) + "…")))
	})

	DescribeTable("refuses a bad playbook with an error that names the field",
		func(text string, want ...string) {
			_, err := playbook.Parse([]byte(text), "pb.json")
			Expect(err).To(MatchError(playbook.ErrInvalid))
			Expect(err.Error()).To(HavePrefix("playbook: pb.json: invalid playbook: "))
			for _, w := range want {
				Expect(err.Error()).To(ContainSubstring(w))
			}
		},
		Entry("an unknown field in a turn",
			`{"sessions":{"root":[{"text":"hi","txt":"typo"}]}}`,
			`sessions.root[0].txt: unknown field; known fields here: note, reasoning, text, toolCalls, usage, finish, error, hang`),
		Entry("an unknown field in a tool call",
			`{"sessions":{"root":[{"toolCalls":[{"id":"c1","name":"add","args":{}}]}]}}`,
			`sessions.root[0].toolCalls[0].args: unknown field; known fields here: id, name, arguments`),
		Entry("an unknown top-level field, with the missing root it causes",
			`{"sesions":{"root":[{"text":"hi"}]}}`,
			`sesions: unknown field; known fields here: _doc, sessions`,
			`sessions.root: the root session has no model turns`),
		Entry("no sessions", `{}`, `sessions.root: the root session has no model turns`),
		Entry("no root turns", `{"sessions":{"root":[]}}`, `sessions.root: the root session has no model turns`),
		Entry("an empty turn", `{"sessions":{"root":[{"note":"only a note"}]}}`,
			`sessions.root[0]: a turn needs text, reasoning, toolCalls, error or hang`),
		Entry("a null turn", `{"sessions":{"root":[{"text":"a"},null]}}`, `sessions.root[1]: null turn`),
		Entry("a bad finish", `{"sessions":{"root":[{"text":"a","finish":"done"}]}}`,
			`sessions.root[0].finish: "done"; use stop, tool-calls or max-tokens (or error for a failure)`),
		Entry("duplicate call ids",
			`{"sessions":{"root":[{"toolCalls":[{"id":"call_1","name":"add"}]},{"toolCalls":[{"id":"call_1","name":"add"}]}]}}`,
			`sessions.root[1].toolCalls[0].id: "call_1" is also used at sessions.root[0].toolCalls[0]; tool call ids must be unique`),
		Entry("a session key that matches no call id",
			`{"sessions":{"root":[{"text":"a"}],"call_9":[{"text":"b"}]}}`,
			`sessions.call_9: no tool call in the playbook has id "call_9"; a child session is keyed by the id of the call that creates it`),
		Entry("an empty session key",
			`{"sessions":{"root":[{"text":"a"}],"":[{}]}}`,
			`sessions: a session key is empty (""); key the root session's turns "root" and a child session's by the id of the tool call that creates it`,
			`sessions.""[0]: a turn needs text, reasoning, toolCalls, error or hang`),
		Entry("error and hang together",
			`{"sessions":{"root":[{"text":"a","error":{"code":"SERVER","message":"m"},"hang":true}]}}`,
			`sessions.root[0]: error and hang exclude each other`),
		Entry("an error without a code",
			`{"sessions":{"root":[{"error":{"message":"m"}}]}}`,
			`sessions.root[0].error.code: empty; give a code such as SERVER or RATE_LIMIT`),
		Entry("arguments that are an array",
			`{"sessions":{"root":[{"toolCalls":[{"id":"c1","name":"add","arguments":[1,2]}]}]}}`,
			`sessions.root[0].toolCalls[0].arguments: must be a JSON object, found [1,2]`),
		Entry("arguments that are a string",
			`{"sessions":{"root":[{"toolCalls":[{"id":"c1","name":"add","arguments":"{\"a\":1}"}]}]}}`,
			`sessions.root[0].toolCalls[0].arguments: must be a JSON object, found "{\"a\":1}"`),
		Entry("arguments that are null",
			`{"sessions":{"root":[{"toolCalls":[{"id":"c1","name":"add","arguments":null}]}]}}`,
			`sessions.root[0].toolCalls[0].arguments: must be a JSON object, found null`),
		Entry("a call without id or name",
			`{"sessions":{"root":[{"text":"a"},{"toolCalls":[{"id":"c1","name":""}]}]}}`,
			`sessions.root[1].toolCalls[0]: id and name are required`),
		Entry("a call id that is the root's key",
			`{"sessions":{"root":[{"toolCalls":[{"id":"root","name":"subagent_spawn"}]}]}}`,
			`sessions.root[0].toolCalls[0].id: "root" is the root session's key`),
		Entry("broken JSON, with its line",
			"{\n  \"sessions\": {\n    \"root\": [\n      {\"text\": \"a\",}\n    ]\n  }\n}",
			`line 4: invalid character '}' looking for beginning of object key string`),
		Entry("a string member holding a number",
			`{"sessions":{"root":[{"text":"a"},{"text":5}]}}`,
			`sessions.root[1].text: want a string, found the number 5`),
		Entry("a boolean member holding a string",
			`{"sessions":{"root":[{"text":"a","hang":"yes"}]}}`,
			`sessions.root[0].hang: want true or false, found the string "yes"`),
		Entry("a fractional token count",
			`{"sessions":{"root":[{"text":"a","usage":{"inputTokens":1.5,"outputTokens":1}}]}}`,
			`sessions.root[0].usage.inputTokens: want an integer, found the number 1.5`),
		Entry("tool calls given as an object",
			`{"sessions":{"root":[{"toolCalls":{"id":"c1"}}]}}`,
			`sessions.root[0].toolCalls: want an array, found an object`),
		Entry("a session that is not a list of turns",
			`{"sessions":{"root":{"text":"a"}}}`,
			`sessions.root: want an array, found an object`),
		Entry("a token count too large for an int",
			`{"sessions":{"root":[{"text":"a","usage":{"inputTokens":1e300,"outputTokens":1}}]}}`,
			`json: cannot unmarshal number 1e300`),
		Entry("not an object", `["root"]`, `want a JSON object with a "sessions" member, found an array`),
		Entry("null", `null`, `want a JSON object with a "sessions" member, found null`),
		Entry("trailing data after the object", "{\"sessions\":{\"root\":[{\"text\":\"a\"}]}}\n{}",
			`line 2: invalid character '{' after top-level value`),
	)

	It("reports every problem at once, sorted", func() {
		_, err := playbook.Parse([]byte(`{"sessions":{"root":[{},{"text":"a","finish":"x","extra":1}]}}`), "pb.json")
		Expect(err).To(MatchError("playbook: pb.json: invalid playbook: " +
			`sessions.root[0]: a turn needs text, reasoning, toolCalls, error or hang; ` +
			`sessions.root[1].extra: unknown field; known fields here: note, reasoning, text, toolCalls, usage, finish, error, hang; ` +
			`sessions.root[1].finish: "x"; use stop, tool-calls or max-tokens (or error for a failure)`))
	})
})

var _ = Describe("Validate", func() {
	It("checks a playbook built in Go the way Parse checks a file", func() {
		pb := &playbook.Playbook{Sessions: map[string][]*playbook.Turn{
			"root":   {{ToolCalls: []playbook.ToolCall{{ID: "c1", Name: "add", Arguments: json.RawMessage(`7`)}}}},
			"orphan": {{Text: "x"}},
		}}
		err := pb.Validate()
		Expect(err).To(MatchError(playbook.ErrInvalid))
		Expect(err).To(MatchError(ContainSubstring(`sessions.root[0].toolCalls[0].arguments: must be a JSON object, found 7`)))
		Expect(err).To(MatchError(ContainSubstring(`sessions.orphan: no tool call in the playbook has id "orphan"`)))
	})

	It("accepts absent arguments, which mean {}", func() {
		pb := &playbook.Playbook{Sessions: map[string][]*playbook.Turn{
			"root": {{ToolCalls: []playbook.ToolCall{{ID: "c1", Name: "now"}}}},
		}}
		Expect(pb.Validate()).To(Succeed())
	})
})

var _ = Describe("Load", func() {
	It("reads and validates a file, naming it in errors", func() {
		dir := GinkgoT().TempDir()
		good := filepath.Join(dir, "playbook.json")
		Expect(os.WriteFile(good, []byte(forkPlaybook), 0o644)).To(Succeed())
		pb, err := playbook.Load(good)
		Expect(err).NotTo(HaveOccurred())
		Expect(pb.Sessions).To(HaveLen(2))

		bad := filepath.Join(dir, "bad.json")
		Expect(os.WriteFile(bad, []byte(`{"sessions":{}}`), 0o644)).To(Succeed())
		_, err = playbook.Load(bad)
		Expect(err).To(MatchError(ContainSubstring("playbook: " + bad + ": invalid playbook: sessions.root")))
	})

	It("wraps a missing file's error", func() {
		_, err := playbook.Load(filepath.Join(GinkgoT().TempDir(), "none.json"))
		Expect(err).To(MatchError(fs.ErrNotExist))
		Expect(err.Error()).To(HavePrefix("playbook: "))
	})
})

var _ = DescribeTable("FirstHang names the first hang answer, sessions in key order, or nothing",
	func(sessions map[string][]*playbook.Turn, want string) {
		Expect((&playbook.Playbook{Sessions: sessions}).FirstHang()).To(Equal(want))
	},
	Entry("none", map[string][]*playbook.Turn{"root": {{Text: "a"}}, "call_b": {{Text: "b"}}}, ""),
	Entry("in the root", map[string][]*playbook.Turn{"root": {{Text: "a"}, {Text: "b", Hang: true}}}, "sessions.root[1]"),
	Entry("in a child, whatever the map's order", map[string][]*playbook.Turn{
		"root": {{Text: "a"}}, "call_b": {{Text: "b"}, {Text: "b", Hang: true}}, "call_c": {{Hang: true}}, "call_d": {{Hang: true}},
		"call_e": {{Hang: true}}, "call_f": {{Hang: true}}, "call_g": {{Hang: true}}, "call_z": {{Text: "z", Hang: true}},
	}, "sessions.call_b[1]"),
	Entry("past a missing turn", map[string][]*playbook.Turn{"root": {nil, {Text: "b", Hang: true}}}, "sessions.root[1]"),
)

// A session key is "root" or a tool call's id; an empty one is neither,
// and says so rather than that no call has the id "".
var _ = Describe("a playbook with an empty session key", func() {
	It("is refused by Load naming the file, the empty key and what to key a session by, and only that", func() {
		path := filepath.Join(GinkgoT().TempDir(), "playbook.json")
		Expect(os.WriteFile(path, []byte(`{"sessions": {"root": [{"text": "a"}], "": [{"text": "b"}]}}`), 0o644)).To(Succeed())
		_, err := playbook.Load(path)
		Expect(err).To(MatchError("playbook: " + path + `: invalid playbook: sessions: a session key is empty (""); key the root session's turns "root" and a child session's by the id of the tool call that creates it`))
	})
})
