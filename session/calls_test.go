package session_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/session"
)

// callLog reads a log of the given lines after header; each line is
// "type data" and gets its seq from its place. A line that starts with "{"
// is a packed row, written whole with its own seq0 (it comes last).
func callLog(header string, ls ...string) *session.Log {
	GinkgoHelper()
	var out []string
	seq := 0
	for _, l := range ls {
		if strings.HasPrefix(l, "{") {
			out = append(out, l)
			continue
		}
		typ, data, _ := strings.Cut(l, " ")
		out = append(out, ev(typ, seq, data))
		seq++
	}
	log, err := session.Read(strings.NewReader(lines(append([]string{header}, out...)...)), "calls.jsonl")
	Expect(err).NotTo(HaveOccurred())
	return log
}

// reqHeader is a request/header payload of (turn, step, attempt).
func reqHeader(turn, step, attempt int) string {
	return fmt.Sprintf(`request/header {"turn":%d,"step":%d,"attempt":%d,"provider":"p","model":"m","systemDigest":"s","systemChars":0,"toolsDigest":"t","toolCount":0,"messagesDigest":"d","messageCount":1}`, turn, step, attempt)
}

// chunk is an assistant/chunk line; attempt 0 leaves the member out (dsh).
func chunk(turn, step, attempt int, c string) string {
	a := ""
	if attempt > 0 {
		a = fmt.Sprintf(`,"attempt":%d`, attempt)
	}
	return fmt.Sprintf(`assistant/chunk {"turn":%d,"step":%d%s,"chunk":%s}`, turn, step, a, c)
}

const (
	delta    = `{"type":"text-delta","index":0,"text":"x"}`
	start    = `{"type":"block-start","index":0,"blockType":"text"}`
	stop     = `{"type":"finish","reason":{"kind":"stop"}}`
	failed   = `{"type":"finish","reason":{"kind":"error","failure":{"message":"reset","code":"SERVER"}}}`
	dshSetup = `request/header {"header":{"config":{"provider":"deepseek-official","model":"deepseek-v4-flash"},"system":"{{system}}","tools":"{{tools}}"},"reason":"initial"}`
)

func message(turn, step int) string {
	return fmt.Sprintf(`assistant/message {"turn":%d,"step":%d,"message":{"role":"assistant","content":[{"type":"text","text":"x"}]}}`, turn, step)
}

func turnStart(turn int) string { return fmt.Sprintf(`turn/start {"turn":%d,"trigger":"user"}`, turn) }

func turnEnd(turn int, kind string) string {
	return fmt.Sprintf(`turn/end {"turn":%d,"reason":{"kind":%q}}`, turn, kind)
}

var _ = Describe("ModelCalls", func() {
	It("counts one call per request/header: answered, cut short by a cancel, refused, failed and retried", func() {
		l := callLog(rootHeader,
			turnStart(1), reqHeader(1, 1, 1), chunk(1, 1, 1, start), chunk(1, 1, 1, stop), message(1, 1), turnEnd(1, "completed"), // 0-5
			turnStart(2), reqHeader(2, 1, 1), chunk(2, 1, 1, start), chunk(2, 1, 1, delta), turnEnd(2, "aborted"), // 6-10: a user's cancel
			turnStart(3), reqHeader(3, 1, 1), turnEnd(3, "error"), // 11-13: the driver refused the call
			turnStart(4), reqHeader(4, 1, 1), chunk(4, 1, 1, failed), reqHeader(4, 1, 2), chunk(4, 1, 2, stop), message(4, 1), turnEnd(4, "completed"), // 14-20
		)
		Expect(l.ModelCalls()).To(Equal([]session.ModelCall{
			{Turn: 1, Step: 1, Attempt: 1, At: 1},
			{Turn: 2, Step: 1, Attempt: 1, At: 7},
			{Turn: 3, Step: 1, Attempt: 1, At: 12},
			{Turn: 4, Step: 1, Attempt: 1, At: 15},
			{Turn: 4, Step: 1, Attempt: 2, At: 17},
		}))
	})

	It("gives the first chunk after a request/header to its call, whatever attempt the chunk names", func() {
		l := callLog(rootHeader, turnStart(1), reqHeader(1, 1, 1), chunk(1, 1, 2, start), chunk(1, 1, 2, stop), message(1, 1), turnEnd(1, "completed"))
		Expect(l.ModelCalls()).To(Equal([]session.ModelCall{{Turn: 1, Step: 1, Attempt: 1, At: 1}}))
	})

	It("counts a dsh log by its streams: its request/header is a configuration, no call", func() {
		l := callLog(rootHeader,
			turnStart(1), dshSetup, // 0-1
			chunk(1, 1, 0, failed), chunk(1, 1, 0, start), chunk(1, 1, 0, stop), message(1, 1), // 2-5: an error, then its retry
			chunk(1, 2, 0, start), chunk(1, 2, 0, stop), message(1, 2), turnEnd(1, "completed"), // 6-9
			turnStart(2), chunk(2, 1, 0, start), chunk(2, 1, 0, delta), message(2, 1), turnEnd(2, "aborted"), // 10-14: cancelled, dsh keeps the partial answer
			turnStart(3), message(3, 1), turnEnd(3, "completed"), // 15-17: an answer recorded without its stream
		)
		Expect(l.ModelCalls()).To(Equal([]session.ModelCall{
			{Turn: 1, Step: 1, At: 2},
			{Turn: 1, Step: 1, At: 3},
			{Turn: 1, Step: 2, At: 6},
			{Turn: 2, Step: 1, At: 11},
			{Turn: 3, Step: 1, At: 16},
		}))
	})

	It("counts packed rows as the chunks they stand for", func() {
		l := callLog(rootHeader, turnStart(1), chunk(1, 1, 0, start),
			`{"type":"text-chunks","seq0":2,"time0":2000,"data":{"turn":1,"step":1,"index":0,"dt":[0],"texts":["a","b"]}}`)
		Expect(l.Events).To(HaveLen(4))
		Expect(l.ModelCalls()).To(Equal([]session.ModelCall{{Turn: 1, Step: 1, At: 1}}))
	})

	It("opens a call for a stream that goes on after its finish or changes step without one", func() {
		l := callLog(rootHeader, turnStart(1), reqHeader(1, 1, 1), chunk(1, 1, 1, stop), chunk(1, 1, 1, stop), chunk(1, 2, 1, delta), chunk(1, 3, 1, delta))
		Expect(l.ModelCalls()).To(HaveLen(4))
	})

	It("ends a call at its assistant/message: a later chunk of the same key is another call", func() {
		l := callLog(rootHeader, turnStart(1), chunk(1, 1, 0, delta), message(1, 1), chunk(1, 1, 0, delta))
		Expect(l.ModelCalls()).To(Equal([]session.ModelCall{{Turn: 1, Step: 1, At: 1}, {Turn: 1, Step: 1, At: 3}}))
	})

	It("counts a fork child's own calls only; its seed holds the parent's", func() {
		fork := `{"type":"session","version":0,"id":"root/call_f","createdAt":1,"parentSession":"root","seedLength":6,"origin":"subagent","delegationDepth":1,"parentCallId":"call_f","mode":"fork"}`
		l := callLog(fork,
			turnStart(1), reqHeader(1, 1, 1), chunk(1, 1, 1, start), chunk(1, 1, 1, stop), message(1, 1), turnEnd(1, "completed"),
			`turn/start {"turn":2,"trigger":"subagent"}`, reqHeader(2, 1, 1), chunk(2, 1, 1, stop), message(2, 1), turnEnd(2, "completed"),
		)
		Expect(l.ModelCalls()).To(Equal([]session.ModelCall{{Turn: 2, Step: 1, Attempt: 1, At: 1}}), "At indexes Own()")
		Expect(session.ModelCalls(l.Events)).To(HaveLen(2))
		Expect(session.ModelCalls(l.Seed())).To(Equal([]session.ModelCall{{Turn: 1, Step: 1, Attempt: 1, At: 1}}))
	})

	It("opens no call for an event whose payload it cannot read", func() {
		events := []session.Event{
			{Type: session.TypeRequestHeader, Data: []byte(`not json`)},
			{Type: session.TypeAssistantChunk, Data: []byte(`[]`)},
			{Type: session.TypeAssistantMessage, Data: []byte(`{"step":1}`)},
			{Type: session.TypeRequestHeader, Data: []byte(`{"turn":"one","step":1}`)},
		}
		Expect(session.ModelCalls(events)).To(BeEmpty())
		Expect(session.ModelCalls(nil)).To(BeEmpty())
	})
})
