package responses

import (
	"encoding/json"
	"net/http/httptest"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/agentsnap/agentsnap/llm"
	"github.com/agentsnap/agentsnap/session"
)

// frameStrings are texts whose escaping differs: HTML characters (which
// Marshal escapes and the stream's encoder does not), control characters,
// quotes and backslashes, line and paragraph separators, multi-byte runes
// and bytes that are not UTF-8, and nothing.
var frameStrings = []string{
	"", "hello", "<in order> & in full", "a\"b\\c/d", "\x00\x01\x1f\x7f", "\b\f\n\r\t",
	"\u2028\u2029", "café 🙂 日本", "bad \xff\xfe\xe2\x82", "\xed\xa0\x80", `{"key":"release"}`, "</script>",
}

// handEvent is what the streamer writes by hand for write, at sequence
// number 7.
func handEvent(a Answer, write func(s *streamer)) string {
	rec := httptest.NewRecorder()
	s := &streamer{w: rec, a: a, id: ResponseID(a.Key), seq: 7, fb: &frameBuf{}}
	s.fb.tools, s.toolsErr = appendTools(nil, a.Tools)
	Expect(s.toolsErr).NotTo(HaveOccurred())
	write(s)
	Expect(s.err).NotTo(HaveOccurred())
	return rec.Body.String()
}

// stdEvent is what encoding/json wrote for ev, at sequence number 7.
func stdEvent(ev Event) string {
	rec := httptest.NewRecorder()
	s := &refStreamer{w: rec, seq: 7}
	s.send(ev)
	Expect(s.err).NotTo(HaveOccurred())
	return rec.Body.String()
}

// frameItem is an item of kind whose every string is text.
func frameItem(kind, text string, index int) *outItem {
	it := &outItem{kind: kind, index: index, id: text, callID: text, name: text, added: true}
	it.text.WriteString(text)
	it.pieces = []string{text, "", text}
	it.meta = Meta{ID: text, Phase: text, EncryptedContent: text}
	return it
}

// handWritten pairs each event written by hand with the Event
// refWriteStream sent for it.
var handWritten = []struct {
	name string
	hand func(s *streamer, it *outItem, text string)
	std  func(it *outItem, text string) Event
}{
	{"output_text.delta", func(s *streamer, it *outItem, text string) { s.textDelta(it, text) }, func(it *outItem, text string) Event {
		return Event{Type: EventTextDelta, ItemID: it.id, OutputIndex: ptr(it.index), ContentIndex: ptr(0), Delta: ptr(text), Logprobs: json.RawMessage("[]")}
	}},
	{"output_text.done", func(s *streamer, it *outItem, _ string) { s.textDone(it) }, func(it *outItem, _ string) Event {
		return Event{Type: EventTextDone, ItemID: it.id, OutputIndex: ptr(it.index), ContentIndex: ptr(0), Text: ptr(it.text.String()), Logprobs: json.RawMessage("[]")}
	}},
	{"function_call_arguments.delta", func(s *streamer, it *outItem, text string) { s.argsDelta(it, text) }, func(it *outItem, text string) Event {
		return Event{Type: EventArgsDelta, ItemID: it.id, OutputIndex: ptr(it.index), Delta: ptr(text)}
	}},
	{"function_call_arguments.done", func(s *streamer, it *outItem, _ string) { s.argsDone(it) }, func(it *outItem, _ string) Event {
		return Event{Type: EventArgsDone, ItemID: it.id, OutputIndex: ptr(it.index), Arguments: ptr(it.text.String())}
	}},
	{"content_part.added", func(s *streamer, it *outItem, _ string) { s.part(EventPartAdded, it, "") }, func(it *outItem, _ string) Event {
		return Event{Type: EventPartAdded, ItemID: it.id, OutputIndex: ptr(it.index), ContentIndex: ptr(0), Part: ptr(refOutputText(""))}
	}},
	{"content_part.done", func(s *streamer, it *outItem, text string) { s.part(EventPartDone, it, text) }, func(it *outItem, text string) Event {
		return Event{Type: EventPartDone, ItemID: it.id, OutputIndex: ptr(it.index), ContentIndex: ptr(0), Part: ptr(refOutputText(text))}
	}},
	{"output_item.added", func(s *streamer, it *outItem, _ string) { s.itemAdded(it) }, func(it *outItem, _ string) Event {
		return Event{Type: EventItemAdded, OutputIndex: ptr(it.index), Item: refAddedItem(it)}
	}},
	{"output_item.done", func(s *streamer, it *outItem, _ string) { s.itemDone(it) }, func(it *outItem, _ string) Event {
		return Event{Type: EventItemDone, OutputIndex: ptr(it.index), Item: ptr(refDoneItem(it))}
	}},
	{"reasoning summary events", func(s *streamer, it *outItem, _ string) { s.reasoning(it) }, refSummary},
	{"error", func(s *streamer, _ *outItem, text string) { s.errorEvent(text, text+"!") }, func(_ *outItem, text string) Event {
		null := json.RawMessage("null")
		return Event{Type: EventError, Code: ptr(text), Message: ptr(text + "!"), Param: null,
			Error: &Error{Type: "agentsnap_replay_error", Code: text, Message: text + "!", Param: null}}
	}},
}

// refSummary is the first event of the reasoning summary; the spec checks
// the rest apart (summaryEvents).
func refSummary(it *outItem, _ string) Event {
	return Event{Type: EventSummaryPartAdded, ItemID: it.id, OutputIndex: ptr(it.index), SummaryIndex: ptr(0), Part: &Part{Type: "summary_text"}}
}

// summaryEvents are the events refStreamer.reasoning sent for it, from the
// second on.
func summaryEvents(it *outItem) []Event {
	at := func(t string) Event {
		return Event{Type: t, ItemID: it.id, OutputIndex: ptr(it.index), SummaryIndex: ptr(0)}
	}
	var out []Event
	for _, p := range it.pieces {
		if p != "" {
			ev := at(EventSummaryDelta)
			ev.Delta = ptr(p)
			out = append(out, ev)
		}
	}
	done, partDone := at(EventSummaryDone), at(EventSummaryPartDone)
	done.Text, partDone.Part = ptr(it.text.String()), &Part{Type: "summary_text", Text: it.text.String()}
	return append(out, done, partDone)
}

// stdEvents is stdEvent of evs in sequence from 7.
func stdEvents(evs ...Event) string {
	rec := httptest.NewRecorder()
	s := &refStreamer{w: rec, seq: 7}
	for _, ev := range evs {
		s.send(ev)
	}
	return rec.Body.String()
}

var _ = Describe("the events of a streamed answer, written by hand", func() {
	kinds := []string{ItemMessage, ItemReasoning, ItemFunctionCall}

	It("are the bytes a json.Encoder with HTML escaping off writes for each event's Event, for every kind of item and tricky string", func() {
		for _, ev := range handWritten {
			for _, kind := range kinds {
				for i, text := range frameStrings {
					it := frameItem(kind, text, i*1000)
					want := stdEvent(ev.std(it, text))
					if ev.name == "reasoning summary events" {
						want = stdEvents(append([]Event{ev.std(it, text)}, summaryEvents(it)...)...)
						if text == "" {
							want = "" // no summary
						}
					}
					got := handEvent(Answer{}, func(s *streamer) { ev.hand(s, it, text) })
					Expect(got).To(Equal(want), "%s of a %s, %q", ev.name, kind, text)
				}
			}
		}
	})

	It("leave out what encoding/json leaves out: an empty id, call id, name, phase or encrypted content", func() {
		for _, kind := range kinds {
			it := frameItem(kind, "x", 0)
			it.id, it.callID, it.name, it.meta = "", "", "", Meta{}
			for _, ev := range handWritten[:8] {
				Expect(handEvent(Answer{}, func(s *streamer) { ev.hand(s, it, "x") })).To(Equal(stdEvent(ev.std(it, "x"))), "%s of a %s", ev.name, kind)
			}
		}
	})

	It("write the response events as encoding/json does: its answer's strings, tools, output items, status and usage", func() {
		for i, text := range frameStrings {
			a := Answer{Key: text, Model: text, Instructions: text, Previous: frameStrings[(i+1)%len(frameStrings)], Tools: []llm.ToolSpec{
				{Name: text, Description: text, Parameters: json.RawMessage(" {\"a\" : [ 1, \"<&> \xff\" ]}\n")}, {}}}
			Expect(handEvent(a, func(s *streamer) { s.response(EventCreated, &response{status: StatusInProgress}) })).
				To(Equal(stdEvent(Event{Type: EventCreated, Response: newResponse(a, StatusInProgress)})), "%q", text)
			items := []*outItem{frameItem(ItemReasoning, text, 0), frameItem(ItemMessage, text, 1), frameItem(ItemFunctionCall, text, 2)}
			for _, kind := range []string{session.FinishStop, session.FinishMaxTokens} {
				for _, u := range []*session.Usage{nil, {InputTokens: 3, OutputTokens: 4}, {InputTokens: -1, CacheReadTokens: ptr(2), ReasoningTokens: ptr(0)}} {
					status, incomplete := finishStatus(kind)
					resp := newResponse(a, StatusCompleted)
					resp.Status, resp.IncompleteDetails, resp.Usage = status, incomplete, usageOf(u)
					for _, it := range items {
						resp.Output = append(resp.Output, refDoneItem(it))
					}
					got := handEvent(a, func(s *streamer) {
						s.response(EventCompleted, &response{status: status, items: items, incomplete: incomplete, usage: u, final: true})
					})
					Expect(got).To(Equal(stdEvent(Event{Type: EventCompleted, Response: resp})), "%q, %s, %+v", text, kind, u)
				}
			}
		}
	})

	It("escape as the stream always has: a message's done text as Marshal does, the rest with HTML escaping off", func() {
		it := frameItem(ItemMessage, "<b> & \x01\u2028\xff", 0)
		Expect(handEvent(Answer{}, func(s *streamer) { s.textDelta(it, it.text.String()) })).To(ContainSubstring(`"delta":"<b> & \u0001\u2028\ufffd"`))
		Expect(handEvent(Answer{}, func(s *streamer) { s.itemDone(it) })).To(ContainSubstring(`"text":"\u003cb\u003e \u0026 \u0001\u2028\ufffd"`))
	})
})
