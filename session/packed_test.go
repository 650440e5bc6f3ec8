package session_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

// packedLog holds one row of each packed type between plain events: eleven
// logical events on seven lines.
var packedLog = []string{
	ev("turn/start", 0, `{"turn":1}`),
	ev("assistant/chunk", 1, `{"turn":1,"step":1,"chunk":{"type":"block-start","index":0,"blockType":"reasoning"}}`),
	`{"type":"reasoning-chunks","seq0":2,"time0":2000,"data":{"turn":1,"step":1,"index":0,"dt":[0,5],"texts":["Think","ing","."]}}`,
	`{"type":"text-chunks","seq0":5,"time0":2010,"data":{"turn":1,"step":1,"attempt":2,"index":1,"dt":[3],"texts":["Hel","lo \"you\"\n"]}}`,
	`{"type":"tool-call-chunks","seq0":7,"time0":2020,"data":{"turn":1,"step":1,"index":2,"dt":[1,2],"id":"call_9","name":"bash","args":["{\"cmd\"",":\"ls\"","}"]}}`,
	ev("assistant/chunk", 10, `{"turn":1,"step":1,"chunk":{"type":"finish","reason":{"kind":"tool-calls"}}}`),
}

func readPacked(header string, ls []string) (*session.Log, error) {
	return session.Read(strings.NewReader(lines(append([]string{header}, ls...)...)), "packed.jsonl")
}

// logical is the part of an expanded event a packed-row spec checks.
type logical struct {
	Seq, Time int64
	Data      string
}

var _ = Describe("packed rows", func() {
	DescribeTable("expand into one logical assistant/chunk event per delta",
		func(from, to int, want []logical) {
			l, err := readPacked(rootHeader, packedLog)
			Expect(err).NotTo(HaveOccurred())
			var got []logical
			for _, e := range l.Events[from:to] {
				Expect(e.Type).To(Equal(session.TypeAssistantChunk))
				got = append(got, logical{e.Seq, e.Time, string(e.Data)})
			}
			Expect(got).To(Equal(want))
		},
		Entry("reasoning-chunks: times are time0 plus the cumulative dt", 2, 5, []logical{
			{2, 2000, `{"turn":1,"step":1,"chunk":{"type":"reasoning-delta","index":0,"text":"Think"}}`},
			{3, 2000, `{"turn":1,"step":1,"chunk":{"type":"reasoning-delta","index":0,"text":"ing"}}`},
			{4, 2005, `{"turn":1,"step":1,"chunk":{"type":"reasoning-delta","index":0,"text":"."}}`},
		}),
		Entry("text-chunks: the attempt is carried, escapes are re-encoded", 5, 7, []logical{
			{5, 2010, `{"turn":1,"step":1,"attempt":2,"chunk":{"type":"text-delta","index":1,"text":"Hel"}}`},
			{6, 2013, `{"turn":1,"step":1,"attempt":2,"chunk":{"type":"text-delta","index":1,"text":"lo \"you\"\n"}}`},
		}),
		Entry("tool-call-chunks: id and name on the first delta only", 7, 10, []logical{
			{7, 2020, `{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":2,"id":"call_9","name":"bash","argumentsDelta":"{\"cmd\""}}`},
			{8, 2021, `{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":2,"argumentsDelta":":\"ls\""}}`},
			{9, 2023, `{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":2,"argumentsDelta":"}"}}`},
		}),
	)

	It("continues the plain events' seqs after the rows", func() {
		l, err := readPacked(rootHeader, packedLog)
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events).To(HaveLen(11))
		Expect(l.Events[10].Seq).To(Equal(int64(10)))
	})

	It("expands rows whose deltas decode back to the row's strings", func() {
		l, err := readPacked(rootHeader, packedLog)
		Expect(err).NotTo(HaveOccurred())
		var args strings.Builder
		for _, e := range l.Events[7:10] {
			d, err := session.DecodeChunkData(e.Data)
			Expect(err).NotTo(HaveOccurred())
			args.WriteString(d.Chunk.ArgumentsDelta)
		}
		Expect(args.String()).To(Equal(`{"cmd":"ls"}`))
	})

	It("expands an empty row to nothing and expects the next seq unchanged", func() {
		l, err := readPacked(rootHeader, []string{
			ev("turn/start", 0, `{"turn":1}`),
			`{"type":"text-chunks","seq0":1,"time0":5,"data":{"turn":1,"step":1,"index":0,"dt":[],"texts":[]}}`,
			ev("turn/end", 1, `{"turn":1,"reason":{"kind":"completed"}}`),
		})
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Events).To(HaveLen(2))
	})

	Describe("seedLength counts logical events", func() {
		It("may end inside a packed row", func() {
			l, err := readPacked(header(`"seedLength":4`), packedLog)
			Expect(err).NotTo(HaveOccurred())
			Expect(l.Seed()).To(HaveLen(4))
			Expect(l.Own()[0].Seq).To(Equal(int64(4)))
			Expect(l.Own()[0].Time).To(Equal(int64(2005)))
		})

		It("may equal the logical length, which is more than the line count", func() {
			l, err := readPacked(header(`"seedLength":11`), packedLog)
			Expect(err).NotTo(HaveOccurred())
			Expect(l.Own()).To(BeEmpty())
		})

		It("may not pass the logical length", func() {
			_, err := readPacked(header(`"seedLength":12`), packedLog)
			Expect(err).To(MatchError(session.ErrSeedPastEnd))
			Expect(err).To(MatchError(ContainSubstring("packed.jsonl:1: seedLength is past the end of the log: seedLength is 12 but the log of session s1 holds 11 events (logical, packed rows expanded)")))
		})
	})

	DescribeTable("refuses rows it cannot expand without loss, naming the line",
		func(row, want string) {
			_, err := readPacked(rootHeader, []string{ev("turn/start", 0, `{"turn":1}`), row})
			Expect(err).To(MatchError(HavePrefix("packed.jsonl:3: ")))
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("seq0 leaves a gap", `{"type":"text-chunks","seq0":2,"time0":5,"data":{"turn":1,"step":1,"index":0,"texts":["a"]}}`,
			"seq is not dense: packed row text-chunks starts at seq0 2, expected 1"),
		Entry("seq0 repeats a seq", `{"type":"text-chunks","seq0":0,"time0":5,"data":{"turn":1,"step":1,"index":0,"texts":["a"]}}`,
			"starts at seq0 0, expected 1"),
		Entry("no seq0", `{"type":"text-chunks","time0":5,"data":{"turn":1,"step":1,"index":0,"texts":["a"]}}`,
			`packed row text-chunks needs "seq0" and "time0"`),
		Entry("seq0 not an integer", `{"type":"text-chunks","seq0":"1","time0":5,"data":{"turn":1,"step":1,"index":0,"texts":["a"]}}`,
			`packed row text-chunks, member "seq0": expected an integer, found a string`),
		Entry("dt does not fit the texts", `{"type":"reasoning-chunks","seq0":1,"time0":5,"data":{"turn":1,"step":1,"index":0,"dt":[1,2],"texts":["a","b"]}}`,
			"has 2 dt entries for 2 texts; expected 1"),
		Entry("no texts", `{"type":"text-chunks","seq0":1,"time0":5,"data":{"turn":1,"step":1,"index":0}}`,
			`packed row text-chunks has no "texts" in data`),
		Entry("args on a text row", `{"type":"text-chunks","seq0":1,"time0":5,"data":{"turn":1,"step":1,"index":0,"args":["a"]}}`,
			`data member "args": unknown member`),
		Entry("id on a text row", `{"type":"text-chunks","seq0":1,"time0":5,"data":{"turn":1,"step":1,"index":0,"id":"c","texts":["a"]}}`,
			`data member "id": unknown member`),
		Entry("no turn", `{"type":"text-chunks","seq0":1,"time0":5,"data":{"step":1,"index":0,"texts":["a"]}}`,
			`needs "turn", "step" and "index" in data`),
		Entry("a text that is not a string", `{"type":"text-chunks","seq0":1,"time0":5,"data":{"turn":1,"step":1,"index":0,"texts":[1]}}`,
			`data member "texts": expected a string, found a number`),
		Entry("data not an object", `{"type":"tool-call-chunks","seq0":1,"time0":5,"data":["a"]}`,
			`packed row tool-call-chunks needs an object in "data"`),
		Entry("an unknown top-level member", `{"type":"text-chunks","seq0":1,"time0":5,"x":1,"data":{"turn":1,"step":1,"index":0,"texts":["a"]}}`,
			"has members this reader cannot keep"),
		Entry("a seq as well as seq0", `{"type":"text-chunks","seq":1,"seq0":1,"time0":5,"data":{"turn":1,"step":1,"index":0,"texts":["a"]}}`,
			"has members this reader cannot keep"),
		Entry("a time as well as time0", `{"type":"text-chunks","seq0":1,"time0":5,"time":5,"data":{"turn":1,"step":1,"index":0,"texts":["a"]}}`,
			"has members this reader cannot keep"),
		Entry("ignorable", `{"type":"text-chunks","seq0":1,"time0":5,"ignorable":true,"data":{"turn":1,"step":1,"index":0,"texts":["a"]}}`,
			"has members this reader cannot keep"),
	)

	It("refuses a plain event whose seq does not follow a row's last delta", func() {
		_, err := readPacked(rootHeader, []string{
			ev("turn/start", 0, `{"turn":1}`),
			`{"type":"text-chunks","seq0":1,"time0":5,"data":{"turn":1,"step":1,"index":0,"dt":[1],"texts":["a","b"]}}`,
			ev("turn/end", 4, `{"turn":1,"reason":{"kind":"completed"}}`),
		})
		Expect(err).To(MatchError(session.ErrSeqGap))
		Expect(err).To(MatchError(HavePrefix("packed.jsonl:4: seq is not dense: seq is 4, expected 3")))
	})
})

// header returns a root header line with extra members spliced in.
func header(members string) string {
	return strings.TrimSuffix(rootHeader, "}") + "," + members + "}"
}
