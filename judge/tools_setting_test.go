package judge_test

import (
	"encoding/json"

	"github.com/agentsnap/agentsnap/judge"
	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Tools that say more than a name, a description and a schema (strict,
// eager_input_streaming) are recorded as the setting "tools"; a fixture
// recorded before dropped those members, so its headers hold no such
// setting, and an agent that sends them must still replay green on it.
var _ = Describe("comparing a request/header recorded before tools as sent were a setting", func() {
	tools := []llm.ToolSpec{{Name: "research", Description: "Ask a researcher.", Parameters: json.RawMessage(`{"type":"object"}`)}}
	asSent := json.RawMessage(`[{"eager_input_streaming":true,"input_schema":{"type":"object"},"name":"research"}]`)
	header := func(settings string) session.RequestHeaderData {
		h := llm.RequestHeader("anthropic", &llm.Request{Model: "m", Tools: tools})
		h.API = "anthropic-messages"
		if settings != "" {
			h.Settings = json.RawMessage(settings)
		}
		return h
	}
	log := func(h session.RequestHeaderData) *session.Log {
		GinkgoHelper()
		e, err := session.NewEvent(session.TypeRequestHeader, h)
		Expect(err).NotTo(HaveOccurred())
		return &session.Log{Header: session.Header{ID: "root"}, Events: []session.Event{e}}
	}
	withTools := func(rest string) string {
		if rest == "" {
			return `{"tools":` + string(asSent) + `}`
		}
		return `{"temperature":0,"tools":` + string(asSent) + `,"z_flag":"<a&b>"}`
	}

	It("finds no difference when the recording holds no tools setting and the replay does", func() {
		Expect(judge.CompareSessionPair(log(header("")), log(header(withTools(""))))).To(BeNil())
		Expect(judge.CompareSessionPair(log(header(`{"temperature":0,"z_flag":"<a&b>"}`)), log(header(withTools("rest"))))).To(BeNil(),
			"the other settings written again byte for byte")
	})

	It("still finds every other change of the settings, and a change to tools the recording holds", func() {
		d := judge.CompareSessionPair(log(header(`{"temperature":1,"z_flag":"<a&b>"}`)), log(header(withTools("rest"))))
		Expect(d).NotTo(BeNil(), "temperature changed")
		Expect(d.Field).To(Equal("data.settings.temperature"))

		d = judge.CompareSessionPair(log(header(withTools(""))), log(header(`{"tools":[{"input_schema":{"type":"object"},"name":"research","strict":true}]}`)))
		Expect(d).NotTo(BeNil(), "recorded tools as sent are compared")

		Expect(judge.CompareSessionPair(log(header(withTools(""))), log(header("")))).NotTo(BeNil(), "tools as sent that went away are a difference")
	})

	It("names no drift for the tools setting alone in a recording made before, and names the rest", func() {
		golden := []*session.Log{log(header(`{"temperature":0}`))}
		Expect(judge.SettleVerdict(golden, []*session.Log{log(header(`{"temperature":0,"tools":` + string(asSent) + `}`))}).Passed()).To(BeTrue())

		o := judge.SettleVerdict(golden, []*session.Log{log(header(`{"temperature":1,"tools":` + string(asSent) + `}`))})
		Expect(o.Drift).NotTo(BeNil())
		Expect(o.Drift.Changes).To(Equal([]string{"the request settings changed: temperature 0 → 1"}))
	})
})
