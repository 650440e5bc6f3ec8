package session_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

// expectCount holds CountModelCalls to len(ModelCalls) over events, and
// the Log method to the same over its own events.
func expectCount(l *session.Log, want int) {
	GinkgoHelper()
	Expect(l.ModelCalls()).To(HaveLen(want))
	Expect(l.CountModelCalls()).To(Equal(want), "CountModelCalls of the own events")
	Expect(session.CountModelCalls(l.Events)).To(Equal(len(session.ModelCalls(l.Events))), "CountModelCalls of all the events")
	Expect(session.CountModelCalls(l.Seed())).To(Equal(len(session.ModelCalls(l.Seed()))), "CountModelCalls of the seed")
}

// expectChunkKey holds what the count reads of a chunk payload to what
// DecodeChunkData reads of it.
func expectChunkKey(data []byte, where string) {
	GinkgoHelper()
	key, finish, ok := session.ChunkKey(data)
	d, err := session.DecodeChunkData(data)
	Expect(ok).To(Equal(err == nil), "%s: %q readable", where, data)
	if ok {
		Expect(key).To(Equal([3]int{d.Turn, d.Step, d.Attempt}), "%s: %q", where, data)
		Expect(finish).To(Equal(d.Chunk.IsFinish()), "%s: %q", where, data)
	}
}

// logsUnder reads every *.jsonl under root.
func logsUnder(root string) []*session.Log {
	GinkgoHelper()
	var out []*session.Log
	Expect(filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		l, err := session.ReadFile(p)
		Expect(err).NotTo(HaveOccurred())
		out = append(out, l)
		return nil
	})).To(Succeed())
	return out
}

var _ = Describe("CountModelCalls", func() {
	fork := `{"type":"session","version":0,"id":"root/call_f","createdAt":1,"parentSession":"root","seedLength":6,"origin":"subagent","delegationDepth":1,"parentCallId":"call_f","mode":"fork"}`

	DescribeTable("is len(ModelCalls) on tricky logs",
		func(header string, want int, ls ...string) { expectCount(callLog(header, ls...), want) },
		Entry("answered, cut short by a cancel, refused, failed and retried", rootHeader, 5,
			turnStart(1), reqHeader(1, 1, 1), chunk(1, 1, 1, start), chunk(1, 1, 1, stop), message(1, 1), turnEnd(1, "completed"),
			turnStart(2), reqHeader(2, 1, 1), chunk(2, 1, 1, start), chunk(2, 1, 1, delta), turnEnd(2, "aborted"),
			turnStart(3), reqHeader(3, 1, 1), turnEnd(3, "error"),
			turnStart(4), reqHeader(4, 1, 1), chunk(4, 1, 1, failed), reqHeader(4, 1, 2), chunk(4, 1, 2, stop), message(4, 1), turnEnd(4, "completed")),
		Entry("an aborted call: a header and an aborted finish, then the turn's end", rootHeader, 1,
			turnStart(1), reqHeader(1, 1, 1), chunk(1, 1, 1, start), chunk(1, 1, 1, `{"type":"finish","reason":{"kind":"aborted"}}`), turnEnd(1, "aborted")),
		Entry("a hang: a header, no chunk, the turn timed out", rootHeader, 1,
			turnStart(1), reqHeader(1, 1, 1), turnEnd(1, "error")),
		Entry("a chunk naming another attempt than its header", rootHeader, 1,
			turnStart(1), reqHeader(1, 1, 1), chunk(1, 1, 2, start), chunk(1, 1, 2, stop), message(1, 1)),
		Entry("dsh: no attempts, a configuration header, an error retried, a message without its stream", rootHeader, 5,
			turnStart(1), dshSetup,
			chunk(1, 1, 0, failed), chunk(1, 1, 0, start), chunk(1, 1, 0, stop), message(1, 1),
			chunk(1, 2, 0, start), chunk(1, 2, 0, stop), message(1, 2), turnEnd(1, "completed"),
			turnStart(2), chunk(2, 1, 0, start), chunk(2, 1, 0, delta), message(2, 1), turnEnd(2, "aborted"),
			turnStart(3), message(3, 1), turnEnd(3, "completed")),
		Entry("packed rows", rootHeader, 1, turnStart(1), chunk(1, 1, 0, start),
			`{"type":"text-chunks","seq0":2,"time0":2000,"data":{"turn":1,"step":1,"index":0,"dt":[0],"texts":["a","b"]}}`),
		Entry("a stream going on after its finish or changing step", rootHeader, 4,
			turnStart(1), reqHeader(1, 1, 1), chunk(1, 1, 1, stop), chunk(1, 1, 1, stop), chunk(1, 2, 1, delta), chunk(1, 3, 1, delta)),
		Entry("a chunk after its call's message", rootHeader, 2,
			turnStart(1), chunk(1, 1, 0, delta), message(1, 1), chunk(1, 1, 0, delta)),
		Entry("a fork child: its own calls only, not its seed's", fork, 1,
			turnStart(1), reqHeader(1, 1, 1), chunk(1, 1, 1, start), chunk(1, 1, 1, stop), message(1, 1), turnEnd(1, "completed"),
			`turn/start {"turn":2,"trigger":"subagent"}`, reqHeader(2, 1, 1), chunk(2, 1, 1, stop), message(2, 1), turnEnd(2, "completed")),
		Entry("chunks in other layouts than the runtime's", rootHeader, 4,
			turnStart(1),
			`assistant/chunk {"step":1,"turn":1,"chunk":{"type":"text-delta","index":0,"text":"x"}}`,
			`assistant/chunk { "turn": 1, "step": 1, "chunk": {"index":0,"type":"finish","reason":{"kind":"stop"}} }`,
			`assistant/chunk {"turn":1,"step":1,"attempt":1,"x":2,"chunk":{"type":"text-delta","index":0,"text":"x"}}`,
			`assistant/chunk {"turn":1,"step":1,"attempt":2,"chunk":{"type":"\u0066inish","reason":{"kind":"stop"}}}`,
			`assistant/chunk {"turn":1,"step":1,"attempt":2,"chunk":{"type":"text-delta","index":0,"text":"y"}}`),
	)

	It("knows the steps it counted past the first eight: a later message of one is no call of its own", func() {
		var ls []string
		ls = append(ls, turnStart(1))
		for step := 1; step <= 10; step++ {
			ls = append(ls, chunk(1, step, 0, start), chunk(1, step, 0, stop), message(1, step))
		}
		ls = append(ls, message(1, 2), message(1, 9), message(1, 11)) // steps 2 and 9 had calls; 11 did not
		expectCount(callLog(rootHeader, ls...), 11)
	})

	It("opens no call for a chunk it cannot read, as ModelCalls", func() {
		events := []session.Event{
			{Type: session.TypeAssistantChunk, Data: []byte(`[]`)},
			{Type: session.TypeAssistantChunk},
			{Type: session.TypeAssistantChunk, Data: []byte(`{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"\x"}}`)},
			{Type: session.TypeAssistantChunk, Data: []byte("{\"turn\":1,\"step\":1,\"chunk\":{\"type\":\"text-delta\",\"index\":0,\"text\":\"a\x01\"}}")},
			{Type: session.TypeAssistantChunk, Data: []byte(`{"turn":1,"chunk":{"type":"text-delta","index":0,"text":"x"}}`)},
			{Type: session.TypeAssistantChunk, Data: []byte(`{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"x"}`)},
			{Type: session.TypeRequestHeader, Data: []byte(`{"turn":"one","step":1}`)},
			{Type: session.TypeAssistantMessage, Data: []byte(`{"step":1}`)},
		}
		Expect(session.CountModelCalls(events)).To(Equal(0))
		Expect(session.ModelCalls(events)).To(BeEmpty())
		for _, e := range events {
			if e.Type == session.TypeAssistantChunk {
				expectChunkKey(e.Data, "unreadable")
			}
		}
		Expect(session.CountModelCalls(nil)).To(Equal(0))
	})

	It("reads every chunk of the repo's fixtures as DecodeChunkData does, and counts their calls as ModelCalls", func() {
		logs := logsUnder(filepath.Join("..", "fixtures"))
		Expect(logs).NotTo(BeEmpty())
		total, seeded := 0, 0
		for _, l := range logs {
			for _, e := range l.Events {
				if e.Type == session.TypeAssistantChunk {
					expectChunkKey(e.Data, l.Path)
				}
			}
			n := len(l.ModelCalls())
			expectCount(l, n)
			total += n
			seeded += len(session.ModelCalls(l.Seed()))
		}
		Expect(total).To(BeNumerically(">", 0))
		Expect(seeded).To(BeNumerically(">", 0), "a fork child's seed holds calls, which its own count leaves out")
	})

	It("reads every chunk of a corpus of dsh logs as DecodeChunkData does, and counts their calls as ModelCalls", func() {
		root := os.Getenv(corpusEnv)
		if root == "" {
			Skip(corpusEnv + " is not set")
		}
		logs := logsUnder(root)
		Expect(logs).NotTo(BeEmpty())
		for _, l := range logs {
			for _, e := range l.Events {
				if e.Type == session.TypeAssistantChunk {
					expectChunkKey(e.Data, l.Path)
				}
			}
			expectCount(l, len(l.ModelCalls()))
		}
	})
})
