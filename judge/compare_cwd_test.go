package judge_test

import (
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
)

// A recorded header holds {{cwd}}, the replayed one the folder the replay
// ran in. The comparison knows that folder, so the common case compares
// without looking the machine's paths up; everything else is normalised as
// before.
var _ = Describe("comparing headers whose cwd is the replay's working folder", func() {
	log := func(cwd string) *session.Log {
		return &session.Log{Header: session.Header{ID: "root", CreatedAt: 1, Cwd: cwd, AgentPreset: "default"}}
	}
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}

	It("matches a recorded {{cwd}} without looking any path up", func() {
		d, looked := judge.CompareSessionPairIn(log("{{cwd}}"), log("/work/replay"), "/work/replay")
		Expect(d).To(BeNil())
		Expect(looked).To(BeFalse(), "the comparison looked the machine's paths up (os.Getwd) for a header that needs none")
	})

	It("still tells another folder from the replay's", func() {
		d, _ := judge.CompareSessionPairIn(log("{{cwd}}"), log("/work/elsewhere"), "/work/replay")
		Expect(d).NotTo(BeNil())
		Expect(d.Field).To(Equal("cwd"))
		Expect(d.Golden).To(Equal(`"{{cwd}}"`))
		Expect(d.Replay).To(Equal(`"/work/elsewhere"`))
	})

	It("normalises what is not the whole working folder, as before", func() {
		d, looked := judge.CompareSessionPairIn(log("{{cwd}}/sub"), log(filepath.Join(wd, "sub")), "/work/replay")
		Expect(d).To(BeNil())
		Expect(looked).To(BeTrue())
	})

	It("takes no shortcut for a working folder of one byte, which is never replaced", func() {
		d, _ := judge.CompareSessionPairIn(log("{{cwd}}"), log("/"), "/")
		Expect(d).NotTo(BeNil())
		Expect(d.Field).To(Equal("cwd"))
	})
})
