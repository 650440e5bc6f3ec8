package judge_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/session"
)

// What the first difference of a session names: the member, with both
// values as written.
var _ = Describe("naming the member that differs", func() {
	log := func(data string) *session.Log {
		return &session.Log{
			Header: session.Header{ID: "root", AgentPreset: "default"},
			Events: []session.Event{{Type: "x/note", Seq: 0, Data: json.RawMessage(data)}},
		}
	}

	It("names a list that grew past its equal items, with both lengths", func() {
		d := judge.CompareSessionPair(log(`{"list":[1,2]}`), log(`{"list":[1,2,3]}`))
		Expect(d).NotTo(BeNil())
		Expect(d.Field).To(Equal("data.list"))
		Expect(d.Golden).To(Equal("2 items"))
		Expect(d.Replay).To(Equal("3 items"))
	})

	It("names a member whose value is written alike but is of another JSON type", func() {
		d := judge.CompareSessionPair(log(`{"n":"1"}`), log(`{"n":1}`))
		Expect(d).NotTo(BeNil())
		Expect(d.Field).To(Equal("data.n"))
		Expect(d.Golden).To(Equal(`"1"`))
		Expect(d.Replay).To(Equal(`1`))
	})
})

// A request/header recorded before it held the API and the settings
// compares with a replay's that holds them as though it did not; one
// recorded with them compares member by member.
var _ = Describe("comparing request headers", func() {
	log := func(d session.RequestHeaderData) *session.Log {
		GinkgoHelper()
		e, err := session.NewEvent(session.TypeRequestHeader, d)
		Expect(err).NotTo(HaveOccurred())
		return &session.Log{Header: session.Header{ID: "root", AgentPreset: "default"}, Events: []session.Event{e}}
	}
	request := func(model, api, settings string) session.RequestHeaderData {
		d := session.RequestHeaderData{Turn: 1, Step: 1, Provider: "p", Model: model, API: api}
		if settings != "" {
			d.Settings = json.RawMessage(settings)
		}
		return d
	}

	It("takes what an older recording never held, the API and the settings, as no difference", func() {
		Expect(judge.CompareSessionPair(log(request("m", "", "")), log(request("m", "openai-chat", `{"temperature":0}`)))).To(BeNil())
	})

	It("names the member that differs between requests that both hold the API", func() {
		d := judge.CompareSessionPair(log(request("m1", "openai-chat", `{"temperature":0}`)), log(request("m2", "openai-chat", `{"temperature":0}`)))
		Expect(d).NotTo(BeNil())
		Expect(d.Field).To(Equal("data.model"))
		Expect(d.Golden).To(Equal(`"m1"`))
		Expect(d.Replay).To(Equal(`"m2"`))
	})

	It("names another API where both hold one", func() {
		d := judge.CompareSessionPair(log(request("m", "openai-chat", "")), log(request("m", "anthropic-messages", "")))
		Expect(d).NotTo(BeNil())
		Expect(d.Field).To(Equal("data.api"))
		Expect(d.Replay).To(Equal(`"anthropic-messages"`))
	})
})

// Only a recorded {{cwd}} stands for the replay's working folder: a
// recorded folder written out is compared as it is.
var _ = Describe("comparing a header that recorded its folder written out", func() {
	It("tells it from the replay's working folder", func() {
		log := func(cwd string) *session.Log {
			return &session.Log{Header: session.Header{ID: "root", Cwd: cwd, AgentPreset: "default"}}
		}
		d, _ := judge.CompareSessionPairIn(log("/recorded/there"), log("/work/replay"), "/work/replay")
		Expect(d).NotTo(BeNil())
		Expect(d.Field).To(Equal("cwd"))
		Expect(d.Golden).To(Equal(`"/recorded/there"`))
		Expect(d.Replay).To(Equal(`"/work/replay"`))
	})
})
