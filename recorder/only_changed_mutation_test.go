package recorder_test

import (
	"context"
	"path/filepath"
	"slices"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/scenario"
	"github.com/agentsnap/agentsnap/session"
)

// noHeaders removes every request/header event from the logs in dir, as
// a log written before runtimes wrote them holds none: seqs renumbered, a
// fork's seed shortened by the headers it held.
func noHeaders(dir string) {
	GinkgoHelper()
	rewriteLogs(dir, func(l *session.Log) {
		seed := l.Header.SeedLength
		var kept []session.Event
		for i, e := range l.Events {
			if e.Type == session.TypeRequestHeader {
				if i < l.Header.SeedLength {
					seed--
				}
				continue
			}
			e.Seq = int64(len(kept))
			kept = append(kept, e)
		}
		l.Header.SeedLength, l.Events = seed, kept
	})
	_, err := fixture.Load(dir)
	Expect(err).NotTo(HaveOccurred(), "the logs without headers still load")
}

// A call whose recording holds no request/header cannot be told
// unchanged: --only-changed sends it to the model rather than replay an
// answer that may belong to another request.
var _ = Describe("record --only-changed of a recording with no request/header events", func() {
	It("sends every call to the model and says why", func() {
		dir, s := recordedTree()
		noHeaders(dir)
		res, err := recordScripted(context.Background(), dir, s, onlyChanged)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.requests()).To(HaveLen(8))
		Expect(res.Reuse.Replayed).To(Equal(0))
		Expect(res.Reuse.Changed[0].Session).To(Equal("root"))
		Expect(res.Reuse.Changed[0].From).To(Equal(1))
		Expect(res.Reuse.Changed[0].Why).To(Equal("the recording holds no request/header for the call, so it cannot tell whether the request changed"))
	})
})

// The times an only-changed recording keeps are those of each session's
// events up to its first difference from its recorded self: the event that
// differs first happened now, and says so.
var _ = Describe("record --only-changed keeps the recorded times", func() {
	It("up to a session's first difference, not of the event that differs", func() {
		dir, s := recordedTree()
		old, err := session.ReadFile(filepath.Join(dir, fixture.RootLog))
		Expect(err).NotTo(HaveOccurred())
		editScenario(dir, func(sc *scenario.Scenario) { sc.Prompts[2] = "Fork a child to recall the codeword, please." })
		now := time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)
		_, err = recordScripted(context.Background(), dir, s, onlyChanged, func(o *recorder.Options) {
			o.Clock = func() time.Time { return now }
		})
		Expect(err).NotTo(HaveOccurred())
		l, err := session.ReadFile(filepath.Join(dir, fixture.RootLog))
		Expect(err).NotTo(HaveOccurred())

		first := slices.IndexFunc(l.Events, func(e session.Event) bool {
			i := int(e.Seq)
			if i >= len(old.Events) {
				return true
			}
			a, b := e, old.Events[i]
			a.Time, b.Time = 0, 0
			return string(session.AppendEvent(nil, &a)) != string(session.AppendEvent(nil, &b))
		})
		Expect(first).To(BeNumerically(">", 0), "the root's log differs from its recording after its start")
		for i := range first {
			Expect(l.Events[i].Time).To(Equal(old.Events[i].Time), "event %d, before the first difference, keeps its recorded time", i)
		}
		Expect(l.Events[first].Type).To(Equal(session.TypeUserMessage))
		Expect(l.Events[first].Time).To(Equal(now.UnixMilli()), "the first event that differs has this recording's time")
	})
})
