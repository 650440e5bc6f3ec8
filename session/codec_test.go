package session_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

const runtimeLog = "testdata/runtime.jsonl"

var _ = Describe("a log shaped like what the runtime writes", func() {
	var raw []byte
	var log *session.Log

	BeforeEach(func() {
		var err error
		raw, err = os.ReadFile(runtimeLog)
		Expect(err).NotTo(HaveOccurred())
		log, err = session.ReadFile(runtimeLog)
		Expect(err).NotTo(HaveOccurred())
	})

	It("re-encodes byte for byte with Encode", func() {
		Expect(string(session.Encode(&log.Header, log.Events))).To(Equal(string(raw)))
	})

	It("re-encodes byte for byte through a Writer, one Write per batch", func() {
		var out countingWriter
		w := session.NewWriter(&out)
		Expect(w.WriteHeader(&log.Header)).To(Succeed())
		Expect(w.WriteEvents(log.Events[:12]...)).To(Succeed())
		Expect(w.WriteEvents(log.Events[12:]...)).To(Succeed())
		Expect(out.String()).To(Equal(string(raw)))
		Expect(out.writes).To(Equal(3))
	})

	It("re-encodes byte for byte through WriteFile, which validates first", func() {
		path := filepath.Join(GinkgoT().TempDir(), "copy.jsonl")
		Expect(session.WriteFile(path, log)).To(Succeed())
		Expect(os.ReadFile(path)).To(Equal(raw))
	})

	It("decodes every header field, and keeps unknown header members verbatim", func() {
		Expect(log.Header).To(Equal(session.Header{
			ID: "sess-child-1", CreatedAt: 1767225600000, Cwd: "/home/dev/project",
			ParentSession: "sess-root", SeedLength: 12, Origin: session.OriginSubagent,
			DelegationDepth: 1, AgentPreset: "fixer", ParentCallID: "call_fork_7", Mode: session.ModeFork,
			Extra: map[string]json.RawMessage{
				"x-host":  json.RawMessage(`{"os":"linux","cores":2}`),
				"zz-note": json.RawMessage(`"kept verbatim"`),
			},
		}))
		Expect(log.Header.IsChild()).To(BeTrue())
		Expect(log.Path).To(Equal(runtimeLog))
		Expect(log.Torn).To(BeNil())
	})

	It("numbers events densely and splits seed and own events at seedLength", func() {
		Expect(log.Events).To(HaveLen(45))
		for i, e := range log.Events {
			Expect(e.Seq).To(Equal(int64(i)))
		}
		Expect(log.Seed()).To(HaveLen(12))
		Expect(log.Seed()[11].Type).To(Equal(session.TypeTurnEnd))
		Expect(log.Own()[0].Type).To(Equal(session.TypeTurnStart))
		Expect(session.CompletedPrefix(log.Events[:14])).To(Equal(log.Header.SeedLength))
	})

	It("keeps an unknown event type with odd data, its flags and unknown members verbatim", func() {
		e := log.Events[33]
		Expect(e.Type).To(Equal("x-telemetry/span"))
		Expect(string(e.Data)).To(Equal(`{"spans":[{"name":"llm","ms":12.5e0,"ok":null,"tags":[]}],"nested":{"deep":[[],{},[{"a":[-0.0]}]]},"note":"tab\there \u00e9 \ud83d\ude00"}`))
		Expect(e.Ignorable).To(BeTrue())
		Expect(e.Extra).To(Equal(map[string]json.RawMessage{
			"x-trace":  json.RawMessage(`"7f3a"`),
			"x-weight": json.RawMessage(`[1,2.5,{"k":false}]`),
		}))
	})

	It("keeps surfaceOp verbatim as a string, as an object and as null, and sourceEventSeqs empty or not", func() {
		Expect(string(log.Events[1].SurfaceOp)).To(Equal(`"append"`))
		Expect(string(log.Events[40].SurfaceOp)).To(Equal(`{"op":"replace","seq":29,"path":["content",0]}`))
		Expect(string(log.Events[43].SurfaceOp)).To(Equal(`null`))
		Expect(log.Events[42].SurfaceOp).To(BeNil())
		Expect(log.Events[29].SourceEventSeqs).To(Equal([]int64{20, 21, 22, 23, 24, 25, 26, 27, 28}))
		Expect(log.Events[40].SourceEventSeqs).To(BeEmpty())
		Expect(log.Events[40].SourceEventSeqs).NotTo(BeNil(), "an empty array is written back, so it must not read as absent")
		Expect(log.Events[39].SourceEventSeqs).To(BeNil())
	})

	It("tells null data from absent data", func() {
		Expect(string(log.Events[43].Data)).To(Equal("null"))
		Expect(log.Events[44].Data).To(BeNil())
		var v struct{}
		Expect(log.Events[44].Decode(&v)).To(MatchError(ContainSubstring("event seq 44 (agent/idle) has no data")))
	})

	It("decodes the typed payloads of the runtime's events", func() {
		var call session.ToolCallData
		Expect(log.Events[30].Decode(&call)).To(Succeed())
		Expect(call).To(Equal(session.ToolCallData{Turn: 2, Step: 1, CallID: "call_1", Name: "read_file", Arguments: `{"path":"main.go"}`}))

		var result session.ToolResultData
		Expect(log.Events[31].Decode(&result)).To(Succeed())
		Expect(result.Message.Content).To(Equal([]session.Part{{
			Type: session.PartToolResult, ToolCallID: "call_1", Name: "read_file",
			Content: []session.Part{session.TextPart("package main\n\nfunc main() { var m map[string]int; m[\"x\"] = 1 }\n")},
		}}))

		var msg session.AssistantMessageData
		Expect(log.Events[29].Decode(&msg)).To(Succeed())
		Expect(msg.Message.ToolCalls()).To(HaveLen(1))
		Expect(*msg.Usage.CacheReadTokens).To(Equal(512))

		var end session.TurnEndData
		Expect(log.Events[42].Decode(&end)).To(Succeed())
		Expect(end.Reason.Kind).To(Equal(session.TurnCompleted))

		var hdr session.RequestHeaderData
		Expect(log.Events[19].Decode(&hdr)).To(Succeed())
		Expect(hdr.Attempt).To(Equal(2))
		Expect(hdr.MessageDigests).To(HaveLen(5))
	})

	It("re-encodes every chunk through the typed Chunk byte for byte", func() {
		kinds := map[string]bool{}
		for _, e := range log.Events {
			if e.Type != session.TypeAssistantChunk {
				continue
			}
			d, err := session.DecodeChunkData(e.Data)
			Expect(err).NotTo(HaveOccurred())
			Expect(string(d.AppendJSON(nil))).To(Equal(string(e.Data)))
			kinds[d.Chunk.Type] = true
		}
		Expect(kinds).To(HaveLen(7), "the fixture holds every chunk type")
	})

	It("reads the same events one by one through a Reader", func() {
		f, err := os.Open(runtimeLog)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(f.Close)
		r := session.NewReader(f, runtimeLog)
		h, err := r.Header()
		Expect(err).NotTo(HaveOccurred())
		Expect(*h).To(Equal(log.Header))
		var got []session.Event
		for e, err := range r.All() {
			Expect(err).NotTo(HaveOccurred())
			got = append(got, e)
		}
		Expect(got).To(Equal(log.Events))
		Expect(r.Count()).To(Equal(45))
		_, err = r.Next()
		Expect(err).To(MatchError(io.EOF), "the end is sticky")
	})
})

var _ = Describe("Reader details", func() {
	It("accepts CRLF line ends", func() {
		in := strings.ReplaceAll(lines(rootHeader, ev("turn/start", 0, `{"turn":1}`)), "\n", "\r\n")
		l, err := session.Read(strings.NewReader(in), "crlf.jsonl")
		Expect(err).NotTo(HaveOccurred())
		Expect(string(l.Events[0].Data)).To(Equal(`{"turn":1}`))
	})

	It("reads lines longer than its buffer", func() {
		long := strings.Repeat("x", 300_000)
		l, err := session.Read(strings.NewReader(lines(rootHeader, ev("user/message", 0, `{"text":"`+long+`"}`))), "long.jsonl")
		Expect(err).NotTo(HaveOccurred())
		Expect(len(l.Events[0].Data)).To(Equal(len(long) + 11))
	})

	It("keeps seq0 and time0 of a non-packed event as unknown members", func() {
		line := `{"type":"x/custom","seq":0,"time":5,"seq0":"not a number","time0":7}`
		l, err := session.Read(strings.NewReader(lines(rootHeader, line)), "x.jsonl")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events[0].Extra).To(HaveKeyWithValue("seq0", json.RawMessage(`"not a number"`)))
		Expect(string(session.Encode(&l.Header, l.Events))).To(Equal(lines(rootHeader, line)))
	})

	It("reads an unknown member name with invalid UTF-8 the way it writes it back", func() {
		line := "{\"type\":\"x/odd\",\"seq\":0,\"time\":1,\"k\xff\":1}"
		l, err := session.Read(strings.NewReader(lines(rootHeader, line)), "x.jsonl")
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events[0].Extra).To(HaveKey("k\ufffd"))
		back, err := session.Read(strings.NewReader(string(session.Encode(&l.Header, l.Events))), "y.jsonl")
		Expect(err).NotTo(HaveOccurred())
		Expect(back.Events).To(Equal(l.Events))
	})

	It("names the input <input> when no name is given", func() {
		_, err := session.Read(strings.NewReader(""), "")
		Expect(err).To(MatchError(HavePrefix("<input>:1: ")))
	})

	It("reports a read failure with the line it was reading", func() {
		r := session.NewReader(io.MultiReader(strings.NewReader(rootHeader+"\n"), errReader{}), "flaky.jsonl")
		_, err := r.Next()
		Expect(err).To(MatchError(ContainSubstring("flaky.jsonl:2: reading: disk on fire")))
	})

	It("refuses to open a missing file with the path in the error", func() {
		_, err := session.ReadFile(filepath.Join(GinkgoT().TempDir(), "nope.jsonl"))
		Expect(err).To(MatchError(os.ErrNotExist))
		Expect(err).To(MatchError(ContainSubstring("nope.jsonl")))
	})
})

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

// countingWriter counts Write calls, to check that batches are not split.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}
