package recorder_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/fixture"
	"github.com/agentsnap/agentsnap/session"
)

// dshHeaders rewrites every request/header event of the logs in dir as
// dsh writes them: the provider and model, placeholders for the system
// prompt and the tools, a reason, and no turn, step or digest of what
// was sent.
func dshHeaders(dir string) {
	GinkgoHelper()
	rewriteLogs(dir, func(l *session.Log) {
		for i := range l.Events {
			if l.Events[i].Type == session.TypeRequestHeader {
				l.Events[i].Data = json.RawMessage(`{"header":{"config":{"provider":"openai-compatible","model":"scripted-model"},"system":"{{system}}","tools":"{{tools}}"},"reason":"initial"}`)
			}
		}
	})
}

// rewriteLogs reads every session log in dir, lets edit change it and
// writes it back.
func rewriteLogs(dir string, edit func(l *session.Log)) {
	GinkgoHelper()
	paths, err := filepath.Glob(filepath.Join(dir, "session*.jsonl"))
	Expect(err).NotTo(HaveOccurred())
	for _, p := range paths {
		l, err := session.ReadFile(p)
		Expect(err).NotTo(HaveOccurred())
		edit(l)
		Expect(os.WriteFile(p, session.Encode(&l.Header, l.Events), 0o644)).To(Succeed())
	}
}

var _ = Describe("record --only-changed of a recording whose request headers are dsh's", func() {
	It("says why every call goes to the model: nothing in such a header tells whether the request changed", func() {
		dir, s := recordedTree()
		dshHeaders(dir)
		res, err := recordScripted(context.Background(), dir, s, onlyChanged)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.requests()).To(HaveLen(8))
		Expect(res.Warnings).To(ContainElement(ContainSubstring("--only-changed: the request/header events of session.jsonl, session.1.jsonl and session.2.jsonl name no turn or step and hold no digest of what was sent (as dsh writes them)")))
		Expect(res.Reuse.Changed[0].Session).To(Equal("root"))
		Expect(res.Reuse.Changed[0].From).To(Equal(1))
		Expect(res.Reuse.Changed[0].Why).To(Equal("its recorded request/header names no turn or step and holds no digest of what was sent (a dsh log's), so nothing tells whether the request changed"))
		Expect(strings.Join(res.Reuse.Lines(), "\n")).NotTo(ContainSubstring("holds no request/header"))
		// What it wrote has them: the next run keeps everything.
		res, err = recordScripted(context.Background(), dir, s, onlyChanged)
		Expect(err).NotTo(HaveOccurred())
		Expect(s.requests()).To(BeEmpty())
		Expect(res.Warnings).To(BeEmpty())
		Expect(filepath.Join(dir, fixture.RootLog)).To(BeAnExistingFile())
	})
})
