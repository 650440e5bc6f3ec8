package report_test

import (
	"bytes"
	"fmt"
	"regexp"

	"github.com/agentsnap/agentsnap/report"
	"github.com/agentsnap/agentsnap/session"
)

// Write renders the results of a check run as one HTML file. Here the
// replay of a one-session scenario answered differently; the page links
// the summary to the first divergence, the replay's answer.
func ExampleWrite() {
	log := func(answer string) []*session.Log {
		ev := func(seq int64, typ string, v any) session.Event {
			e, _ := session.NewEvent(typ, v)
			e.Seq = seq
			return e
		}
		return []*session.Log{{Header: session.Header{ID: "root"}, Events: []session.Event{
			ev(0, session.TypeTurnStart, session.TurnStartData{Turn: 1, Trigger: "user"}),
			ev(1, session.TypeUserMessage, session.Message{Role: session.RoleUser, Content: []session.Part{session.TextPart("Add 2 and 3.")}}),
			ev(2, session.TypeStepStart, session.StepData{Turn: 1, Step: 1}),
			ev(3, session.TypeAssistantMessage, session.AssistantMessageData{Turn: 1, Step: 1, Message: session.Message{
				Role: session.RoleAssistant, Content: []session.Part{session.TextPart(answer)}}}),
			ev(4, session.TypeTurnEnd, session.TurnEndData{Turn: 1, Reason: session.EndReason{Kind: session.TurnCompleted}}),
		}}}
	}
	var page bytes.Buffer
	err := report.Write(&page, "agentsnap check", []report.Scenario{{
		Name: "spawn/add", Dir: "fixtures/spawn/add", Status: report.StatusFail,
		Recorded: log("5"), Replayed: log("6"),
		Problems:   []string{"root: seq 3 (assistant/message): data.message: golden 5, replay 6"},
		FixCommand: "agentsnap record fixtures/spawn/add",
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Write the page to a file in real use; here, show two lines of it.
	fmt.Println(regexp.MustCompile(`<p class="counts">.*`).FindString(page.String()))
	fmt.Println(regexp.MustCompile(`<a class="jump" href="#s1-first-divergence">.*?</a>`).FindString(page.String()))
	// Output:
	// <p class="counts">1 scenario: <span class="badge st-fail">1 fail</span></p>
	// <a class="jump" href="#s1-first-divergence">first divergence</a>
}
