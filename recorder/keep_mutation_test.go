package recorder_test

import (
	"encoding/json"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/recorder"
	"github.com/agentsnap/agentsnap/session"
)

// An only-changed recording copies a recorded log's file only when the new
// log is that log, every event of it: one that differs in its last event
// alone is written as it is now, so its file and the golden rendered from
// it agree.
var _ = Describe("keeping a recorded log's file", func() {
	event := func(seq int64, text string) session.Event {
		return session.Event{Type: "x/note", Seq: seq, Time: 1000 + seq, Data: json.RawMessage(`{"text":"` + text + `"}`)}
	}
	It("writes a log that differs from its recording in its last event only as it is now", func() {
		h := session.Header{ID: "root", CreatedAt: 1, AgentPreset: "default"}
		old := &session.Log{Path: filepath.Join(GinkgoT().TempDir(), fixture.RootLog), Header: h,
			Events: []session.Event{event(0, "a"), event(1, "b"), event(2, "c")}}
		Expect(os.WriteFile(old.Path, session.Encode(&old.Header, old.Events), 0o644)).To(Succeed())
		now := &session.Log{Header: h, Events: []session.Event{event(0, "a"), event(1, "b"), event(2, "changed")}}

		files := map[string][]byte{}
		rendered := []*session.Log{now}
		kept := recorder.KeepRecorded(files, rendered, []*session.Log{old})
		Expect(kept).To(BeEmpty())
		Expect(string(files[fixture.RootLog])).To(ContainSubstring(`"changed"`))
		Expect(string(files[fixture.RootLog])).To(Equal(string(session.Encode(&rendered[0].Header, rendered[0].Events))))

		By("a log equal to its recording, whose file is copied")
		files, rendered = map[string][]byte{}, []*session.Log{{Header: h, Events: old.Events}}
		Expect(recorder.KeepRecorded(files, rendered, []*session.Log{old})).To(HaveKey("root"))
		Expect(files[fixture.RootLog]).To(Equal(session.Encode(&old.Header, old.Events)))
	})
})
