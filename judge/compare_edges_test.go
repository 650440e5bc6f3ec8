package judge_test

import (
	"encoding/json"
	"runtime"
	"strings"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// A difference in a tool's result — the agent's own tool answered
// otherwise — names the call it is of, which the event's seq alone does
// not tell a reader.
var _ = Describe("a difference in a tool event", func() {
	log := func(typ string, data any) *session.Log {
		GinkgoHelper()
		e, err := session.NewEvent(typ, data)
		Expect(err).NotTo(HaveOccurred())
		return &session.Log{Header: session.Header{ID: "root", AgentPreset: "default"}, Events: []session.Event{e}}
	}
	result := func(text string) session.ToolResultData {
		return session.ToolResultData{Turn: 1, Step: 2, Message: session.Message{Role: "tool", Content: []session.Part{{
			Type: session.PartToolResult, ToolCallID: "call_tk", Name: "ticket", Content: []session.Part{{Type: session.PartText, Text: text}}}}}}
	}

	It("names the tool call of a result, with its turn and step", func() {
		d := judge.CompareSessionPair(log(session.TypeToolResult, result("jams")), log(session.TypeToolResult, result("jams daily")))
		Expect(d).NotTo(BeNil())
		Expect(d.String()).To(Equal(`root (root session): seq 0 (tool/result, turn 1 step 2, ticket call call_tk): data.message.content[0].content[0].text: golden "jams", replay "jams daily"`))
	})

	It("names the tool call of a call whose arguments changed", func() {
		call := func(args string) session.ToolCallData {
			return session.ToolCallData{Turn: 2, Step: 1, CallID: "call_dr", Name: "draft", Arguments: args}
		}
		d := judge.CompareSessionPair(log(session.TypeToolCall, call(`{"task":"a"}`)), log(session.TypeToolCall, call(`{"task":"b"}`)))
		Expect(d).NotTo(BeNil())
		Expect(d.String()).To(ContainSubstring("seq 0 (tool/call, turn 2 step 1, draft call call_dr): data.arguments"))
	})

	It("names the tool call of a recorded tool's output", func() {
		rec := func(text string) session.ToolRecordedData {
			return session.ToolRecordedData{Turn: 3, Step: 4, CallID: "call_ck", Name: "clock", Arguments: "{}", Result: session.ToolOutput{Text: text}}
		}
		d := judge.CompareSessionPair(log(session.TypeToolRecorded, rec("09:00")), log(session.TypeToolRecorded, rec("10:00")))
		Expect(d).NotTo(BeNil())
		Expect(d.String()).To(ContainSubstring("seq 0 (tool/recorded, turn 3 step 4, clock call call_ck): data.result.text"))
	})

	It("names the tool call where two schedules wrote different logs", func() {
		r := &judge.ScheduleResult{
			Fixture: &fixture.Fixture{Name: "t/sched", Dir: "t/sched", Scenario: &scenario.Scenario{}},
			Seeds:   []int64{1, 2}, Diverged: 1, Divergent: 1, Unmatched: -1,
			Difference: &judge.Difference{Session: "root", Lineage: "root session", Seq: 9, Type: session.TypeToolResult,
				Call: "turn 1 step 2, ticket call call_tk", Field: "data.text", Golden: `"a"`, Replay: `"b"`},
		}
		Expect(r.Report()).To(ContainSubstring(`root (root session): seq 9 (tool/result, turn 1 step 2, ticket call call_tk): data.text: schedule 0 "a", schedule 1 "b"`))
	})

	It("names no call for any other event", func() {
		d := judge.CompareSessionPair(log(session.TypeUserMessage, session.Message{Role: "user", Content: []session.Part{{Type: session.PartText, Text: "a"}}}),
			log(session.TypeUserMessage, session.Message{Role: "user", Content: []session.Part{{Type: session.PartText, Text: "b"}}}))
		Expect(d).NotTo(BeNil())
		Expect(d.String()).To(HavePrefix("root (root session): seq 0 (user/message): "))
	})
})

// Counts past 2^53 read alike as float64: the member that differs must
// still be named, with the numbers as the lines hold them.
var _ = Describe("naming a member whose numbers differ past float64's precision", func() {
	log := func(data string) *session.Log {
		return &session.Log{
			Header: session.Header{ID: "root", AgentPreset: "default"},
			Events: []session.Event{{Type: "x/note", Seq: 0, Data: json.RawMessage(data)}},
		}
	}

	It("names the member, with both numbers as written", func() {
		d := judge.CompareSessionPair(log(`{"usage":{"inputTokens":9007199254740993}}`), log(`{"usage":{"inputTokens":9007199254740992}}`))
		Expect(d).NotTo(BeNil())
		Expect(d.Field).To(Equal("data.usage.inputTokens"))
		Expect(d.Golden).To(Equal("9007199254740993"))
		Expect(d.Replay).To(Equal("9007199254740992"))
	})

	It("names the member of a fraction whose digits differ past float64's precision", func() {
		d := judge.CompareSessionPair(log(`{"cost":123456789.123456789}`), log(`{"cost":123456789.123456788}`))
		Expect(d).NotTo(BeNil())
		Expect(d.Field).To(Equal("data.cost"))
		Expect(d.Golden).To(Equal("123456789.123456789"))
		Expect(d.Replay).To(Equal("123456789.123456788"))
	})

	It("shows a number too large for float64 to print as written", func() {
		d := judge.CompareSessionPair(log(`{"n":68}`), log(`{"n":9223372036854775807}`))
		Expect(d).NotTo(BeNil())
		Expect(d.Replay).To(Equal("9223372036854775807"))
	})
})

// A recorded text can be hundreds of megabytes on one line: naming where
// it differs must cost about the lines' size, not several times it (a
// []rune of the text, fmt.Sprint and json.Marshal copies of it).
var _ = Describe("naming the member that differs in a very long text", func() {
	It("allocates a few times the size of the two lines, and shows the text's start", func() {
		const size = 8 << 20
		text := strings.Repeat("x", size)
		golden := &session.Log{Header: session.Header{ID: "root"}, Events: []session.Event{{Type: "x/note", Data: json.RawMessage(`{"text":"` + text + `a"}`)}}}
		replay := &session.Log{Header: session.Header{ID: "root"}, Events: []session.Event{{Type: "x/note", Data: json.RawMessage(`{"text":"` + text + `b"}`)}}}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		d := judge.CompareSessionPair(golden, replay)
		runtime.ReadMemStats(&after)
		Expect(d).NotTo(BeNil())
		Expect(d.Field).To(Equal("data.text"))
		Expect(d.Golden).To(Equal(`"` + strings.Repeat("x", 159) + "…"))
		Expect(after.TotalAlloc-before.TotalAlloc).To(BeNumerically("<", 8*size), "bytes allocated: the lines are copied a few times at most (22 times before)")
	})
})

// Only a line with a long run of digits is read with exact numbers: the
// other line of the pair must be read alike, or its equal counts (float64
// against json.Number) are named as the member that differs.
var _ = Describe("naming a member when only one line has a long number", func() {
	log := func(data string) *session.Log {
		return &session.Log{
			Header: session.Header{ID: "root", AgentPreset: "default"},
			Events: []session.Event{{Type: "x/note", Seq: 0, Data: json.RawMessage(data)}},
		}
	}

	It("skips the equal counts and names the text that differs", func() {
		d := judge.CompareSessionPair(log(`{"a":{"tokens":12},"b":"order 12345678901234567"}`), log(`{"a":{"tokens":12},"b":"order 7"}`))
		Expect(d).NotTo(BeNil())
		Expect(d.Field).To(Equal("data.b"))
		Expect(d.Golden).To(Equal(`"order 12345678901234567"`))
		Expect(d.Replay).To(Equal(`"order 7"`))
	})

	It("skips the equal counts when the long number is the replay's", func() {
		d := judge.CompareSessionPair(log(`{"a":1.5,"n":3}`), log(`{"a":1.5,"n":9223372036854775807}`))
		Expect(d).NotTo(BeNil())
		Expect(d.Field).To(Equal("data.n"))
		Expect(d.Golden).To(Equal("3"))
	})
})

// The start of a long text shows as its first runes, whatever their size
// in bytes: the cut counts runes, not bytes.
var _ = Describe("showing the start of a long text of wide runes", func() {
	It("shows its first runes, marked cut", func() {
		text := strings.Repeat("日", 4000)
		golden := &session.Log{Header: session.Header{ID: "root"}, Events: []session.Event{{Type: "x/note", Data: json.RawMessage(`{"text":"` + text + `a"}`)}}}
		replay := &session.Log{Header: session.Header{ID: "root"}, Events: []session.Event{{Type: "x/note", Data: json.RawMessage(`{"text":"` + text + `b"}`)}}}
		d := judge.CompareSessionPair(golden, replay)
		Expect(d).NotTo(BeNil())
		Expect(d.Golden).To(Equal(`"` + strings.Repeat("日", 159) + "…"))
	})
})

// A fixture recorded before request/header held a digest per tool
// (toolDigests) compares with a replay that writes them.
var _ = Describe("comparing a request/header recorded before it held each tool's digest", func() {
	tool := func(name, description string) llm.ToolSpec {
		return llm.ToolSpec{Name: name, Description: description, Parameters: json.RawMessage(`{"type":"object"}`)}
	}
	recorded := []llm.ToolSpec{tool("search", "Search the web."), tool("lookup", "Look a key up."), tool("add", "Add a and b.")}
	header := func(tools ...llm.ToolSpec) session.RequestHeaderData {
		return llm.RequestHeader("p", &llm.Request{Model: "m", Tools: tools})
	}
	older := func(h session.RequestHeaderData) session.RequestHeaderData {
		h.ToolDigests = nil
		return h
	}

	It("finds no difference in a replayed header but the digests per tool a recording made before never held", func() {
		log := func(h session.RequestHeaderData) *session.Log {
			GinkgoHelper()
			e, err := session.NewEvent(session.TypeRequestHeader, h)
			Expect(err).NotTo(HaveOccurred())
			return &session.Log{Header: session.Header{ID: "root"}, Events: []session.Event{e}}
		}
		Expect(judge.CompareSessionPair(log(older(header(recorded...))), log(header(recorded...)))).To(BeNil())

		d := judge.CompareSessionPair(log(older(header(recorded...))), log(header(recorded[0], tool("lookup", "Look a key up, fast."), recorded[2])))
		Expect(d).NotTo(BeNil(), "another tool is still a difference")
		Expect(d.Field).To(Equal("data.toolsDigest"))

		odd := header(recorded...)
		odd.ToolDigests = []string{"A]\"", "b", "c"} // not as the encoder writes them: decoded instead
		Expect(judge.CompareSessionPair(log(older(odd)), log(odd))).To(BeNil(), "digests of a runtime's own")

		withAPI := func(h session.RequestHeaderData) session.RequestHeaderData {
			h.API = "openai-chat"
			return h
		}
		Expect(judge.CompareSessionPair(log(older(withAPI(header(recorded...)))), log(withAPI(header(recorded...))))).To(BeNil(), "a header with the API")
		Expect(judge.CompareSessionPair(log(older(header(recorded...))), log(withAPI(header(recorded...))))).To(BeNil(), "a header recorded before the API was kept too")
	})
})
